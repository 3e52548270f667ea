/**
 * The generated SDK against the real server on loopback: typed, validated data, problems for bad
 * requests, and the bearer token on the operations that declare it. The debate operations'
 * behaviour is tested in test/debate/endpoints.test.ts.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConsiliumError,
  createConsiliumClient,
  type DebateEvent,
  type DeepRequest,
  getHealth,
  type Health,
  listProviders,
  type Problem,
  type ProviderCatalogue,
  runDeepDebate,
  type Session,
  schemas,
  streamDeepDebate,
} from '../../sdk/src/index.js';
import { type RunningServer, startServer } from '../support/server.js';

const PROBLEM_JSON = /^application\/problem\+json\b/;

interface Exchange {
  request: Request;
  response: Response;
  /** The response body exactly as the server sent it, read from a clone. */
  text: Promise<string>;
}

/** A fetch that records every request and response, then lets global fetch do the work. */
function recordingFetch() {
  const exchanges: Exchange[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const recorded = request.clone();
    const response = await fetch(request);
    exchanges.push({ request: recorded, response, text: response.clone().text() });
    return response;
  };
  return { fetch: fetchFn, exchanges };
}

/** The single exchange whose URL path is `path`. */
function exchangeFor(exchanges: Exchange[], path: string): Exchange {
  const matching = exchanges.filter((e) => new URL(e.request.url).pathname === path);
  expect(matching, `exactly one request to ${path}`).toHaveLength(1);
  return matching[0]!;
}

describe('the SDK against a server with no provider keys', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('getHealth returns a typed, validated Health', async () => {
    const client = server.client;
    const result = await getHealth({ client });

    expectTypeOf(result.data).toEqualTypeOf<Health | undefined>();
    expect(result.error).toBeUndefined();
    expect(result.response.status).toBe(200);
    expect(result.data).toEqual({ status: 'ok', version: '0.0.0-test', uptimeSeconds: expect.any(Number) });
    expect(result.data!.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(schemas.zHealth.safeParse(result.data).success).toBe(true);
  });

  it('listProviders returns the five default slots in order, all offline', async () => {
    const client = server.client;
    const { data, error, response } = await listProviders({ client });

    expectTypeOf(data).toEqualTypeOf<ProviderCatalogue | undefined>();
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.synthesizerSlot).toBe(1);
    expect(data!.quorum).toBe(3);
    expect(data!.slots.map((s) => [s.slot, s.provider, s.status, s.api])).toEqual([
      [1, 'anthropic', 'offline', 'native'],
      [2, 'openai', 'offline', 'native'],
      [3, 'deepseek', 'offline', 'native'],
      [4, 'google', 'offline', 'native'],
      [5, 'xai', 'offline', 'native'],
    ]);
    for (const slot of data!.slots) {
      expect(Object.keys(slot).sort()).toEqual(['api', 'model', 'provider', 'slot', 'status', 'strength']);
      expect(slot.model).not.toBe('');
    }
  });

  it('validates responses with zod: a reply that breaks the contract rejects', async () => {
    const tampering: typeof fetch = async (input, init) => {
      const real = await fetch(input, init);
      const body = { ...((await real.json()) as object), status: 'degraded' };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: tampering });
    await expect(getHealth({ client })).rejects.toMatchObject({
      name: expect.stringMatching(/ZodError$/), // zod/mini's is `$ZodError`
      issues: [expect.objectContaining({ path: ['status'] })],
    });
  });

  it('runDeepDebate with a bad body gets a 400 validation Problem naming each field', async () => {
    const recorder = recordingFetch();
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: recorder.fetch });
    // Both values type-check (the contract's bounds are not in the TS types); the server refuses them.
    const body: DeepRequest = { question: '', rounds: 9 };
    const result = await runDeepDebate({ client, body });

    expectTypeOf(result.error).toEqualTypeOf<Problem | undefined>();
    expect(result.data).toBeUndefined();
    expect(result.response.status).toBe(400);
    expect(result.response.headers.get('content-type')).toMatch(PROBLEM_JSON);

    const problem = result.error!;
    expect(problem).toMatchObject({
      type: 'https://consilium.dev/problems/validation_failed',
      title: 'Request validation failed',
      status: 400,
      code: 'validation_failed',
      instance: '/consilium/deep',
    });
    expect(problem.detail).toEqual(expect.any(String));
    expect(problem.requestId).toBe(result.response.headers.get('x-request-id'));
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(['body.question', 'body.rounds']);
    for (const e of problem.errors!) {
      expect(e.message).not.toBe('');
      expect(e.code).toEqual(expect.any(String));
    }
    // The error is a problem by the contract's own schema, not just by its TS type.
    expect(schemas.zProblem.safeParse(problem).success).toBe(true);

    // What went over the wire: JSON with both bad values, as the SDK was given them.
    const sent = exchangeFor(recorder.exchanges, '/consilium/deep').request;
    expect(sent.method).toBe('POST');
    expect(sent.headers.get('content-type')).toBe('application/json');
    expect(await sent.json()).toEqual({ question: '', rounds: 9 });
  });

  it('streamDeepDebate with a bad body is refused with 400 before any event: thrown as a ConsiliumError, told to onSseError', async () => {
    const recorder = recordingFetch();
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: recorder.fetch });
    const sseErrors: unknown[] = [];
    const { stream } = await streamDeepDebate({
      client,
      body: { question: '', rounds: 9 },
      onSseError: (error) => sseErrors.push(error),
    });
    let thrown: unknown;
    try {
      for await (const _ of stream) expect.unreachable('no event on a refused request');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConsiliumError);
    expect(thrown).toMatchObject({ code: 'validation_failed', status: 400, requestId: expect.any(String) });
    expect((thrown as ConsiliumError).errors.map((e) => e.path).sort()).toEqual(['body.question', 'body.rounds']);
    expect(sseErrors).toEqual([thrown]);
    // Asked once (exchangeFor checks): a refusal is not retried.
    const exchange = exchangeFor(recorder.exchanges, '/consilium/deep/stream');
    const problem = JSON.parse(await exchange.text) as Problem;
    expect(problem.code).toBe('validation_failed');
  });

  it('sends the token as Authorization: Bearer on operations that declare bearer security, and only there', async () => {
    const recorder = recordingFetch();
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: recorder.fetch });

    await getHealth({ client });
    await runDeepDebate({ client, body: { question: 'Tea or coffee?' } });
    const { stream } = await streamDeepDebate({
      client,
      body: { question: 'Tea or coffee?' },
      sseMaxRetryAttempts: 1,
      onSseError: () => {},
    });
    const events: DebateEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)?.type).toBe('session.ended');

    for (const path of ['/consilium/deep', '/consilium/deep/stream']) {
      const { headers } = exchangeFor(recorder.exchanges, path).request;
      expect(headers.get('authorization'), path).toBe(`Bearer ${server.token}`);
      // These operations also accept the `consilium_session` cookie; the API token must not be sent as one.
      expect(headers.get('cookie'), path).toBeNull();
    }
    // /health declares no security, so the token is not sent there.
    expect(exchangeFor(recorder.exchanges, '/health').request.headers.get('authorization')).toBeNull();
  });

  it('accepts the token as a function, called per request', async () => {
    const recorder = recordingFetch();
    let calls = 0;
    const client = createConsiliumClient({
      baseUrl: server.baseUrl,
      token: async () => `rotating-${++calls}`,
      fetch: recorder.fetch,
    });
    await runDeepDebate({ client, body: { question: 'One?' } });
    await runDeepDebate({ client, body: { question: 'Two?' } });
    // Called once per request: only for the bearer scheme, not again for the cookie alternative.
    expect(calls).toBe(2);
    expect(recorder.exchanges.map((e) => e.request.headers.get('authorization'))).toEqual([
      'Bearer rotating-1',
      'Bearer rotating-2',
    ]);
    expect(recorder.exchanges.map((e) => e.request.headers.get('cookie'))).toEqual([null, null]);
  });
});

