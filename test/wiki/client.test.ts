/**
 * WikiClient against a stand-in api.php at the network edge (msw): the handlers answer the way
 * MediaWiki 1.46 does with `format=json&formatversion=2` — `batchcomplete`, `continue` objects,
 * `errors`/`warnings` in the requested `errorformat`, and `maxlag` with `Retry-After`.
 */
import { getEventListeners } from 'node:events';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { languageinfo } from '../../sdk/src/generated/wiki/languageinfo.js';
import {
  mergeQuery,
  parseErrors,
  parseWarnings,
  retryAfterMs,
  WikiApiError,
  WikiClient,
  WikiRightsError,
} from '../../sdk/src/wiki/client.js';
import { defineModule } from '../../sdk/src/wiki/module.js';
import { query } from '../../sdk/src/wiki/query.js';
import { allpages, revisions } from './fixtures/query-specs.js';

const API = 'https://wiki.test/w/api.php';
const UA = 'ConsiliumTests/0.1 (https://example.org/consilium; tests@example.org)';
const PAGES = ['Alpha', 'Beta', 'Delta', 'Epsilon', 'Gamma'].map((title, i) => ({ pageid: i + 1, ns: 0, title }));

interface Recorded {
  method: string;
  params: Record<string, string>;
  headers: Headers;
}

const state = {
  requests: [] as Recorded[],
  /** Replication lag reported for the next requests, one entry consumed per request. */
  lag: [] as number[],
  retryAfter: '5' as string | null,
};

type Message = { code: string; text: string; module: string; params?: string[]; data?: Record<string, unknown> };

/** One message as MediaWiki renders it for an errorformat (ApiErrorFormatter). */
function render(format: string, m: Message): Record<string, unknown> {
  const base: Record<string, unknown> = { code: m.code };
  if (format === 'plaintext' || format === 'wikitext') base.text = m.text;
  if (format === 'html') base.html = `<p>${m.text}</p>`;
  if (format === 'raw') Object.assign(base, { key: `apierror-${m.code}`, params: m.params ?? [] });
  if (m.data) base.data = m.data;
  base.module = m.module;
  return base;
}

function errorResponse(format: string, m: Message, headers: Record<string, string> = {}) {
  const docref = 'See https://wiki.test/w/api.php for API usage.';
  const body =
    format === 'bc'
      ? { error: { code: m.code, info: m.text, ...(m.data ?? {}), docref }, servedby: 'mw-test-1' }
      : { errors: [render(format, m)], docref, servedby: 'mw-test-1' };
  return HttpResponse.json(body, { headers: { 'MediaWiki-API-Error': m.code, ...headers } });
}

function warningsOf(format: string, warnings: Message[]): unknown {
  if (warnings.length === 0) return undefined;
  if (format === 'bc') {
    const out: Record<string, { warnings: string }> = {};
    for (const w of warnings) out[w.module] = { warnings: out[w.module] ? `${out[w.module]!.warnings}\n${w.text}` : w.text };
    return out;
  }
  return warnings.map((w) => render(format, w));
}

const KNOWN = new Set([
  'action',
  'format',
  'formatversion',
  'errorformat',
  'maxlag',
  'list',
  'prop',
  'titles',
  'continue',
  'apfrom',
  'apcontinue',
  'aplimit',
  'rvprop',
  'rvcontinue',
]);

const server = setupServer(
  http.all(API, async ({ request }) => {
    const url = new URL(request.url);
    const params: Record<string, string> = Object.fromEntries(url.searchParams);
    if (request.method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(await request.text())));
    state.requests.push({ method: request.method, params, headers: request.headers });
    const format = params.errorformat ?? 'bc';

    if (params.format !== 'json' || params.formatversion !== '2') return new HttpResponse('not json', { status: 200 });

    const lag = state.lag.shift() ?? 0;
    if (params.maxlag !== undefined && lag > Number(params.maxlag)) {
      return errorResponse(
        format,
        {
          code: 'maxlag',
          text: `Waiting for 10.64.0.1: ${lag} seconds lagged.`,
          module: 'main',
          data: { host: '10.64.0.1', lag, type: 'db' },
        },
        { ...(state.retryAfter !== null ? { 'Retry-After': state.retryAfter } : {}), 'X-Database-Lag': String(lag) },
      );
    }

    const warnings: Message[] = [];
    const unknown = Object.keys(params).filter((k) => !KNOWN.has(k));
    if (unknown.length > 0) {
      warnings.push({ code: 'unrecognizedparams', text: `Unrecognized parameter: ${unknown.join(', ')}.`, module: 'main' });
    }

    if (params.list === 'allpages') {
      const limit = Number(params.aplimit ?? '10');
      const start = params.apcontinue ?? params.apfrom ?? '';
      const from = PAGES.filter((p) => p.title >= start);
      const page = from.slice(0, limit);
      const next = from[limit];
      const body: Record<string, unknown> = { batchcomplete: true };
      if (next) body.continue = { apcontinue: next.title, continue: '-||' };
      const w = warningsOf(format, warnings);
      if (w) body.warnings = w;
      body.query = { allpages: page };
      return HttpResponse.json(body);
    }

    if (params.prop === 'revisions') {
      // Two pages, two revisions each, one revision per request: rvcontinue walks them.
      const titles = (params.titles ?? '').split('|');
      const step = params.rvcontinue === undefined ? 0 : Number(params.rvcontinue);
      const pages = titles.map((title, i) => {
        const p: Record<string, unknown> = { pageid: 100 + i, ns: 0, title };
        if (step % 2 === i % 2) p.revisions = [{ revid: 1000 + 10 * i + step }];
        return p;
      });
      const body: Record<string, unknown> = {};
      if (step < 3) body.continue = { rvcontinue: String(step + 1), continue: '||' };
      else body.batchcomplete = true;
      body.query = { normalized: [{ fromencoded: false, from: 'alpha', to: 'Alpha' }], pages };
      return HttpResponse.json(body);
    }

    return errorResponse(format, { code: 'badvalue', text: 'Unrecognized value for parameter "list".', module: 'main' });
  }),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  state.requests = [];
  state.lag = [];
  state.retryAfter = '5';
});
afterAll(() => server.close());

