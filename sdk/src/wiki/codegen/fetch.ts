/**
 * Where the generator's paraminfo comes from: a JSON file, or a live wiki's `api.php`.
 *
 * From a wiki it asks `action=paraminfo&modules=main|query` first, to learn the query submodules (the
 * `query` module's `prop`, `list` and `meta` parameters name them in `submodules`, or failing that
 * in their `type`), then asks for `modules=query+a|query+b|…` in batches of at most 50 (MediaWiki's
 * limit for a multi-value parameter without the apihighlimits right) and merges the answers in order.
 * The `query` module itself stays in the result, first; the emitter skips it.
 */
import { inert } from '../../terminal/terminal.js';
import { type ParamInfoDocument, type ParamInfoModule, parseParamInfoDocument } from './document.js';
import { loadFs } from './node.js';

/** Sent with every request: Wikimedia wikis refuse clients without a descriptive User-Agent. */
export const DEFAULT_USER_AGENT = 'consilium-wiki/0.1.0 (@consilium/sdk wiki module generator)';

/** MediaWiki's cap on values of a multi-value parameter without the apihighlimits right. */
export const MAX_BATCH = 50;

export interface FetchParamInfoOptions {
  /** A `fetch` implementation; the global one when omitted. */
  fetch?: typeof fetch;
  /** Replaces {@link DEFAULT_USER_AGENT}; Wikimedia asks for contact details in it. */
  userAgent?: string;
  /** Modules per request, 1 to 50 (default 50). */
  batchSize?: number;
  /** Per request (default 60 000). */
  timeoutMs?: number;
  /** Where the reader says what it left out of the paraminfo (see `parseParamInfoDocument`). */
  warnings?: string[];
}

/**
 * A request to the wiki failed: network, HTTP status, a body that is not JSON, or an API error. Text
 * from the wiki in the message is made inert (no escape sequences or control characters), as it ends
 * up on a terminal.
 */
export class ParamInfoFetchError extends Error {
  override name = 'ParamInfoFetchError';
  /** No answer came (refused, reset, DNS, timeout), as opposed to an answer that was no use. */
  readonly network: boolean;