describe('the SDK against a server with OPENAI_API_KEY set', () => {
  const SECRET = 'sk-test-8c1f0d2e-never-echo';
  let server: RunningServer;
  beforeAll(async () => {
    // No retries: api.openai.com is unreachable here, so slot 2 fails at once and the debate goes on without it.
    server = await startServer({ OPENAI_API_KEY: SECRET, CONSILIUM_MAX_RETRIES: '0' });
  });
  afterAll(() => server.close());

  it('shows slot 2 live and never the key', async () => {
    const recorder = recordingFetch();
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: recorder.fetch });
    const { data, error } = await listProviders({ client });

    expect(error).toBeUndefined();
    expect(data!.slots.map((s) => [s.slot, s.provider, s.status])).toEqual([
      [1, 'anthropic', 'offline'],
      [2, 'openai', 'live'],
      [3, 'deepseek', 'offline'],
      [4, 'google', 'offline'],
      [5, 'xai', 'offline'],
    ]);

    const { response, text } = exchangeFor(recorder.exchanges, '/providers');
    const raw = await text;
    expect(raw).toContain('"live"');
    for (const leak of [SECRET, 'sk-test', 'OPENAI_API_KEY']) {
      expect(raw).not.toContain(leak);
      for (const [name, value] of response.headers) expect(`${name}: ${value}`).not.toContain(leak);
    }
  });

  it('keeps the key out of health, problems and the served contract too', async () => {
    const recorder = recordingFetch();
    const client = createConsiliumClient({ baseUrl: server.baseUrl, token: server.token, fetch: recorder.fetch });
    await getHealth({ client });
    await runDeepDebate({ client, body: { question: '' } });
    await runDeepDebate({ client, body: { question: 'Fine?' } });
    await recorder.fetch(`${server.baseUrl}/openapi.json`);
    await recorder.fetch(`${server.baseUrl}/no/such/route`, { headers: server.headers });

    expect(recorder.exchanges.map((e) => e.response.status)).toEqual([200, 400, 200, 200, 404]);
    // The failed slot's error reached the session, without the key in it.
    const session = JSON.parse(await recorder.exchanges[2]!.text) as Session;
    expect(session.missingSlots).toEqual([2]);
    expect(session.rounds[0]!.answers.find((a) => a.slot === 2)!.error!.code).toEqual(expect.any(String));
    for (const { text } of recorder.exchanges) expect(await text).not.toContain(SECRET);
  });
});