function client(extra: Partial<ConstructorParameters<typeof WikiClient>[0]> = {}) {
  const waits: number[] = [];
  const c = new WikiClient({
    apiUrl: API,
    userAgent: UA,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { c, waits };
}

describe('WikiClient against api.php', () => {
  it('sends the built query with the user agent in both headers', async () => {
    const { c } = client();
    const batch = await c.request(query({ list: [allpages({ limit: 2 })] }).params);
    expect(batch.query).toEqual({ allpages: PAGES.slice(0, 2) });
    expect(batch.batchcomplete).toBe(true);
    expect(batch.continue).toEqual({ apcontinue: 'Delta', continue: '-||' });
    const [req] = state.requests;
    expect(req!.method).toBe('GET');
    expect(req!.headers.get('user-agent')).toBe(UA);
    expect(req!.headers.get('api-user-agent')).toBe(UA);
    expect(req!.params).toMatchObject({ action: 'query', list: 'allpages', aplimit: '2', errorformat: 'plaintext' });
  });

  it('follows continuation as an async iterator, replacing the continue keys each time', async () => {
    const { c } = client();
    const seen: unknown[] = [];
    for await (const batch of c.batches(query({ list: [allpages({ limit: 2 })] }))) seen.push(batch.query.allpages);
    expect(seen).toEqual([PAGES.slice(0, 2), PAGES.slice(2, 4), PAGES.slice(4)]);
    expect(state.requests.map((r) => r.params.apcontinue)).toEqual([undefined, 'Delta', 'Gamma']);
    expect(state.requests.every((r) => r.params.aplimit === '2')).toBe(true);
  });

  it('resumes from a given continue object, and stops after maxBatches', async () => {
    const { c } = client();
    const q = query({ list: [allpages({ limit: 2 })], continue: { apcontinue: 'Delta', continue: '-||' } });
    const out = await c.collect(q, { maxBatches: 1 });
    expect(out).toMatchObject({ batches: 1, complete: false, continue: { apcontinue: 'Gamma', continue: '-||' } });
    expect(out.query).toEqual({ allpages: PAGES.slice(2, 4) });
  });

  it('collect() merges list batches', async () => {
    const { c } = client();
    const out = await c.collect(query({ list: [allpages({ limit: 2 })] }));
    expect(out).toEqual({ query: { allpages: PAGES }, warnings: [], batches: 3, complete: true });
  });

  it('collect() merges prop continuation into the same pages', async () => {
    const { c } = client();
    const out = await c.collect(query({ titles: ['alpha', 'Beta'], prop: [revisions({ prop: ['ids'] })] }));
    expect(out.batches).toBe(4);
    expect(out.query).toEqual({
      normalized: [{ fromencoded: false, from: 'alpha', to: 'Alpha' }],
      pages: [
        { pageid: 100, ns: 0, title: 'alpha', revisions: [{ revid: 1000 }, { revid: 1002 }] },
        { pageid: 101, ns: 0, title: 'Beta', revisions: [{ revid: 1011 }, { revid: 1013 }] },
      ],
    });
  });

  it('returns the API warnings per batch (plaintext and bc)', async () => {
    const { c } = client();
    const plain = await c.request({ ...query({ list: [allpages()] }).params, foo: '1' });
    expect(plain.warnings).toEqual([{ code: 'unrecognizedparams', text: 'Unrecognized parameter: foo.', module: 'main' }]);
    const bc = await c.request({ ...query({ list: [allpages()], errorformat: 'bc' }).params, foo: '1' });
    expect(bc.warnings).toEqual([{ code: 'bc-warning', text: 'Unrecognized parameter: foo.', module: 'main' }]);
  });

  it.each([
    ['plaintext', 'Unrecognized value for parameter "list".'],
    ['wikitext', 'Unrecognized value for parameter "list".'],
    ['html', '<p>Unrecognized value for parameter "list".</p>'],
    ['raw', 'apierror-badvalue'],
    ['none', ''],
    ['bc', 'Unrecognized value for parameter "list".'],
  ] as const)('throws WikiApiError with code and info (errorformat=%s)', async (errorformat, info) => {
    const { c } = client();
    const params = { ...query({ errorformat }).params, list: 'nosuchlist' };
    const error = await c.request(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WikiApiError);
    expect(error).toMatchObject({ code: 'badvalue', info, status: 200 });
    expect((error as WikiApiError).details).toMatchObject({
      docref: 'See https://wiki.test/w/api.php for API usage.',
      servedby: 'mw-test-1',
    });
  });

  it('sends maxlag, waits Retry-After on a maxlag error and retries', async () => {
    const { c, waits } = client({ maxlag: 5 });
    state.lag = [7, 6];
    const batch = await c.request(query({ list: [allpages({ limit: 1 })] }).params);
    expect(batch.query.allpages).toEqual(PAGES.slice(0, 1));
    expect(state.requests).toHaveLength(3);
    expect(state.requests.every((r) => r.params.maxlag === '5')).toBe(true);
    expect(waits).toEqual([5000, 5000]);
  });

  it('gives up after maxRetries with the maxlag error', async () => {
    const { c, waits } = client({ maxlag: 1, maxRetries: 2 });
    state.lag = [9, 9, 9, 9];
    const error = await c.request(query({ list: [allpages()] }).params).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'maxlag', data: { lag: 9, host: '10.64.0.1' } });
    expect(state.requests).toHaveLength(3);
    expect(waits).toEqual([5000, 5000]);
  });

  it('falls back to the reported lag (at least 5 s) without Retry-After', async () => {
    const { c, waits } = client({ maxlag: 1 });
    state.lag = [12];
    state.retryAfter = null;
    await c.request(query({ list: [allpages()] }).params);
    expect(waits).toEqual([12000]);
  });

  it('does not send maxlag unless configured or asked for', async () => {
    const { c } = client();
    await c.request(query({ list: [allpages()] }).params);
    expect(state.requests[0]!.params.maxlag).toBeUndefined();
  });

  it('switches to POST for long requests', async () => {
    const { c } = client();
    const titles = Array.from({ length: 400 }, (_, i) => `A rather long page title number ${i}`);
    const q = query({ titles, prop: [revisions({ prop: ['ids'] })] }, { apihighlimits: true });
    expect(q.method).toBe('POST');
    const batch = await c.request(q.params);
    expect(state.requests[0]!.method).toBe('POST');
    expect(state.requests[0]!.params.titles!.split('|')).toHaveLength(400);
    expect((batch.query.pages as unknown[]).length).toBe(400);
  });

  it('takes a BuiltQuery as well as raw parameters, and honours an AbortSignal', async () => {
    const { c } = client();
    const batch = await c.request(query({ list: [allpages({ limit: 1 })] }));
    expect(batch.query.allpages).toEqual(PAGES.slice(0, 1));
    const aborted = new AbortController();
    aborted.abort();
    await expect(c.request(query({ list: [allpages()] }), { signal: aborted.signal })).rejects.toThrow();
  });

  it('throws badresponse for a non-JSON answer and http for a failed one', async () => {
    const { c } = client();
    await expect(c.request({ action: 'query', format: 'xml' })).rejects.toMatchObject({ code: 'badresponse' });
    server.use(http.all(API, () => new HttpResponse('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })));
    await expect(c.request(query({}).params)).rejects.toMatchObject({ code: 'http', status: 502 });
  });
});

/** Answers every request with `answer` (for this test), recording it as the stand-in does. */
function answerWith(answer: (params: Record<string, string>, request: Request) => Response | Promise<Response>) {
  server.use(
    http.all(API, async ({ request }) => {
      const url = new URL(request.url);
      const params: Record<string, string> = Object.fromEntries(url.searchParams);
      if (request.method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(await request.clone().text())));
      state.requests.push({ method: request.method, params, headers: request.headers });
      return answer(params, request);
    }),
  );
}

const SITEINFO = {
  batchcomplete: true,
  query: {
    general: {
      mainpage: 'Main Page',
      lang: 'en',
      case: 'first-letter',
      legaltitlechars: ' %!"$&\'()*,\\-.\\/0-9:;=?@A-Z\\\\^_`a-z~\\x80-\\xFF+',
    },
    namespaces: {
      '0': { id: 0, name: '', case: 'first-letter', content: true },
      '14': { id: 14, name: 'Category', canonical: 'Category', case: 'first-letter' },
      '100': { id: 100, name: 'Portal', canonical: 'Portal', case: 'first-letter' },
    },
    namespacealiases: [],
    interwikimap: [],
    userinfo: { id: 1, name: 'Bot', rights: ['read', 'apihighlimits'] },
    languageinfo: { de: { code: 'de' }, en: { code: 'en' } },
  },
};

describe('WikiClient: the request as sent', () => {
  it('a POST is form-encoded; extra headers go along, but never in place of the user agent or Accept', async () => {
    const { c } = client({ headers: { 'X-Tool': 'tests', 'User-Agent': 'someone else', Accept: 'text/html' } });
    const titles = Array.from({ length: 400 }, (_, i) => `A rather long page title number ${i}`);
    await c.request(query({ titles, prop: [revisions({ prop: ['ids'] })] }, { apihighlimits: true }));
    const [post] = state.requests;
    expect(post!.method).toBe('POST');
    expect(post!.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(post!.headers.get('x-tool')).toBe('tests');
    expect(post!.headers.get('user-agent')).toBe(UA);
    expect(post!.headers.get('accept')).toBe('application/json');
    await c.request(query({ list: [allpages()] }));
    expect(state.requests[1]!.method).toBe('GET');
    expect(state.requests[1]!.headers.get('content-type')).toBeNull();
  });

  it('keeps the query string of the api.php address on a GET', async () => {
    const { c } = client({ apiUrl: `${API}?wiki=test` });
    await c.request(query({ list: [allpages({ limit: 1 })] }));
    expect(state.requests[0]!.params).toMatchObject({ wiki: 'test', list: 'allpages', aplimit: '1' });
  });

  it('leaves a request’s own maxlag as it is', async () => {
    const { c } = client({ maxlag: 5 });
    await c.request({ ...query({ list: [allpages()] }).params, maxlag: '30' });
    expect(state.requests[0]!.params.maxlag).toBe('30');
  });

  it('refuses a user agent of spaces, and defaults to 3 retries and a 60 s timeout', () => {
    expect(() => new WikiClient({ apiUrl: API, userAgent: '  ' })).toThrow(/userAgent is required/);
    const c = new WikiClient({ apiUrl: new URL(API), userAgent: UA });
    expect([c.apiUrl, c.maxRetries, c.timeout, c.maxlag]).toEqual([API, 3, 60_000, undefined]);
  });
});

describe('WikiClient: what it reads back', () => {
  it('a batch: batchcomplete as "" too, continue values as strings, limits, an empty query when there is none', async () => {
    const { c } = client();
    answerWith(() =>
      HttpResponse.json({ batchcomplete: '', continue: { offset: 10, continue: '-||' }, limits: { allpages: 500 } }),
    );
    const batch = await c.request({ action: 'query', format: 'json' });
    expect(batch).toMatchObject({
      query: {},
      batchcomplete: true,
      continue: { offset: '10', continue: '-||' },
      limits: { allpages: 500 },
      params: { action: 'query', format: 'json' },
    });
    answerWith(() => HttpResponse.json({ batchcomplete: false, query: [1], continue: 'x', limits: [1] }));
    const other = await c.request({ action: 'query' });
    expect(other).toMatchObject({ query: {}, batchcomplete: false });
    expect(other).not.toHaveProperty('continue');
    expect(other).not.toHaveProperty('limits');
  });

  it('collect(): warnings of every batch in order, and complete with no continue at the end', async () => {
    const { c } = client();
    // `requestid` is not one the stand-in knows: it warns about it in every batch.
    const out = await c.collect(query({ list: [allpages({ limit: 2 })], requestid: 'r1' }));
    expect(out.warnings.map((w) => w.code)).toEqual(['unrecognizedparams', 'unrecognizedparams', 'unrecognizedparams']);
    expect(out.complete).toBe(true);
    expect(out).not.toHaveProperty('continue');
  });

  it('an error names its module, data, docref (of the response or of a bc error) and servedby; the others too', async () => {
    const { c } = client();
    answerWith(() =>
      HttpResponse.json({
        errors: [
          { code: 'badvalue', text: 'Bad.', module: 'query+allpages', data: { param: 'apdir' } },
          { code: 'other', '*': 'Second.' },
        ],
        warnings: [{ code: 'w', text: 'Warned.' }],
      }),
    );
    const error = (await c.request({ action: 'query' }).catch((e: unknown) => e)) as WikiApiError;
    expect(error).toMatchObject({
      code: 'badvalue',
      info: 'Bad.',
      module: 'query+allpages',
      data: { param: 'apdir' },
      status: 200,
    });
    expect(error.errors).toEqual([
      { code: 'badvalue', text: 'Bad.', module: 'query+allpages', data: { param: 'apdir' } },
      { code: 'other', text: 'Second.' },
    ]);
    expect(error.details.warnings).toEqual([{ code: 'w', text: 'Warned.' }]);
    expect(error.details).not.toHaveProperty('docref');
    expect(error.details).not.toHaveProperty('servedby');
    answerWith(() => HttpResponse.json({ error: { code: 'readonly', '*': 'Read only.', docref: 'See here.' } }));
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'readonly',
      info: 'Read only.',
      details: { docref: 'See here.' },
    });
  });

  it('an error status with an API error body is that API error; without one, http (or the MediaWiki-API-Error code)', async () => {
    const { c } = client();
    answerWith(() =>
      HttpResponse.json({ errors: [{ code: 'internal_api_error_DBQueryError', text: 'Database.' }] }, { status: 500 }),
    );
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'internal_api_error_DBQueryError',
      status: 500,
    });
    answerWith(() =>
      HttpResponse.json({ nothing: true }, { status: 500, statusText: 'Oops', headers: { 'MediaWiki-API-Error': 'x-code' } }),
    );
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'x-code',
      info: 'HTTP 500 Oops',
      details: { status: 500, response: { nothing: true } },
    });
    answerWith(() => new HttpResponse('y'.repeat(2000), { status: 400, statusText: 'Bad Request' }));
    const plain = (await c.request({ action: 'query' }).catch((e: unknown) => e)) as WikiApiError;
    expect([plain.code, plain.info, plain.details.response]).toEqual(['http', 'HTTP 400 Bad Request', 'y'.repeat(1000)]);
  });

  it('an HTML answer: a 404 is a wrong address, a 5xx the server’s trouble, a 200 not the API', async () => {
    const { c } = client();
    const hint = `${API} answered with HTML, not JSON: is it the wiki's api.php (not index.php or a page), and is the API enabled?`;
    answerWith(() => new HttpResponse('<!DOCTYPE html><p>Not found</p>', { status: 404, statusText: 'Not Found' }));
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'http',
      info: `HTTP 404 Not Found: ${hint}`,
    });
    answerWith(() => HttpResponse.html('<p>Down</p>', { status: 503, statusText: 'Service Unavailable' }));
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'http',
      info: 'HTTP 503 Service Unavailable (an HTML error page, from the wiki or a proxy in front of it)',
    });
    answerWith(() => new HttpResponse('  <html><body>Main Page</body></html>', { status: 200 }));
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'badresponse',
      info: hint,
      details: { status: 200, response: '  <html><body>Main Page</body></html>' },
    });
    answerWith(() => HttpResponse.json([1, 2]));
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'badresponse',
      info: 'The API did not answer with a JSON object.',
    });
    answerWith(
      () => new HttpResponse('plain text', { status: 502, statusText: 'Bad Gateway', headers: { 'Content-Type': 'text/plain' } }),
    );
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'http',
      info: 'HTTP 502 Bad Gateway',
    });
  });
});

