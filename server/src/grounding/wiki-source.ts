/**
 * One configured wiki, read only through the SDK's typed builders and `WikiClient`: its siteinfo
 * (at start, and on demand for `/providers?check=true`), a search, and page text (`prop=extracts`
 * where TextExtracts is installed, otherwise the page's wikitext reduced to plain text). Every
 * request is metered (requests, bytes, time) for the session's usage. A private wiki is read as the
 * operator's bot (`action=login` with a bot password, its cookies kept by this source).
 */

import type { WikiSourceInfo } from '../../../sdk/src/generated/types.gen.js';
import { info } from '../../../sdk/src/generated/wiki/info.js';
import { revisions } from '../../../sdk/src/generated/wiki/revisions.js';
import { search } from '../../../sdk/src/generated/wiki/search.js';
import { siteinfo } from '../../../sdk/src/generated/wiki/siteinfo.js';
import { WikiApiError, type WikiBatch, WikiClient } from '../../../sdk/src/wiki/client.js';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import type { QueryInput } from '../../../sdk/src/wiki/query.js';
import { query } from '../../../sdk/src/wiki/query.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import type { WikiSourceConfig } from '../config/wikis.js';
import { closeCutJson, wholeCharacters } from './cut-json.js';
import { storableText, truncateBytes, wikitextToPlain } from './plain-text.js';

/** `prop=extracts` (TextExtracts): not in the catalogue of core modules, so described here from its paraminfo. */
export const extracts = defineModule<
  {
    chars?: number;
    sentences?: number;
    limit?: number;
    intro?: boolean;
    plaintext?: boolean;
    sectionformat?: 'plain' | 'raw' | 'wiki';
  },
  'prop',
  false
>({
  name: 'extracts',
  path: 'query+extracts',
  group: 'prop',
  prefix: 'ex',
  parameters: [
    { index: 1, name: 'chars', type: 'integer', min: 1, max: 1200 },
    { index: 2, name: 'sentences', type: 'integer', min: 1, max: 10 },
    { index: 3, name: 'limit', type: 'limit', default: 20, min: 1, max: 20, highmax: 20 },
    { index: 4, name: 'intro', type: 'boolean' },
    { index: 5, name: 'plaintext', type: 'boolean' },
    { index: 6, name: 'sectionformat', type: ['plain', 'raw', 'wiki'], default: 'wiki' },
    { index: 7, name: 'continue', type: 'integer' },
  ],
});

/** What reading took: one entry per HTTP request. */
export interface Meter {
  requests: number;
  bytes: number;
  ms: number;
  /** Responses cut at the source's `maxResponseBytes`. */
  cut?: number;
}

/** How many pages a request asks for by title (at least one): its `titles`, in the URL or a posted form. */
function pagesAsked(input: RequestInfo | URL, init?: RequestInit): number {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const body =
    typeof init?.body === 'string' || init?.body instanceof URLSearchParams ? new URLSearchParams(init.body) : undefined;
  const titles = url.searchParams.get('titles') ?? body?.get('titles');
  if (!titles) return 1;
  // MediaWiki's two ways of joining values: `|`, or U+001F before each.
  return Math.max(1, titles.split(titles.startsWith('\u001f') ? '\u001f' : '|').filter(Boolean).length);
}

/**
 * At most `cap` bytes of `res`'s body, and whether there was more: the rest is never read (the connection is let go).
 * A cut answer's JSON is closed where it was cut (`closeCutJson`), so the pages read keep their text up to there.
 */
async function readCapped(res: Response, cap: number): Promise<{ body: Uint8Array; cut: boolean }> {
  if (!res.body) return { body: new Uint8Array(0), cut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => undefined);
      const whole = Buffer.concat(chunks, cap);
      const text = closeCutJson(new TextDecoder().decode(wholeCharacters(whole)));
      return { body: new TextEncoder().encode(text), cut: true };
    }
  }
  return { body: Buffer.concat(chunks, size), cut: false };
}

export interface WikiPageText {
  title: string;
  pageId: number;
  revisionId: number;
  url: string;
  text: string;
}