  constructor(message: string, options?: { cause?: unknown; network?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.network = options?.network ?? false;
  }
}

const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

/** Reads a paraminfo document from a JSON file, or fetches it from an `api.php` URL (http or https). */
export async function loadParamInfo(source: string, options: FetchParamInfoOptions = {}): Promise<ParamInfoDocument> {
  if (isUrl(source)) return fetchParamInfo(source, options);
  const fs = await loadFs();
  let text: string;
  try {
    text = await fs.readFile(source, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${source}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseParamInfoDocument(json, options.warnings ? { warnings: options.warnings } : {});
}

/** The paraminfo request for `modules`, as MediaWiki's own clients would send it. */
function paraminfoUrl(api: string, modules: readonly string[]): URL {
  const url = new URL(api);
  url.searchParams.set('action', 'paraminfo');
  url.searchParams.set('modules', modules.join('|'));
  url.searchParams.set('format', 'json');
  url.searchParams.set('formatversion', '2');
  url.searchParams.set('helpformat', 'none');
  return url;
}

/** The `query+<name>` paths of every query submodule, in the order the `query` module lists them. */
export function querySubmodules(query: ParamInfoModule): string[] {
  const paths: string[] = [];
  for (const group of ['prop', 'list', 'meta']) {
    const param = query.parameters.find((p) => p.name === group);
    if (!param) continue;
    const submodules = param.submodules;
    if (typeof submodules === 'object' && submodules !== null && !Array.isArray(submodules)) {
      paths.push(...Object.values(submodules).filter((v): v is string => typeof v === 'string'));
    } else if (Array.isArray(param.type)) {
      paths.push(...param.type.map((name) => `query+${name}`));
    }
  }
  return [...new Set(paths)];
}

/** Fetches the `query` module and every query submodule of the wiki at `api` (its `api.php` URL). */
export async function fetchParamInfo(api: string, options: FetchParamInfoOptions = {}): Promise<ParamInfoDocument> {
  if (!isUrl(api)) throw new ParamInfoFetchError(`not an http(s) URL: ${api}`);
  const batchSize = options.batchSize ?? MAX_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BATCH}, not ${batchSize}`);
  }
  // `main` too: its parameters (and query's) are the ones the generated `mainParameters` carries.
  const first = await paraminfo(api, ['main', 'query'], options);
  const query = first.paraminfo.modules.find((m) => m.path === 'query')!;
  const main = first.paraminfo.modules.find((m) => m.path === 'main')!;
  const paths = querySubmodules(query);
  if (paths.length === 0) {
    throw new ParamInfoFetchError(`${api}: the query module lists no submodules in its prop, list or meta parameters`);
  }
  const modules: ParamInfoModule[] = [main, query];
  for (let i = 0; i < paths.length; i += batchSize) {
    const answer = await paraminfo(api, paths.slice(i, i + batchSize), options);
    modules.push(...answer.paraminfo.modules);
  }
  // Each batch was read as it came; the whole is read once more for what it leaves out.
  return parseParamInfoDocument(
    { paraminfo: { helpformat: 'none', modules } },
    options.warnings ? { warnings: options.warnings } : {},
  );
}

/** One paraminfo request; every requested module must come back. */
async function paraminfo(api: string, paths: readonly string[], options: FetchParamInfoOptions): Promise<ParamInfoDocument> {
  const url = paraminfoUrl(api, paths);
  const json = await getJson(url, options);
  let doc: ParamInfoDocument;
  try {
    doc = parseParamInfoDocument(json);
  } catch (error) {
    throw new ParamInfoFetchError(`GET ${url}: ${(error as Error).message}`, { cause: error });
  }
  const returned = new Set(doc.paraminfo.modules.map((m) => m.path));
  const missing = paths.filter((p) => !returned.has(p));
  if (missing.length > 0) {
    const warnings = inert(JSON.stringify((json as { warnings?: unknown }).warnings ?? null));
    throw new ParamInfoFetchError(`GET ${url}: the wiki did not describe ${missing.join(', ')} (warnings: ${warnings})`);
  }
  return doc;
}

/** The start of a body the wiki sent, on one line and inert. */
const snippet = (body: string): string => {
  const text = inert(body).replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
};

async function getJson(url: URL, options: FetchParamInfoOptions): Promise<unknown> {
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  let body: string;
  try {
    response = await doFetch(url, {
      headers: { 'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT, Accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    body = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new ParamInfoFetchError(`GET ${url} failed: ${inert(`${(error as Error).message}${cause ? ` (${cause})` : ''}`)}`, {
      cause: error,
      network: true,
    });
  }
  if (!response.ok) {
    throw new ParamInfoFetchError(`GET ${url} answered HTTP ${response.status} ${inert(response.statusText)}${snippet(body)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const type = inert(response.headers.get('content-type') ?? 'no content type');
    throw new ParamInfoFetchError(
      `GET ${url} did not answer JSON (${type}); is this the wiki's api.php URL?${snippet(body.slice(0, 300))}`,
    );
  }
  const apiError = mediaWikiError(json);
  if (apiError) throw new ParamInfoFetchError(`GET ${url}: MediaWiki API error ${inert(apiError).replace(/\s+/g, ' ')}`);
  return json;
}

/** `{"error":{code,info}}` (errorformat=bc) or `{"errors":[{code,text|html}]}`, as `code: text`. */
function mediaWikiError(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { error, errors } = json as { error?: { code?: unknown; info?: unknown }; errors?: unknown };
  if (error && typeof error === 'object') return `${String(error.code)}: ${String(error.info ?? '')}`;
  if (Array.isArray(errors) && errors.length > 0) {
    return errors
      .map(
        (e: { code?: unknown; text?: unknown; html?: unknown; key?: unknown }) =>
          `${String(e.code)}: ${String(e.text ?? e.html ?? e.key ?? '')}`,
      )
      .join('; ');
  }
  return undefined;
}