describe('WikiClient: an overloaded wiki, a slow one, none at all', () => {
  it('waits out a 503 or 429 with Retry-After and asks again, up to maxRetries; without Retry-After it fails at once', async () => {
    // A fetch of its own (still the network edge): msw never settles the cancel of a mocked answer's body.
    let answers: (() => Response)[] = [];
    let asked = 0;
    const fetch = (async () => {
      asked++;
      return answers.shift()!();
    }) as unknown as typeof globalThis.fetch;
    const { c, waits } = client({ maxRetries: 2, fetch });
    answers = [
      () => new Response('busy', { status: 503, headers: { 'Retry-After': '3' } }),
      () => new Response('slow down', { status: 429, headers: { 'Retry-After': '1' } }),
      () => Response.json({ batchcomplete: true, query: { ok: 1 } }),
    ];
    expect((await c.request({ action: 'query' })).query).toEqual({ ok: 1 });
    expect([waits, asked]).toEqual([[3000, 1000], 3]);

    const busy = () => new Response('busy', { status: 503, statusText: 'Service Unavailable', headers: { 'Retry-After': '2' } });
    answers = [busy, busy, busy];
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({ code: 'http', status: 503 });
    expect([waits, asked]).toEqual([[3000, 1000, 2000, 2000], 6]);

    answers = [() => new Response('busy', { status: 503 })];
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({ code: 'http', status: 503 });
    answers = [() => new Response('no', { status: 500, headers: { 'Retry-After': '2' } })];
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({ code: 'http', status: 500 });
    expect([waits.length, asked]).toEqual([4, 8]);
  });

  it('a wiki that does not answer in time is a timeout; no limit with timeout 0', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    answerWith(async () => {
      await released;
      return HttpResponse.json({ batchcomplete: true, query: { late: true } });
    });
    const { c } = client({ timeout: 50 });
    const error = await c.request({ action: 'query' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WikiApiError);
    expect(error).toMatchObject({ code: 'timeout', info: `${API} did not answer within 50 ms.` });
    const { c: patient } = client({ timeout: 0 });
    const late = patient.request({ action: 'query' });
    // The request is at the wiki, held; it has no clock of its own to fail by.
    await expect.poll(() => state.requests.length).toBe(2);
    release();
    expect((await late).query).toEqual({ late: true });
  });

  it('the caller’s abort is passed on as it is, not as a WikiApiError', async () => {
    const controller = new AbortController();
    answerWith(() => {
      controller.abort(new Error('stopped by the caller'));
      return new Promise<Response>(() => undefined);
    });
    const { c } = client();
    const error = await c.request({ action: 'query' }, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(WikiApiError);
    expect(error).toEqual(new Error('stopped by the caller'));
  });

  it('no answer at all is a network error naming what fetch failed with', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const failing = (async () => {
      throw new TypeError('fetch failed', { cause: refused });
    }) as unknown as typeof fetch;
    const { c } = client({ fetch: failing });
    const error = (await c.request({ action: 'query' }).catch((e: unknown) => e)) as WikiApiError;
    expect(error).toBeInstanceOf(WikiApiError);
    expect([error.code, error.info]).toEqual(['network', `${API} could not be reached: connect ECONNREFUSED 127.0.0.1:9.`]);
    expect(error.cause).toBeInstanceOf(TypeError);
    const odd = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { c: reset } = client({ fetch: (async () => Promise.reject(odd)) as unknown as typeof fetch });
    expect(await reset.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      info: `${API} could not be reached: socket hang up (ECONNRESET).`,
    });
  });
});