/** A refused or failed request, as the models and the session see it: MediaWiki's own code. */
export class WikiReadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** Any failure of the builders or the client as a `WikiReadError` (builders refuse with MediaWiki's codes). */
export function readError(e: unknown): WikiReadError {
  if (e instanceof WikiReadError) return e;
  if (e instanceof WikiParamError || e instanceof WikiApiError)
    return new WikiReadError(e.code, e instanceof WikiApiError ? e.info : e.message);
  if (e instanceof Error && e.name === 'TimeoutError') return new WikiReadError('timeout', 'The wiki took too long.');
  if (e instanceof Error && e.name === 'AbortError') return new WikiReadError('aborted', 'The debate stopped.');
  return new WikiReadError('network', e instanceof Error ? e.message : String(e));
}

interface SiteFacts {
  siteName: string;
  generator: string;
  extracts: boolean;
  /** `index.php`'s URL, for links to revisions. */
  script: string;
}

export class WikiSource {
  readonly config: WikiSourceConfig;
  readonly #client: WikiClient;
  #facts: SiteFacts | undefined;
  #status: WikiSourceInfo = {
    name: '',
    api: '',
    status: 'unchecked',
    limits: { pages: 1, bytesPerPage: 200, requestsPerRound: 0 },
  };
  #cookies = new Map<string, string>();
  #login: Promise<void> | undefined;
  /** Where each request's cost is added; the session's meter while a debate reads. */
  #meters = new Set<Meter>();
  /** The metered fetch, cookies and all (the login posts through it: MediaWiki takes `action=login` only posted). */
  readonly #fetch: typeof fetch;

  constructor(config: WikiSourceConfig, options: { fetch?: typeof fetch } = {}) {
    this.config = config;
    this.#status = { name: config.name, api: config.api, status: 'unchecked', limits: { ...config.limits } };
    const base = options.fetch ?? fetch;
    const metered: typeof fetch = async (input, init) => {
      const started = performance.now();
      const headers = new Headers(init?.headers);
      if (this.#cookies.size > 0) headers.set('cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      let res: Response;
      try {
        res = await base(input, { ...init, headers });
      } catch (e) {
        this.#count(0, performance.now() - started);
        throw e;
      }
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        if (at > 0) this.#cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
      }
      // An untrusted source's answer is read only up to a cap, however long it is (a 100 MB page).
      const cap = this.config.limits.maxResponseBytes * pagesAsked(input, init);
      const { body, cut } = await readCapped(res, cap).catch((e) => {
        this.#count(0, performance.now() - started);
        throw e;
      });
      this.#count(Math.min(body.byteLength, cap), performance.now() - started, cut);
      // What is passed on is the body as read (decoded, maybe cut): its length and encoding are no longer the wire's.
      const kept = new Headers(res.headers);
      kept.delete('content-length');
      kept.delete('content-encoding');
      return new Response(body as Uint8Array<ArrayBuffer>, { status: res.status, statusText: res.statusText, headers: kept });
    };
    this.#fetch = metered;
    this.#client = new WikiClient({
      apiUrl: config.api,
      userAgent: config.userAgent,
      fetch: metered,
      timeout: config.timeoutMs,
      maxRetries: 0,
    });
  }

  #count(bytes: number, ms: number, cut = false): void {
    for (const m of this.#meters) {
      m.requests++;
      m.bytes += bytes;
      m.ms += ms;
      if (cut) m.cut = (m.cut ?? 0) + 1;
    }
  }

  /** Runs `fn` with every request it makes counted into `meter`. */
  async metered<T>(meter: Meter, fn: () => Promise<T>): Promise<T> {
    this.#meters.add(meter);
    try {
      return await fn();
    } finally {
      this.#meters.delete(meter);
    }
  }

  get info(): WikiSourceInfo {
    return { ...this.#status, limits: { ...this.#status.limits } };
  }

  /** Reads the wiki's siteinfo (general, extensions) and its site context; the source's reachability. */
  async check(signal?: AbortSignal): Promise<WikiSourceInfo> {
    const started = performance.now();
    try {
      await this.#loggedIn(signal);
      const built = query({ meta: [siteinfo({ prop: ['general', 'extensions'] })] });
      const r = (await this.#client.request(built, signal ? { signal } : {})) as {
        query: { general?: Record<string, unknown>; extensions?: { name?: string }[] };
      };
      const general = r.query.general ?? {};
      this.#facts = {
        siteName: String(general.sitename ?? ''),
        generator: String(general.generator ?? ''),
        extracts: (r.query.extensions ?? []).some((e) => e.name === 'TextExtracts'),
        script: this.#script(general.server, general.script),
      };
      await this.#client.site(signal ? { signal } : {});
      this.#status = {
        ...this.#status,
        status: 'reachable',
        siteName: this.#facts.siteName,
        generator: this.#facts.generator,
        extracts: this.#facts.extracts,
        latencyMs: Math.round(performance.now() - started),
        checkedAt: new Date().toISOString(),
      };
      delete this.#status.error;
    } catch (e) {
      const err = readError(e);
      this.#status = {
        ...this.#status,
        status: 'unreachable',
        error: err.code,
        latencyMs: Math.round(performance.now() - started),
        checkedAt: new Date().toISOString(),
      };
    }
    return this.info;
  }

  /**
   * `index.php`'s URL from the siteinfo's `server` and `script`: what every page's link is made of, so an http(s) URL
   * only (a hostile siteinfo's `javascript:` is no link to store); else the one beside the configured `api.php`.
   */
  #script(server: unknown, script: unknown): string {
    const api = new URL(this.config.api);
    const fallback = new URL(api.pathname.replace(/api\.php$/, 'index.php'), api).href;
    const base = typeof server === 'string' ? (server.startsWith('//') ? `${api.protocol}${server}` : server) : api.origin;
    const url = URL.parse(typeof script === 'string' ? script : fallback, URL.parse(base) ?? api);
    return url && /^https?:$/.test(url.protocol) ? url.href : fallback;
  }

  /** Siteinfo, read once (again after a failure). */
  async #site(signal?: AbortSignal): Promise<SiteFacts> {
    if (!this.#facts) {
      const status = await this.check(signal);
      if (!this.#facts) throw new WikiReadError(status.error ?? 'network', `The wiki ${this.config.name} could not be reached.`);
    }
    return this.#facts;
  }

  /** Logs in as the operator's bot once (its cookies then go with every request). */
  #loggedIn(signal?: AbortSignal): Promise<void> {
    const bot = this.config.bot;
    if (!bot) return Promise.resolve();
    this.#login ??= (async () => {
      const tokens = (await this.#client.request(
        { action: 'query', meta: 'tokens', type: 'login', format: 'json', formatversion: '2' },
        signal ? { signal } : {},
      )) as { query: { tokens?: { logintoken?: string } } };
      const token = tokens.query.tokens?.logintoken ?? '';
      // Posted, never in a URL (MediaWiki refuses it otherwise: `mustbeposted`; and a URL gets logged).
      const timeout = AbortSignal.timeout(this.config.timeoutMs);
      const res = await this.#fetch(this.config.api, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'user-agent': this.config.userAgent,
          'api-user-agent': this.config.userAgent,
        },
        body: new URLSearchParams({
          action: 'login',
          lgname: bot.user,
          lgpassword: bot.password,
          lgtoken: token,
          format: 'json',
          formatversion: '2',
          errorformat: 'plaintext',
        }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const r = (await res.json().catch(() => ({}))) as {
        login?: { result?: string; reason?: string | { text?: string } };
        errors?: { code?: string; text?: string }[];
      };
      if (r.errors?.[0])
        throw new WikiReadError(r.errors[0].code ?? 'login-failed', r.errors[0].text ?? 'The login was refused.');
      if (r.login?.result !== 'Success') {
        const reason = typeof r.login?.reason === 'string' ? r.login.reason : r.login?.reason?.text;
        throw new WikiReadError('login-failed', reason ?? String(r.login?.result ?? 'no answer'));
      }
    })();
    this.#login.catch(() => {
      this.#login = undefined;
    });
    return this.#login;
  }

  async #run<Q>(input: QueryInput, signal?: AbortSignal, strict = false): Promise<Q> {
    await this.#site(signal);
    // The builders refuse before any request is sent: a `WikiParamError` with MediaWiki's own code.
    const built = await this.#client.build(input, strict ? { strict: true } : {});
    const r = await this.#client.request(built, signal ? { signal } : {});
    return r.query as Q;
  }

  /**
   * A query the caller built (`wiki_query` over MCP), validated against the site context and sent as is: the batch the
   * wiki answered, its warnings and continuation. The caller refuses what the builders refuse before calling this.
   */
  async query(input: QueryInput, signal?: AbortSignal): Promise<WikiBatch> {
    await this.#site(signal);
    const built = await this.#client.build(input);
    return this.#client.request(built, signal ? { signal } : {});
  }

  /**
   * Titles of the best matches for `text` in the main namespace's page text (some backends search titles by default).
   * `limit` is given to the builders as is (a model's value: `badinteger` when not an integer); with `strict`, a value
   * MediaWiki would only clamp with a warning (`outofrange`) is refused too.
   */
  async search(text: string, limit: unknown, signal?: AbortSignal, options: { strict?: boolean } = {}): Promise<string[]> {
    const r = await this.#run<{ search?: { title: string }[] }>(
      { list: [search({ search: text, limit: limit as number, namespace: [0], what: 'text' })] },
      signal,
      options.strict,
    );
    return (r.search ?? []).map((s) => s.title);
  }

  /** The pages' current text as plain text, cut to the source's bytes per page; titles that do not exist are left out. */
  async read(titles: readonly string[], signal?: AbortSignal): Promise<WikiPageText[]> {
    if (titles.length === 0) return [];
    const facts = await this.#site(signal);
    type Page = {
      title: string;
      pageid?: number;
      missing?: boolean;
      invalid?: boolean;
      invalidreason?: string;
      lastrevid?: number;
      extract?: string;
      revisions?: { revid: number; slots?: { main?: { content?: string } } }[];
    };
    const limit = this.config.limits.bytesPerPage;
    const pageOf = (p: Page, text: string, revisionId: number): WikiPageText => ({
      title: p.title,
      pageId: p.pageid ?? 0,
      revisionId,
      url: `${facts.script}?oldid=${revisionId}`,
      text: truncateBytes(storableText(text), limit),
    });
    if (facts.extracts) {
      // A whole page's extract comes one page per request (TextExtracts' own rule), so they go at once.
      const each = await Promise.all(
        titles.map((title) =>
          this.#run<{ pages?: Page[] }>(
            // `info` first: its fields come before the extract in the answer, so a cut one keeps them.
            { titles: [title], redirects: true, prop: [info({}), extracts({ plaintext: true, sectionformat: 'plain' })] },
            signal,
          ),
        ),
      );
      refuseInvalid(each.flatMap((r) => r.pages ?? []));
      return each.flatMap((r) =>
        (r.pages ?? []).filter((p) => !p.missing && !p.invalid).map((p) => pageOf(p, p.extract ?? '', p.lastrevid ?? 0)),
      );
    }
    const r = await this.#run<{ pages?: Page[] }>(
      { titles: [...titles], redirects: true, prop: [revisions({ prop: ['ids', 'content'], slots: ['main'] })] },
      signal,
    );
    const order = new Map(titles.map((t, i) => [t, i]));
    refuseInvalid(r.pages ?? []);
    return (r.pages ?? [])
      .filter((p) => !p.missing && !p.invalid && p.revisions?.[0])
      .map((p) => pageOf(p, wikitextToPlain(p.revisions![0]!.slots?.main?.content ?? ''), p.revisions![0]!.revid))
      .sort((a, b) => (order.get(a.title) ?? 99) - (order.get(b.title) ?? 99));
  }
}

/** Only titles MediaWiki itself refuses: as its `invalidtitle`, with its reason, so a model can correct the title. */
function refuseInvalid(pages: readonly { title: string; invalid?: boolean; invalidreason?: string; missing?: boolean }[]): void {
  const invalid = pages.find((p) => p.invalid);
  if (invalid && pages.every((p) => p.invalid || p.missing)) {
    throw new WikiReadError('invalidtitle', invalid.invalidreason ?? `Bad title "${invalid.title}".`);
  }
}
