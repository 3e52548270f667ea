/**
 * WikiClient against a stand-in api.php at the network edge (msw): the handlers answer the way
 * MediaWiki 1.46 does with `format=json&formatversion=2` — `batchcomplete`, `continue` objects,
 * `errors`/`warnings` in the requested `errorformat`, and `maxlag` with `Retry-After`.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WikiApiError, WikiClient } from '../../sdk/src/wiki/client.js';
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