describe('WikiClient: the site context', () => {
  it('loads siteinfo and userinfo once, validates against them, and builds with apihighlimits', async () => {
    answerWith((params) =>
      params.meta === 'siteinfo|userinfo|languageinfo'
        ? HttpResponse.json(SITEINFO)
        : HttpResponse.json({ batchcomplete: true, query: {} }),
    );
    const { c } = client();
    const [first, second] = await Promise.all([c.site(), c.site()]);
    expect(first).toBe(second);
    expect(first?.apihighlimits).toBe(true);
    expect(state.requests).toHaveLength(1);
    expect(state.requests[0]!.params).toEqual({
      action: 'query',
      meta: 'siteinfo|userinfo|languageinfo',
      siprop: 'general|namespaces|namespacealiases|interwikimap',
      uiprop: 'rights',
      liprop: 'code',
      format: 'json',
      formatversion: '2',
      errorformat: 'plaintext',
    });
    // The codes languageinfo knows: the others are dropped with its warning, as the wiki does.
    expect(first?.site.languages).toEqual(['de', 'en']);
    const lang = await c.build({ meta: [languageinfo({ code: ['en', 'xx'] })] });
    expect(lang.warnings.map((w) => [w.code, w.param, w.data])).toEqual([['unrecognizedvalues', 'licode', { values: ['xx'] }]]);
    // A limit only a user with apihighlimits may ask for, and a namespace only this wiki has.
    const built = await c.build({ list: [allpages({ limit: 5000, namespace: 100 })] });
    expect(built.params).toMatchObject({ aplimit: '5000', apnamespace: '100' });
    expect(built.warnings).toEqual([]);
    expect((await c.build({ list: [allpages({ limit: 5000 })] }, { apihighlimits: false })).params.aplimit).toBe('500');
    for await (const _ of c.batches({ list: [allpages({ limit: 5000 })] })) break;
    expect(state.requests.at(-1)!.params.aplimit).toBe('5000');
    expect(state.requests).toHaveLength(2);
  });

  it('a failed load is not kept: the next use asks again', async () => {
    const answers = [() => new HttpResponse('down', { status: 500 }), () => HttpResponse.json(SITEINFO)];
    answerWith(() => answers.shift()!());
    const { c } = client();
    await expect(c.site()).rejects.toMatchObject({ code: 'http' });
    expect((await c.site())?.apihighlimits).toBe(true);
    expect(state.requests).toHaveLength(2);
  });

  it('site: false asks nothing; a bare SiteContext is used without apihighlimits; a WikiSite as given', async () => {
    const none = client({ site: false }).c;
    expect(await none.site()).toBeUndefined();
    expect((await none.build({ list: [allpages({ limit: 5000 })] })).params.aplimit).toBe('500');
    const context = { namespaces: [{ id: 0, name: '' }] } as never;
    expect(await client({ site: context }).c.site()).toEqual({ site: context, apihighlimits: false });
    const given = { site: context, apihighlimits: true };
    expect(await client({ site: given }).c.site()).toBe(given);
    expect(state.requests).toHaveLength(0);
  });
});

