/**
 * A small fetch-based client for api.php: runs a built {@link BuiltQuery}, follows continuation,
 * maps the API's `errors`/`warnings` to typed results and honours `maxlag`.
 *
 * ```ts
 * const client = new WikiClient({ apiUrl: 'https://en.wikipedia.org/w/api.php', userAgent: 'MyBot/1.0 (me@example.org)', maxlag: 5 });
 * for await (const batch of client.batches(query({ list: [allpages({ limit: 'max' })] }))) {
 *   console.log(batch.query.allpages, batch.warnings);
 * }
 * const all = await client.collect(query({ list: [allpages({ prefix: 'Foo' })] }));
 * ```
 */
import { encodeForm } from './form.js';
import { type BuiltQuery, methodFor, type QueryInput, type QueryToken, query } from './query.js';
import { hasApiHighLimits, LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from './site.js';
import type { BuildOptions, GeneratorUse, ModuleUse, ParamInfo, SiteContext } from './types.js';

export interface WikiClientOptions {
  /** The wiki's `api.php` URL. */
  apiUrl: string | URL;
  /** Sent as `User-Agent` and `Api-User-Agent` (Wikimedia's policy requires a contact). */
  userAgent: string;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
  /** Sent as `maxlag=N` on every request that does not set its own. */
  maxlag?: number;
  /** How many times a `maxlag` error is retried (after waiting `Retry-After`); 3 by default. */
  maxRetries?: number;
  /** Extra headers on every request. */
  headers?: Readonly<Record<string, string>>;
  /** How the client waits before a retry (tests replace it); a cancellable `setTimeout` by default. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * How long one HTTP request may take, answer read in full, before it fails with `WikiApiError`
   * code `timeout`; 60 000 ms by default, `0` for no limit. A maxlag wait is not part of it.
   */
  timeout?: number;
  /**
   * The site context queries given as {@link QueryInput} are validated against: by default loaded
   * from the wiki's siteinfo on first use and cached; a snapshot to use instead, with or without
   * apihighlimits (the `site` the generator embeds is a `SiteContext`: apihighlimits is then off);
   * or `false` to validate without one.
   */
  site?: WikiSite | SiteContext | false;
  /**
   * The wiki's own `main` and `query` parameters (`mainParameters`, which `consilium-wiki generate` writes):
   * queries given as {@link QueryInput} validate their options against them, not the bundled table (see
   * `BuildOptions.main`), so an older wiki's `smaxage=-1` passes and its unknown `crossorigin` warns, as it does.
   */
  main?: readonly ParamInfo[];
}

/** The default {@link WikiClientOptions.timeout}. */
const DEFAULT_WIKI_TIMEOUT_MS = 60_000;

/** What the client validates against: the wiki's site context and whether the user has apihighlimits. */
export interface WikiSite {
  site: SiteContext;
  apihighlimits: boolean;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface BatchOptions extends RequestOptions {
  /** Stop after this many requests (the last batch's `continue` is then still set). */
  maxBatches?: number;
  /** For a {@link QueryInput}: build options on top of the site context (`strict`, `rules`, …). */
  build?: BuildOptions;
}

/** One error or warning as the API reports it, whatever the `errorformat`. */
export interface WikiApiMessage {
  code: string;
  /** The message as text (`plaintext`/`wikitext`), HTML (`html`), the key (`raw`), or `info` (`bc`). */
  text: string;
  module?: string;
  /** `raw` format: the message key and its parameters. */
  key?: string;
  params?: unknown[];
  html?: string;
  data?: Record<string, unknown>;
}

/** The API answered with an error (or with something that is not an API answer). */
export class WikiApiError extends Error {
  override name = 'WikiApiError';
  constructor(
    /**
     * MediaWiki's error code (`badvalue`, `maxlag`, `readonly`, …); or `http` (an error status without an API
     * error), `badresponse` (not an API answer), `network` (no answer: refused, DNS, TLS, reset) or `timeout`.
     */
    readonly code: string,
    /** The message text. */
    readonly info: string,
    readonly details: {
      module?: string;
      data?: Record<string, unknown>;
      docref?: string;
      servedby?: string;
      status?: number;
      errors?: WikiApiMessage[];
      warnings?: WikiApiMessage[];
      response?: unknown;
      /** For `network`: the error `fetch` failed with. */
      cause?: unknown;
    } = {},
  ) {
    super(`${code}: ${info}`, details.cause === undefined ? undefined : { cause: details.cause });
  }
  get module(): string | undefined {
    return this.details.module;
  }
  get data(): Record<string, unknown> | undefined {
    return this.details.data;
  }
  get status(): number | undefined {
    return this.details.status;
  }
  /** Every error of the response (the first is this one). */
  get errors(): WikiApiMessage[] {
    return this.details.errors ?? [];
  }
}

/** The codes with which MediaWiki refuses a client the rights a module needs (paraminfo's `readrights`, `writerights`). */
const RIGHTS_CODES: Readonly<Record<string, 'read' | 'write' | undefined>> = {
  readapidenied: 'read',
  writeapidenied: 'write',
  noapiwrite: 'write',
  permissiondenied: undefined,
};

/**
 * The wiki refused this client a right the request needs: `readapidenied` (a private wiki, anonymously),
 * `writeapidenied`/`noapiwrite` (a module that writes), `permissiondenied` (a right of the module's own).
 */
export class WikiRightsError extends WikiApiError {
  override name = 'WikiRightsError';
  /** `read` or `write` when the code says which; `undefined` for a module's own right (`permissiondenied`). */
  get right(): 'read' | 'write' | undefined {
    return RIGHTS_CODES[this.code];
  }
}

/** One response of a (possibly continued) query. */
export interface WikiBatch<Q = Record<string, unknown>> {
  /** The response's `query` (empty when the response had none). */
  query: Q;
  /** The `continue` object, when there is more. */
  continue?: Record<string, string>;
  batchcomplete: boolean;
  warnings: WikiApiMessage[];
  /** `limits` (what `max` resolved to), when reported. */
  limits?: Record<string, number>;
  /** The whole JSON response. */
  response: Record<string, unknown>;
  /** The parameters that were sent. */
  params: Record<string, string>;
}

export interface WikiCollected<Q = Record<string, unknown>> {
  query: Q;
  warnings: WikiApiMessage[];
  /** How many requests were made. */
  batches: number;
  /** False when `maxBatches` stopped the walk before the end. */
  complete: boolean;
  /** Where to resume when not complete. */
  continue?: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isBuiltQuery(q: unknown): q is BuiltQuery {
  return isObject(q) && isObject(q.params) && typeof q.toURLSearchParams === 'function';
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One message of `errors`/`warnings` in the `plaintext`/`wikitext`/`html`/`raw`/`none` formats. */
function toMessage(entry: unknown): WikiApiMessage {
  const e = isObject(entry) ? entry : {};
  const text =
    typeof e.text === 'string'
      ? e.text
      : typeof e.html === 'string'
        ? e.html
        : typeof e['*'] === 'string'
          ? (e['*'] as string)
          : typeof e.key === 'string'
            ? e.key
            : '';
  const msg: WikiApiMessage = { code: typeof e.code === 'string' ? e.code : 'unknown', text };
  if (typeof e.module === 'string') msg.module = e.module;
  if (typeof e.key === 'string') msg.key = e.key;
  if (Array.isArray(e.params)) msg.params = e.params;
  if (typeof e.html === 'string') msg.html = e.html;
  if (isObject(e.data)) msg.data = e.data;
  return msg;
}

/** Warnings in either shape: an array (`errorformat` other than `bc`) or `{module: {warnings}}` (`bc`). */
export function parseWarnings(warnings: unknown): WikiApiMessage[] {
  if (Array.isArray(warnings)) return warnings.map(toMessage);
  if (!isObject(warnings)) return [];
  const out: WikiApiMessage[] = [];
  for (const [module, body] of Object.entries(warnings)) {
    const text = isObject(body) ? (body.warnings ?? body['*']) : body;
    if (typeof text !== 'string') continue;
    for (const line of text.split('\n')) if (line !== '') out.push({ code: 'bc-warning', text: line, module });
  }
  return out;
}

/** The errors of a response (`errors: [...]`, or `error: {code, info}` in the `bc` format); empty when none. */
export function parseErrors(response: Record<string, unknown>): WikiApiMessage[] {
  if (Array.isArray(response.errors) && response.errors.length > 0) return response.errors.map(toMessage);
  if (isObject(response.error)) {
    const { code, info, docref: _docref, module, '*': star, ...data } = response.error;
    const msg: WikiApiMessage = {
      code: typeof code === 'string' ? code : 'unknown',
      text: typeof info === 'string' ? info : typeof star === 'string' ? star : '',
    };
    if (typeof module === 'string') msg.module = module;
    if (Object.keys(data).length > 0) msg.data = data;
    return [msg];
  }
  return [];
}

/** Seconds (or an HTTP date) from `Retry-After`, as milliseconds; `undefined` when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const PAGESET_ARRAYS = new Set(['normalized', 'redirects', 'converted', 'interwiki', 'badrevids']);

function pageKey(page: unknown): string | undefined {
  if (!isObject(page)) return undefined;
  if (typeof page.title === 'string') return `t:${page.title}`;
  if (typeof page.pageid === 'number') return `p:${page.pageid}`;
  if (typeof page.revid === 'number') return `r:${page.revid}`;
  return undefined;
}

function mergeValue(into: unknown, from: unknown): unknown {
  if (Array.isArray(into) && Array.isArray(from)) return [...into, ...from];
  if (isObject(into) && isObject(from)) {
    const out: Record<string, unknown> = { ...into };
    for (const [k, v] of Object.entries(from)) out[k] = k in out ? mergeValue(out[k], v) : v;
    return out;
  }
  return from;
}

/**
 * Merges one batch's `query` into the accumulated one: `pages` joined by title (their arrays —
 * revisions, links, … — concatenated), the page-set lists (`normalized`, `redirects`, …) without
 * repeats, list results concatenated, objects merged, scalars replaced.
 */
export function mergeQuery(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...into };
  for (const [key, value] of Object.entries(from)) {
    const prev = out[key];
    if (key === 'pages' && Array.isArray(prev) && Array.isArray(value)) {
      const pages = [...prev];
      const index = new Map<string, number>();
      pages.forEach((p, i) => {
        const k = pageKey(p);
        if (k !== undefined) index.set(k, i);
      });
      for (const page of value) {
        const k = pageKey(page);
        const at = k === undefined ? undefined : index.get(k);
        if (at === undefined) {
          if (k !== undefined) index.set(k, pages.length);
          pages.push(page);
        } else {
          pages[at] = mergeValue(pages[at], page);
        }
      }
      out[key] = pages;
    } else if (PAGESET_ARRAYS.has(key) && Array.isArray(prev) && Array.isArray(value)) {
      const seen = new Set(prev.map((v) => JSON.stringify(v)));
      out[key] = [...prev, ...value.filter((v) => !seen.has(JSON.stringify(v)))];
    } else {
      out[key] = prev === undefined ? value : mergeValue(prev, value);
    }
  }
  return out;
}

/** What a failed fetch says, down to its innermost cause (undici's `fetch failed` hides it: ECONNREFUSED, ENOTFOUND, …). */
function networkCause(error: unknown): string {
  let e = error;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  const code = (e as { code?: unknown } | undefined)?.code;
  const message = e instanceof Error ? e.message : String(e);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

export class WikiClient {
  readonly apiUrl: string;
  readonly userAgent: string;
  readonly maxlag: number | undefined;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #fetch: typeof fetch;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #site: Promise<WikiSite> | WikiSite | false | undefined;
  readonly #main: readonly ParamInfo[] | undefined;
  /** Tokens by `meta=tokens` type, fetched when a query first needs them. */
  readonly #tokens = new Map<string, string>();

  constructor(options: WikiClientOptions) {
    if (typeof options.userAgent !== 'string' || options.userAgent.trim() === '') {
      throw new TypeError('WikiClient: a userAgent is required (e.g. "MyTool/1.0 (https://example.org; me@example.org)").');
    }
    this.apiUrl = String(options.apiUrl);
    this.userAgent = options.userAgent;
    this.maxlag = options.maxlag;
    this.maxRetries = options.maxRetries ?? 3;
    this.timeout = options.timeout ?? DEFAULT_WIKI_TIMEOUT_MS;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#headers = options.headers ?? {};
    this.#sleep = options.sleep ?? defaultSleep;
    this.#main = options.main;
    const site = options.site;
    // A bare `SiteContext` (it has no `site` of its own) is a snapshot without apihighlimits.
    this.#site = site === false || site === undefined || 'site' in site ? site : { site, apihighlimits: false };
  }

  /**
   * The wiki's site context (namespaces, interwiki prefixes, temporary accounts, miser mode, the language
   * codes languageinfo knows) and whether this client's user has apihighlimits: one
   * `meta=siteinfo|userinfo|languageinfo` request on first use, then cached
   * (a failed load is not cached). `undefined` when the client was made with `site: false`.
   */
  async site({ signal }: RequestOptions = {}): Promise<WikiSite | undefined> {
    if (this.#site === false) return undefined;
    if (this.#site === undefined) {
      const loading = this.request(
        {
          action: 'query',
          meta: 'siteinfo|userinfo|languageinfo',
          siprop: SITEINFO_PROPS,
          uiprop: 'rights',
          ...LANGUAGEINFO_PARAMS,
          format: 'json',
          formatversion: '2',
          errorformat: 'plaintext',
        },
        signal ? { signal } : {},
      ).then((batch) => ({
        site: siteContextFromSiteinfo({ query: batch.query, continue: batch.continue }),
        apihighlimits: hasApiHighLimits(batch.query),
      }));
      this.#site = loading;
      loading.catch(() => {
        if (this.#site === loading) this.#site = undefined;
      });
    }
    return this.#site;
  }

  /**
   * `query(input)` validated against this wiki's site context (see {@link WikiClient.site}), with the tokens its
   * modules' token parameters need and the caller did not give (see {@link WikiClient.tokens}).
   */
  async build(input: QueryInput, options: BuildOptions = {}): Promise<BuiltQuery> {
    const wiki = await this.site();
    const types = tokenTypesOf(input);
    const tokens = types.length > 0 ? { ...(await this.tokens(types)), ...options.tokens } : options.tokens;
    const base = {
      ...(wiki ? { apihighlimits: wiki.apihighlimits, site: wiki.site } : {}),
      ...(this.#main ? { main: this.#main } : {}),
    };
    return query(input, { ...base, ...options, ...(tokens ? { tokens } : {}) });
  }

  /**
   * Tokens of these `meta=tokens` types (`csrf`, `patrol`, …), from one request for those not cached yet (all of
   * them with `refresh`); cached for the client's life, as MediaWiki's tokens last the session.
   */
  async tokens(
    types: readonly string[],
    { signal, refresh = false }: RequestOptions & { refresh?: boolean } = {},
  ): Promise<Record<string, string>> {
    const wanted = [...new Set(types)];
    const missing = refresh ? wanted : wanted.filter((t) => !this.#tokens.has(t));
    if (missing.length > 0) {
      const batch = await this.request<{ tokens?: Record<string, unknown> }>(
        {
          action: 'query',
          meta: 'tokens',
          type: missing.join('|'),
          format: 'json',
          formatversion: '2',
          errorformat: 'plaintext',
        },
        signal ? { signal } : {},
      );
      for (const type of missing) {
        const token = batch.query.tokens?.[`${type}token`];
        if (typeof token !== 'string') {
          throw new WikiApiError('badresponse', `meta=tokens gave no "${type}" token.`, { response: batch.response });
        }
        this.#tokens.set(type, token);
      }
    }
    return Object.fromEntries(wanted.map((t) => [t, this.#tokens.get(t)!])) as Record<string, string>;
  }

  /**
   * Sends one request — a built query, or exactly these parameters — (with `maxlag` retries) and
   * returns the batch without following `continue`.
   */
  async request<Q = Record<string, unknown>>(
    q: BuiltQuery | Readonly<Record<string, string>>,
    { signal }: RequestOptions = {},
  ): Promise<WikiBatch<Q>> {
    const built = isBuiltQuery(q) ? q : undefined;
    return this.#request<Q>(built?.params ?? (q as Readonly<Record<string, string>>), sendingOf(built), signal);
  }

  async #request<Q>(
    params: Readonly<Record<string, string>>,
    how: Sending,
    signal: AbortSignal | undefined,
  ): Promise<WikiBatch<Q>> {
    const sent: Record<string, string> = { ...params };
    if (this.maxlag !== undefined && sent.maxlag === undefined) sent.maxlag = String(this.maxlag);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const { res, response } = await this.#exchange(sent, how.post, signal);
      const errors = parseErrors(response);
      const warnings = parseWarnings(response.warnings);
      if (errors.length > 0) {
        const first = errors[0]!;
        if (first.code === 'maxlag' && attempt < this.maxRetries) {
          const lagSeconds = typeof first.data?.lag === 'number' ? first.data.lag : undefined;
          const wait = retryAfterMs(res.headers.get('Retry-After')) ?? Math.max(5, Math.ceil(lagSeconds ?? 5)) * 1000;
          await this.#sleep(wait, signal);
          continue;
        }
        // A token the wiki no longer takes (its session renewed): fetched again, and the request sent once more.
        if (first.code === 'badtoken' && !refreshed && how.tokens.length > 0) {
          refreshed = true;
          const fresh = await this.tokens(
            how.tokens.map((t) => t.type),
            { refresh: true, ...(signal ? { signal } : {}) },
          );
          for (const { param, type } of how.tokens) sent[param] = fresh[type]!;
          continue;
        }
        const details: WikiApiError['details'] = { errors, warnings, response, status: res.status };
        if (first.module !== undefined) details.module = first.module;
        if (first.data !== undefined) details.data = first.data;
        const docref = response.docref ?? (isObject(response.error) ? response.error.docref : undefined);
        if (typeof docref === 'string') details.docref = docref;
        if (typeof response.servedby === 'string') details.servedby = response.servedby;
        if (first.code in RIGHTS_CODES) throw new WikiRightsError(first.code, first.text, details);
        throw new WikiApiError(first.code, first.text, details);
      }
      const batch: WikiBatch<Q> = {
        query: (isObject(response.query) ? response.query : {}) as Q,
        batchcomplete: response.batchcomplete === true || response.batchcomplete === '',
        warnings,
        response,
        params: sent,
      };
      if (isObject(response.continue)) {
        batch.continue = Object.fromEntries(Object.entries(response.continue).map(([k, v]) => [k, String(v)]));
      }
      if (isObject(response.limits)) batch.limits = response.limits as Record<string, number>;
      return batch;
    }
  }

  /** Every batch of the query, following `continue` until the API has no more. */
  async *batches<Q = Record<string, unknown>>(
    input: BuiltQuery | QueryInput,
    options: BatchOptions = {},
  ): AsyncGenerator<WikiBatch<Q>> {
    const q = isBuiltQuery(input) ? input : await this.build(input, options.build);
    const base: Record<string, string> = { ...q.params };
    for (const key of q.continuation) delete base[key];
    let params: Record<string, string> = { ...q.params };
    const how = sendingOf(q);
    const max = options.maxBatches ?? Number.POSITIVE_INFINITY;
    for (let n = 0; n < max; n++) {
      const batch = await this.#request<Q>(params, how, options.signal);
      yield batch;
      if (!batch.continue) return;
      params = { ...base, ...batch.continue };
    }
  }

  /** Runs every batch and merges them (see {@link mergeQuery}); warnings of all batches, in order. */
  async collect<Q = Record<string, unknown>>(q: BuiltQuery | QueryInput, options: BatchOptions = {}): Promise<WikiCollected<Q>> {
    let merged: Record<string, unknown> = {};
    const warnings: WikiApiMessage[] = [];
    let batches = 0;
    let last: WikiBatch | undefined;
    for await (const batch of this.batches(q, options)) {
      batches++;
      merged = mergeQuery(merged, batch.query);
      warnings.push(...batch.warnings);
      last = batch;
    }
    const out: WikiCollected<Q> = { query: merged as Q, warnings, batches, complete: last?.continue === undefined };
    if (last?.continue) out.continue = last.continue;
    return out;
  }

  /**
   * One request and its answer read in full, within {@link WikiClient.timeout}: a failure to get an answer is a
   * `WikiApiError` (`network`, `timeout`); the caller's own abort is passed on as it is. An overloaded wiki's `503`
   * (or `429`) with `Retry-After` is waited out and asked again, up to `maxRetries` times, as maxlag is.
   */
  async #exchange(
    params: Record<string, string>,
    post: boolean,
    signal: AbortSignal | undefined,
  ): Promise<{ res: Response; response: Record<string, unknown> }> {
    for (let attempt = 0; ; attempt++) {
      const timer = this.timeout > 0 ? AbortSignal.timeout(this.timeout) : undefined;
      const both = timer && signal ? AbortSignal.any([signal, timer]) : (timer ?? signal);
      let res: Response;
      try {
        res = await this.#send(params, post, both);
        const wait = (res.status === 503 || res.status === 429) && retryAfterMs(res.headers.get('Retry-After'));
        if (wait !== undefined && wait !== false && attempt < this.maxRetries) {
          await res.body?.cancel();
          await this.#sleep(wait, signal);
          continue;
        }
        return { res, response: await this.#read(res) };
      } catch (error) {
        if (error instanceof WikiApiError || signal?.aborted) throw error;
        if (timer?.aborted) {
          throw new WikiApiError('timeout', `${this.apiUrl} did not answer within ${this.timeout} ms.`);
        }
        throw new WikiApiError('network', `${this.apiUrl} could not be reached: ${networkCause(error)}.`, { cause: error });
      }
    }
  }

  async #send(params: Record<string, string>, post: boolean, signal: AbortSignal | undefined): Promise<Response> {
    const headers: Record<string, string> = {
      ...this.#headers,
      Accept: 'application/json',
      'User-Agent': this.userAgent,
      'Api-User-Agent': this.userAgent,
    };
    const body = encodeForm(params);
    if (post || methodFor(body) === 'POST') {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      return this.#fetch(this.apiUrl, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
    }
    const url = new URL(this.apiUrl);
    url.search = url.search ? `${url.search}&${body}` : body;
    return this.#fetch(url, { method: 'GET', headers, ...(signal ? { signal } : {}) });
  }

  async #read(res: Response): Promise<Record<string, unknown>> {
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (isObject(json) && (parseErrors(json).length > 0 || res.ok)) return json;
    const headerCode = res.headers.get('MediaWiki-API-Error');
    const type = res.headers.get('Content-Type') ?? '';
    const html = json === undefined && (/html/i.test(type) || /^\s*<(?:!doctype|html)/i.test(text));
    const htmlHint = `${this.apiUrl} answered with HTML, not JSON: is it the wiki's api.php (not index.php or a page), and is the API enabled?`;
    if (!res.ok) {
      const status = `HTTP ${res.status} ${res.statusText}`.trim();
      // An HTML error page is a wrong address only when the address is what failed; a 5xx is the server's own trouble.
      const hint = res.status === 404 ? `: ${htmlHint}` : ' (an HTML error page, from the wiki or a proxy in front of it)';
      throw new WikiApiError(headerCode ?? 'http', html ? `${status}${hint}` : status, {
        status: res.status,
        response: json ?? text.slice(0, 1000),
      });
    }
    const info = html ? htmlHint : 'The API did not answer with a JSON object.';
    throw new WikiApiError('badresponse', info, {
      status: res.status,
      response: text.slice(0, 1000),
    });
  }
}

/** How a request goes: by POST whatever its size (a module that must be posted), and the tokens it carries. */
interface Sending {
  post: boolean;
  tokens: readonly QueryToken[];
}

const PLAIN: Sending = { post: false, tokens: [] };

function sendingOf(q: BuiltQuery | undefined): Sending {
  if (q === undefined) return PLAIN;
  return { post: q.method === 'POST', tokens: q.tokens ?? [] };
}

/** The token types the input's modules take in parameters the caller left unset. */
function tokenTypesOf(input: QueryInput): string[] {
  const uses: (ModuleUse | GeneratorUse)[] = [...(input.list ?? []), ...(input.prop ?? []), ...(input.meta ?? [])];
  if (input.generator) uses.push(input.generator);
  const types = new Set<string>();
  for (const use of uses) {
    for (const p of use.spec.parameters) {
      if (typeof p.tokentype === 'string' && (use.params as Record<string, unknown>)[p.name] === undefined)
        types.add(p.tokentype);
    }
  }
  return [...types];
}