describe('WikiClient helpers, at their edges', () => {
  it('retryAfterMs: spaces around seconds, an empty header, and a date already past', () => {
    expect(retryAfterMs(' 7 ')).toBe(7000);
    expect(retryAfterMs('  ')).toBeUndefined();
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.UTC(2015, 9, 21, 8, 0, 0))).toBe(0);
  });

  it('mergeQuery: pages without a title joined by page id or revision id, keyless ones appended, scalars replaced', () => {
    const merged = mergeQuery(
      { pages: [{ pageid: 1, links: [1] }, { revid: 9, x: [1] }, { nothing: 1 }], badrevids: [{ revid: 5 }], count: 1 },
      {
        pages: [{ pageid: 1, links: [2] }, { revid: 9, x: [2] }, { nothing: 2 }, 'odd'],
        badrevids: [{ revid: 5 }, { revid: 6 }],
        count: 2,
      },
    );
    expect(merged).toEqual({
      pages: [{ pageid: 1, links: [1, 2] }, { revid: 9, x: [1, 2] }, { nothing: 1 }, { nothing: 2 }, 'odd'],
      badrevids: [{ revid: 5 }, { revid: 6 }],
      count: 2,
    });
  });

  it('parseWarnings: a bc warning that is not text is skipped, empty lines dropped; messages in the * form', () => {
    expect(parseWarnings({ main: { warnings: 'One.\n\nTwo.' }, other: { x: 1 }, plain: 'Direct.' })).toEqual([
      { code: 'bc-warning', text: 'One.', module: 'main' },
      { code: 'bc-warning', text: 'Two.', module: 'main' },
      { code: 'bc-warning', text: 'Direct.', module: 'plain' },
    ]);
    expect(parseWarnings([{ code: 'c', '*': 'Star.' }, 'junk'])).toEqual([
      { code: 'c', text: 'Star.' },
      { code: 'unknown', text: '' },
    ]);
    expect(parseErrors({ errors: [], error: { code: 5, info: 7 } })).toEqual([{ code: 'unknown', text: '' }]);
  });
});

describe('WikiClient, more edges', () => {
  /** A fetch at the network edge answering from a list, counting what it was asked. */
  function answering(...answers: (() => Response)[]) {
    const asked: (RequestInit | undefined)[] = [];
    const fetch = (async (_url: unknown, init?: RequestInit) => {
      asked.push(init);
      return answers.shift()!();
    }) as unknown as typeof globalThis.fetch;
    return { fetch, asked };
  }

  it('an error is named WikiApiError and has a cause only for a network failure', async () => {
    const e = new WikiApiError('badvalue', 'Bad.');
    expect(e.name).toBe('WikiApiError');
    expect('cause' in e).toBe(false);
    expect(new WikiApiError('network', 'x', { cause: 'why' }).cause).toBe('why');
  });

  it('an API error other than maxlag is not retried; a maxlag error without data or Retry-After waits 5 s', async () => {
    const { c, waits } = client();
    await c.request({ ...query({}).params, list: 'nosuchlist' }).catch(() => undefined);
    expect([waits, state.requests.length]).toEqual([[], 1]);
    const { fetch } = answering(
      () => Response.json({ errors: [{ code: 'maxlag', text: 'Lagged.' }] }),
      () => Response.json({ batchcomplete: true }),
    );
    const lagged = client({ fetch });
    await lagged.c.request({ action: 'query' });
    expect(lagged.waits).toEqual([5000]);
  });

  it('an error without data, docref or servedby has none of them in its details', async () => {
    const { fetch } = answering(() => Response.json({ error: { code: 'x', info: 'X.', module: 'main' } }));
    const error = (await client({ fetch })
      .c.request({ action: 'query' })
      .catch((e: unknown) => e)) as WikiApiError;
    expect(error.errors).toStrictEqual([{ code: 'x', text: 'X.', module: 'main' }]);
    expect(error.module).toBe('main');
    expect(Object.keys(error.details).sort()).toEqual(['errors', 'module', 'response', 'status', 'warnings']);
  });

  it('messages carry only the fields the API gave', () => {
    expect(parseWarnings([{ code: 'c', text: 'T.' }])).toStrictEqual([{ code: 'c', text: 'T.' }]);
    expect(parseErrors({ error: { code: 'c', info: 'I.' } })).toStrictEqual([{ code: 'c', text: 'I.' }]);
  });

  it('retryAfterMs: only whole seconds are seconds', () => {
    expect(retryAfterMs('10')).toBe(10_000);
    expect(retryAfterMs('5s')).toBeUndefined();
  });

  it('mergeQuery: each page-set list without repeats; a value of another shape replaces the old one', () => {
    for (const key of ['normalized', 'redirects', 'converted', 'interwiki', 'badrevids']) {
      expect(mergeQuery({ [key]: [{ a: 1 }] }, { [key]: [{ a: 1 }, { a: 2 }] }), key).toEqual({ [key]: [{ a: 1 }, { a: 2 }] });
    }
    expect(mergeQuery({ a: [1] }, { a: { x: 1 } })).toEqual({ a: { x: 1 } });
    expect(mergeQuery({ a: { x: 1 } }, { a: 5 })).toEqual({ a: 5 });
    expect(mergeQuery({ a: { x: [1] } }, { a: [2] })).toEqual({ a: [2] });
  });

  it('an answer that is neither JSON nor HTML, long, is quoted in part; HTML only at its start counts', async () => {
    const long = `Oops<html> ${'z'.repeat(2000)}`;
    const { fetch } = answering(
      () => new Response(long, { status: 200, headers: { 'Content-Type': 'text/plain' } }),
      () => new Response('x', { status: 400 }),
    );
    const { c } = client({ fetch });
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({
      code: 'badresponse',
      info: 'The API did not answer with a JSON object.',
      details: { response: long.slice(0, 1000) },
    });
    // No status text: none is shown.
    expect(await c.request({ action: 'query' }).catch((e: unknown) => e)).toMatchObject({ code: 'http', info: 'HTTP 400' });
  });

  it('waits with a cancellable timer by default: an abort ends the wait, and a finished wait leaves no listener', async () => {
    const controller = new AbortController();
    const busy = () => new Response('busy', { status: 503, headers: { 'Retry-After': '600' } });
    const { fetch, asked } = answering(busy, busy);
    const c = new WikiClient({ apiUrl: API, userAgent: UA, fetch, timeout: 0 });
    const pending = c.request({ action: 'query' }, { signal: controller.signal });
    await expect.poll(() => asked.length).toBe(1);
    controller.abort(new Error('enough'));
    await expect(pending).rejects.toThrow('enough');
    // Aborted before the wait starts: it does not start.
    const early = new AbortController();
    const first = answering(() => {
      early.abort(new Error('before'));
      return busy();
    }, busy);
    const c2 = new WikiClient({ apiUrl: API, userAgent: UA, fetch: first.fetch, timeout: 0 });
    await expect(c2.request({ action: 'query' }, { signal: early.signal })).rejects.toThrow('before');
    expect(first.asked).toHaveLength(1);
    // A wait that ends removes its abort listener.
    const kept = new AbortController();
    const done = answering(
      () => new Response('busy', { status: 503, headers: { 'Retry-After': '0' } }),
      () => Response.json({ batchcomplete: true }),
    );
    const c3 = new WikiClient({ apiUrl: API, userAgent: UA, fetch: done.fetch, timeout: 0 });
    await c3.request({ action: 'query' }, { signal: kept.signal });
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });
});

describe('WikiClient, the last edges', () => {
  const answering = (...answers: (() => Response)[]) => (async () => answers.shift()!()) as unknown as typeof globalThis.fetch;

  it('waits without a signal too, and a 503 without a body is waited out as well', async () => {
    const fetch = answering(
      () => new Response(null, { status: 503, headers: { 'Retry-After': '0' } }),
      () => Response.json({ batchcomplete: true, query: { ok: 1 } }),
    );
    const c = new WikiClient({ apiUrl: API, userAgent: UA, fetch });
    expect((await c.request({ action: 'query' })).query).toEqual({ ok: 1 });
  });

  it('reads null where an object is expected as none', async () => {
    const fetch = answering(() => Response.json({ batchcomplete: true, continue: null, limits: null, query: null }));
    const batch = await client({ fetch }).c.request({ action: 'query' });
    expect(batch.query).toEqual({});
    expect(batch).not.toHaveProperty('continue');
    expect(batch).not.toHaveProperty('limits');
  });

  it('JSON sent as text/html is still no HTML page', async () => {
    const fetch = answering(() => new Response('[1]', { status: 200, headers: { 'Content-Type': 'text/html' } }));
    expect(
      await client({ fetch })
        .c.request({ action: 'query' })
        .catch((e: unknown) => e),
    ).toMatchObject({
      code: 'badresponse',
      info: 'The API did not answer with a JSON object.',
    });
  });

  it('an error without a module has none in its details', async () => {
    const fetch = answering(() => Response.json({ errors: [{ code: 'x', text: 'X.' }] }));
    const error = (await client({ fetch })
      .c.request({ action: 'query' })
      .catch((e: unknown) => e)) as WikiApiError;
    expect(Object.keys(error.details)).not.toContain('module');
  });

  it('a network failure however fetch fails: no code, no error at all, and with no timeout set', async () => {
    const failing = (reason: unknown) => (async () => Promise.reject(reason)) as unknown as typeof globalThis.fetch;
    const info = async (reason: unknown, extra = {}) =>
      (
        (await client({ fetch: failing(reason), ...extra })
          .c.request({ action: 'query' })
          .catch((e: unknown) => e)) as WikiApiError
      ).info;
    expect(await info(new Error('plain'))).toBe(`${API} could not be reached: plain.`);
    expect(await info(null)).toBe(`${API} could not be reached: null.`);
    expect(await info(new Error('plain'), { timeout: 0 })).toBe(`${API} could not be reached: plain.`);
  });

  it('requires a user agent that is a string', () => {
    expect(() => new WikiClient({ apiUrl: API, userAgent: undefined as unknown as string })).toThrow(/userAgent is required/);
  });

  it('collect() with no batch at all is complete and empty', async () => {
    const { c } = client();
    expect(await c.collect(query({ list: [allpages()] }), { maxBatches: 0 })).toEqual({
      query: {},
      warnings: [],
      batches: 0,
      complete: true,
    });
  });

  it('site() passes its signal on', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('not now'));
    await expect(client().c.site({ signal: aborted.signal })).rejects.toThrow('not now');
  });

  it('retryAfterMs reads a date that ends in digits as a date', () => {
    expect(retryAfterMs('21 Oct 2015 07:28:05 +0000', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(5000);
  });

  it('mergeQuery: pages told apart by title, page id or revision id alone; a page new in one batch is joined in the next', () => {
    const merged = [
      { pages: [{ title: 'Missing', missing: true }, { pageid: 1 }, { revid: 7 }, null] },
      { pages: [{ title: 'Missing', missing: true }, { pageid: 2 }, { revid: 8 }, { title: 'New', links: [1] }] },
      {
        pages: [
          { title: 'New', links: [2] },
          { pageid: 2, x: 1 },
        ],
      },
    ].reduce((into, from) => mergeQuery(into, from), {});
    expect(merged).toEqual({
      pages: [
        { title: 'Missing', missing: true },
        { pageid: 1 },
        { revid: 7 },
        null,
        { pageid: 2, x: 1 },
        { revid: 8 },
        { title: 'New', links: [1, 2] },
      ],
    });
  });
});

describe('WikiClient, a long request', () => {
  it('a POST that gets no answer in time is a timeout too', async () => {
    answerWith(() => new Promise<Response>(() => undefined));
    const titles = Array.from({ length: 400 }, (_, i) => `A rather long page title number ${i}`);
    const q = query({ titles, prop: [revisions({ prop: ['ids'] })] }, { apihighlimits: true });
    const error = await client({ timeout: 50 })
      .c.request(q)
      .catch((e: unknown) => e);
    expect(state.requests[0]!.method).toBe('POST');
    expect(error).toMatchObject({ code: 'timeout' });
  });
});

describe('WikiClient: modules that must be posted, tokens, rights', () => {
  // A module as paraminfo describes CheckUser's list=checkuser: must be posted, and its token is a CSRF one.
  const checkuser = defineModule<{ user?: string; token?: string }, 'list', false>(
    {
      name: 'checkuser',
      path: 'query+checkuser',
      group: 'list',
      prefix: 'cu',
      mustbeposted: true,
      parameters: [
        { name: 'user', type: 'string' },
        { name: 'token', type: 'string', required: true, sensitive: true, tokentype: 'csrf' },
      ],
    },
    { rules: false },
  );
  const tokenAnswer = (n: number) => HttpResponse.json({ batchcomplete: true, query: { tokens: { csrftoken: `t${n}+\\` } } });

  it('fetches the token a query lacks once, sends the module by POST, and keeps the token for the next query', async () => {
    let issued = 0;
    answerWith((params) =>
      params.meta === 'tokens' ? tokenAnswer(++issued) : HttpResponse.json({ batchcomplete: true, query: { checkuser: {} } }),
    );
    const { c } = client({ site: false });
    await c.collect({ list: [checkuser({ user: 'A' })] });
    await c.collect({ list: [checkuser({ user: 'B' })] });
    expect(state.requests.map((r) => [r.method, r.params.meta ?? r.params.list, r.params.cutoken])).toEqual([
      ['GET', 'tokens', undefined],
      ['POST', 'checkuser', 't1+\\'],
      ['POST', 'checkuser', 't1+\\'],
    ]);
    expect(state.requests[0]!.params.type).toBe('csrf');
  });

  it('on badtoken fetches the token again and sends once more; a second badtoken is the caller’s', async () => {
    let issued = 0;
    let refusals = 1;
    answerWith((params) => {
      if (params.meta === 'tokens') return tokenAnswer(++issued);
      if (refusals-- > 0) return errorResponse('plaintext', { code: 'badtoken', text: 'Invalid CSRF token.', module: 'main' });
      return HttpResponse.json({ batchcomplete: true, query: { checkuser: {} } });
    });
    const { c } = client({ site: false });
    await c.collect({ list: [checkuser({ user: 'A' })] });
    expect(state.requests.map((r) => r.params.cutoken ?? r.params.meta)).toEqual(['tokens', 't1+\\', 'tokens', 't2+\\']);
    state.requests = [];
    refusals = 2;
    await expect(c.collect({ list: [checkuser({ user: 'A' })] })).rejects.toMatchObject({ code: 'badtoken' });
    expect(state.requests.map((r) => r.params.cutoken ?? r.params.meta)).toEqual(['t2+\\', 'tokens', 't3+\\']);
    // A token the caller gave is never replaced.
    state.requests = [];
    refusals = 1;
    await expect(c.collect({ list: [checkuser({ token: 'mine' })] })).rejects.toMatchObject({ code: 'badtoken' });
    expect(state.requests.map((r) => r.params.cutoken)).toEqual(['mine']);
  });

  it('a built query that must be posted is posted whatever its size; the rights errors are WikiRightsErrors', async () => {
    answerWith((params) =>
      params.list === 'checkuser'
        ? errorResponse('plaintext', { code: 'readapidenied', text: 'You need read permission.', module: 'main' })
        : errorResponse('plaintext', { code: 'writeapidenied', text: 'You are not allowed to edit.', module: 'main' }),
    );
    const { c } = client({ site: false });
    const q = query({ list: [checkuser({ token: '+\\' })] });
    expect(q.method).toBe('POST');
    const read = await c.request(q).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(WikiRightsError);
    expect(read).toBeInstanceOf(WikiApiError);
    expect(read).toMatchObject({ code: 'readapidenied', right: 'read' });
    expect(state.requests[0]!.method).toBe('POST');
    await expect(c.request(query({ list: [allpages()] }))).rejects.toMatchObject({ name: 'WikiRightsError', right: 'write' });
    expect(state.requests[1]!.method).toBe('GET');
  });

  it('validates the query’s own options against the wiki’s main parameters when given them', async () => {
    answerWith(() => HttpResponse.json({ batchcomplete: true, query: {} }));
    // As a 1.39 wiki's paraminfo has them: no minimum on smaxage.
    const main = [
      { name: 'smaxage', type: 'integer', default: 0 },
      { name: 'errorformat', type: ['bc', 'html', 'none', 'plaintext', 'raw', 'wikitext'], default: 'bc' },
    ];
    const { c } = client({ site: false, main });
    expect((await c.build({ list: [allpages()], smaxage: -1 })).warnings).toEqual([]);
    expect((await client({ site: false }).c.build({ list: [allpages()], smaxage: -1 })).warnings.map((w) => w.code)).toEqual([
      'outofrange',
    ]);
  });
});
