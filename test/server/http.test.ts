import { Agent } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import type { Problem, ProblemCode } from '../../sdk/src/generated/types.gen.js';
import { routes } from '../../server/src/generated/routes.js';
import { zProblem, zProviderCatalogue } from '../../server/src/generated/schemas/zod.gen.js';
import { MAX_BODY_BYTES } from '../../server/src/http/app.js';
import { PROBLEM_MEDIA_TYPE, problemType } from '../../server/src/http/problem.js';
import { beforeFirstTest } from '../support/lazy.js';
import { rawRequest } from '../support/raw-http.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';

/** What this test reads of a generated route. */
interface Operation {
  method: string;
  path: string;
  operationId: keyof typeof routes;
  tags: string[];
  request?: { body?: { required?: boolean; content: Record<string, { schema: ZodType }> } };
}
const operations = Object.values(routes) as unknown as Operation[];
/** The operations that answer bad input with problems: all but the OpenAI surface, whose errors are OpenAI's (and
 * which ignores unknown fields as OpenAI does); `server/src/http/openai/openai.test.ts` covers those. */
const problemOperations = operations.filter((op) => !op.tags.includes('openai'));

/** A valid value for every path parameter of the contract. */
const PATH_VALUES: Record<string, string> = {
  provider: 'anthropic',
  sessionId: 'ses_0123456789ab',
  tokenId: 'tok_abcdef',
  userId: 'usr_abcdef',
};
const QUESTION = 'Should we shard the sessions table by owner?';
/** A minimal valid body for every operation that takes one. */
const BODIES: Partial<Record<keyof typeof routes, unknown>> = {
  askProvider: { question: QUESTION },
  runParallel: { question: QUESTION },
  runDeepDebate: { question: QUESTION },
  streamDeepDebate: { question: QUESTION },
  synthesizeVerdict: { question: QUESTION, answers: [{ slot: 1, text: 'Yes, by owner.' }] },
  askFollowUp: { question: QUESTION },
  login: { username: 'ada', password: 'correct horse battery staple' },
  changePassword: { currentPassword: 'old', newPassword: 'correct horse battery staple' },
  createApiToken: { name: 'ci' },
  createUser: { username: 'ada' },
  updateUser: { disabled: true },
  resetUserPassword: {},
};
const JSON_HEADERS = { 'content-type': 'application/json' };

const fillPath = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = PATH_VALUES[name];
    if (value === undefined) throw new Error(`no test value for path parameter {${name}} of ${path}`);
    return value;
  });

let server: RunningServer;
/** An admin of `server`: every operation lets them past authorization, to what this file tests. */
let admin: Caller;
/** Every response this file got from `server`, to check that none was a 500. */
const seen: { request: string; status: number }[] = [];

async function send(path: string, init: RequestInit = {}, on: Caller = admin): Promise<Response> {
  const res = await on.fetch(path, init);
  seen.push({ request: `${init.method ?? 'GET'} ${path.slice(0, 80)}`, status: res.status });
  return res;
}

/** Asserts an RFC 9457 problem: status, media type, schema, stable type, `instance`, and `requestId` = `X-Request-Id`. */
async function expectProblem(res: Response, status: number, code: ProblemCode, instance: string): Promise<Problem> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toBe(PROBLEM_MEDIA_TYPE);
  const body = zProblem.parse(JSON.parse(text));
  expect(body).toMatchObject({ type: problemType(code), status, code, instance });
  expect(body.title).not.toBe('');
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(body.requestId).toBe(requestId);
  return body;
}

async function expectInvalid(res: Response, instance: string, paths: string[]): Promise<Problem> {
  const body = await expectProblem(res, 400, 'validation_failed', instance);
  expect(body.errors?.map((e) => e.path)).toEqual(paths);
  for (const e of body.errors ?? []) {
    expect(e.message).not.toBe('');
    expect(e.code).toBeTruthy();
  }
  expect(body.detail).toBe(paths.length === 1 ? '1 field is invalid.' : `${paths.length} fields are invalid.`);
  return body;
}

const post = (body: unknown, headers: Record<string, string> = JSON_HEADERS): RequestInit => ({
  method: 'POST',
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

beforeFirstTest(async () => {
  server = await startServer();
  admin = await server.admin();
});
afterAll(() => server?.close());

describe('every operation with a required body', () => {
  it.each(problemOperations.filter((op) => op.request?.body?.required).map((op) => [op.operationId, op] as const))(
    '%s validates it, naming each field, before its handler runs',
    async (_, op) => {
      const path = fillPath(op.path);
      // Not `{}`: every field of /synthesize, PATCH /users/{id} and its password reset is optional; these are wrongly typed.
      const init = { ...post({ question: '', password: 1, disabled: 'yes' }), method: op.method.toUpperCase() };
      const problem = await expectProblem(await send(path, init), 400, 'validation_failed', path);
      expect(problem.errors?.length).toBeGreaterThan(0);
      for (const e of problem.errors ?? []) expect(e.path).toMatch(/^body\./);
    },
  );
});

describe('validation failures list every offending field', () => {
  it('in a body, with nested array indexes', async () => {
    const res = await send(
      '/synthesize',
      post({
        question: '',
        answers: [
          { slot: 1, text: 'fine' },
          { slot: 9, text: '' },
        ],
      }),
    );
    const problem = await expectInvalid(res, '/synthesize', ['body.question', 'body.answers.1.slot', 'body.answers.1.text']);
    // Empty is only too short (one error), where white space alone breaks the pattern.
    expect(problem.errors?.map((e) => e.code)).toEqual(['too_small', 'too_big', 'too_small']);
  });

  it('in a body: missing, out of range and nested fields at once', async () => {
    const res = await send('/consilium/deep', post({ rounds: 9, quorum: 0, budget: { maxTokens: 0, maxCostUsd: -1 } }));
    await expectInvalid(res, '/consilium/deep', [
      'body.question',
      'body.rounds',
      'body.quorum',
      'body.budget.maxTokens',
      'body.budget.maxCostUsd',
    ]);
  });

  it('unknown body fields, each named, on every operation that takes a body', async () => {
    const res = await send('/consilium/deep', post({ question: QUESTION, temperature: 0.2, budget: { maxTokens: 9, usd: 1 } }));
    const problem = await expectInvalid(res, '/consilium/deep', ['body.budget.usd', 'body.temperature']);
    expect(problem.errors?.map((e) => e.code)).toEqual(['unrecognized_keys', 'unrecognized_keys']);
    for (const op of problemOperations.filter((op) => op.request?.body)) {
      const path = fillPath(op.path);
      // Where this file has no valid body for the operation, the missing fields are listed too.
      const body = { ...((BODIES[op.operationId] as object | undefined) ?? {}), temperature: 0.2 };
      const res = await send(path, { ...post(body), method: op.method.toUpperCase() });
      const problem = await expectProblem(res, 400, 'validation_failed', path);
      expect(problem.errors, op.operationId).toContainEqual({
        path: 'body.temperature',
        message: expect.stringContaining('"temperature"'),
        code: 'unrecognized_keys',
      });
    }
  });

  it('in a body that is empty, null or not an object', async () => {
    await expectInvalid(await send('/auth/login', post({})), '/auth/login', ['body.username', 'body.password']);
    await expectInvalid(await send('/consilium', post('null')), '/consilium', ['body']);
    await expectInvalid(await send('/consilium', post('[1]')), '/consilium', ['body']);
    await expectInvalid(await send('/consilium', { method: 'POST' }), '/consilium', ['body.question']);
  });

  it('in the query', async () => {
    await expectInvalid(await send('/sessions?limit=0'), '/sessions', ['query.limit']);
    await expectInvalid(await send('/sessions?limit=101&q='), '/sessions', ['query.limit', 'query.q']);
  });

  it('accepts a valid ?limit=20: query integers are converted from strings', async () => {
    const res = await send('/sessions?limit=20');
    expect(res.status, await res.text()).toBe(200);
  });

  it('rejects a query integer for the right reason: out of range, not a number, or not whole', async () => {
    const codes = async (query: string) =>
      (await expectInvalid(await send(`/sessions?${query}`), '/sessions', ['query.limit'])).errors?.map((e) => e.code);
    expect(await codes('limit=0')).toEqual(['too_small']);
    expect(await codes('limit=101')).toEqual(['too_big']);
    expect(await codes('limit=abc')).toEqual(['invalid_type']);
    expect(await codes('limit=1.5')).toEqual(['invalid_type']);
  });

  it('in path parameters', async () => {
    await expectInvalid(await send('/sessions/nope'), '/sessions/nope', ['path.sessionId']);
    await expectInvalid(await send('/sessions/nope', { method: 'DELETE' }), '/sessions/nope', ['path.sessionId']);
    await expectInvalid(await send('/sessions/nope/events'), '/sessions/nope/events', ['path.sessionId']);
    await expectInvalid(await send('/sessions/nope/export/markdown'), '/sessions/nope/export/markdown', ['path.sessionId']);
    await expectInvalid(await send('/auth/tokens/nope', { method: 'DELETE' }), '/auth/tokens/nope', ['path.tokenId']);
    await expectInvalid(await send('/ask/Not_A_Provider', post({ question: QUESTION })), '/ask/Not_A_Provider', [
      'path.provider',
    ]);
  });

  it('in headers, named as the contract spells them whatever case was sent', async () => {
    const path = '/sessions/ses_0123456789ab/events';
    await expectInvalid(await send(path, { headers: { 'Last-Event-ID': 'abc' } }), path, ['header.Last-Event-ID']);
    await expectInvalid(await send(path, { headers: { 'last-event-id': '1234567890123456' } }), path, ['header.Last-Event-ID']);
    // Valid, so the request gets as far as looking the session up.
    await expectProblem(await send(path, { headers: { 'Last-Event-ID': '42' } }), 404, 'not_found', path);
  });

  it('one location at a time: a bad path parameter is reported before a bad body', async () => {
    await expectInvalid(await send('/ask/Not_A_Provider', post({ question: '' })), '/ask/Not_A_Provider', ['path.provider']);
  });
});

describe('bodies the server cannot read', () => {
  it('malformed JSON → 400 malformed_body', async () => {
    for (const path of ['/consilium', '/synthesize', '/auth/login']) {
      const problem = await expectProblem(await send(path, post('{"question": "unterminated')), 400, 'malformed_body', path);
      expect(problem.errors).toBeUndefined();
    }
    await expectProblem(await send('/consilium', post('')), 400, 'malformed_body', '/consilium');
    await expectProblem(await send('/consilium', post("{question: 'js, not json'}")), 400, 'malformed_body', '/consilium');
  });

  it('a body that is not JSON → 415 unsupported_media_type, saying which media type to send', async () => {
    const text = await send('/consilium', post(QUESTION, { 'content-type': 'text/plain' }));
    expect(text.headers.get('accept-post')).toBe('application/json');
    const problem = await expectProblem(text, 415, 'unsupported_media_type', '/consilium');
    expect(problem.detail).toBe('Send the body as application/json (Content-Type: application/json); got "text/plain".');
    const form = await send(
      '/auth/login',
      post('username=ada&password=x', { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    expect(form.headers.get('accept-post')).toBe('application/json');
    expect((await expectProblem(form, 415, 'unsupported_media_type', '/auth/login')).detail).toContain('application/json');
    const untyped = await send('/ask/openai', { method: 'POST', body: new Blob([QUESTION]) });
    expect((await expectProblem(untyped, 415, 'unsupported_media_type', '/ask/openai')).detail).toContain('no Content-Type');
  });

  it('a 2 MiB body → 413 payload_too_large', async () => {
    const res = await send('/consilium', post({ question: 'x'.repeat(2 * 1024 * 1024) }));
    const problem = await expectProblem(res, 413, 'payload_too_large', '/consilium');
    expect(problem.detail).toContain(String(MAX_BODY_BYTES));
  });

  it('a body of exactly the limit is read; one byte more is refused', async () => {
    // Padded with whitespace, which JSON allows: an unknown field would be refused.
    const exactly = (bytes: number) => {
      const body = JSON.stringify({ question: QUESTION });
      return body + ' '.repeat(bytes - body.length);
    };
    expect(Buffer.byteLength(exactly(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
    const read = await send('/consilium', post(exactly(MAX_BODY_BYTES)));
    expect(read.status, await read.clone().text()).toBe(200);
    expect(((await read.json()) as { answers: unknown[] }).answers).toHaveLength(5);
    await expectProblem(await send('/consilium', post(exactly(MAX_BODY_BYTES + 1))), 413, 'payload_too_large', '/consilium');
  });

  it('a 413 for a declared length closes its connection (the body is never read), and the next requests are served', async () => {
    // A fresh server, so fetch's pool for it holds just the connection that sent the big body.
    const fresh = await startServer();
    try {
      const res = await send('/consilium', post({ question: 'x'.repeat(2 * 1024 * 1024) }), fresh);
      await expectProblem(res, 413, 'payload_too_large', '/consilium');
      expect(res.headers.get('connection')).toBe('close');
      for (let i = 0; i < 3; i++) expect((await send('/health', {}, fresh)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('a body of undeclared length over the limit → 413, and the connection is closed, not left to fail', async () => {
    const fresh = await startServer();
    try {
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sentChunks = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sentChunks++ < 32) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await send('/consilium', { ...post(''), body, duplex: 'half' } as RequestInit, fresh);
      await expectProblem(res, 413, 'payload_too_large', '/consilium');
      expect(res.headers.get('connection')).toBe('close');
      for (let i = 0; i < 3; i++) expect((await send('/health', {}, fresh)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

describe('413 and 431 on every operation, as its contract lists them', () => {
  const responses = (op: Operation) => Object.keys((routes[op.operationId] as unknown as { responses: object }).responses);

  it('headers over what the server reads → 431 headers_too_large, listed by the operation', async () => {
    for (const op of operations) {
      const path = fillPath(op.path);
      const res = await rawRequest(`${server.baseUrl}${path}`, {
        method: op.method.toUpperCase(),
        headers: { ...admin.headers, 'x-padding': 'x'.repeat(20_000) },
      });
      expect(res.status, `${op.operationId}`).toBe(431);
      expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
      expect(responses(op), op.operationId).toContain('431');
    }
  });

  it('a body over the limit → 413 payload_too_large, listed by the operation (with a body or not)', async () => {
    for (const op of operations) {
      const path = fillPath(op.path);
      const res = await rawRequest(`${server.baseUrl}${path}`, {
        method: op.method.toUpperCase(),
        headers: { ...admin.headers, ...JSON_HEADERS, 'content-length': String(MAX_BODY_BYTES + 1) },
        body: '',
        agent: new Agent({ keepAlive: false }),
      });
      expect(res.status, `${op.operationId}`).toBe(413);
      expect(responses(op), op.operationId).toContain('413');
    }
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/health/'],
    ['GET', '/sessions/ses_0123456789ab/nope'],
  ])('%s %s → 404 not_found', async (method, path) => {
    const problem = await expectProblem(await send(path, { method }), 404, 'not_found', path);
    expect(problem.detail).toBe(`No route for ${method} ${path}.`);
  });
});

describe('never a 500', () => {
  it.each<[string, string, RequestInit]>([
    ['deeply nested JSON', '/consilium', post(`${'['.repeat(50_000)}${']'.repeat(50_000)}`)],
    ['a __proto__ key', '/consilium', post(`{"__proto__": {"polluted": true}, "question": "q"}`)],
    [
      'invalid UTF-8',
      '/consilium',
      { method: 'POST', headers: JSON_HEADERS, body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
    ],
    ['a number too big for a double', '/consilium', post('{"question": "q", "maxOutputTokens": 1e400}')],
    ['a problem+json body', '/consilium', post({ question: 'q' }, { 'content-type': 'application/problem+json' })],
    ['a garbage content type', '/consilium', post({ question: 'q' }, { 'content-type': ';;;' })],
    ['a bad percent-escape in the path', '/ask/%ZZ', post({ question: 'q' })],
    ['a bad percent-escape in the query', '/sessions?q=%ZZ', {}],
    ['a repeated query parameter', '/sessions/ses_0123456789ab/export?format=json&format=markdown', {}],
    ['an empty Last-Event-ID', '/sessions/ses_0123456789ab/events', { headers: { 'Last-Event-ID': '' } }],
  ])('%s', async (_, path, init) => {
    const res = await send(path, init);
    const text = await res.text();
    expect([200, 400, 404, 413, 415], text).toContain(res.status);
    // A request the server can read is answered (the debate operations work); anything else is a problem.
    expect(res.headers.get('content-type')).toBe(res.status === 200 ? 'application/json' : PROBLEM_MEDIA_TYPE);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('for any request this file sent', () => {
    expect(seen.length).toBeGreaterThan(60);
    expect(seen.filter((r) => r.status >= 500)).toEqual([]);
  });
});

describe('/providers with keys in the environment', () => {
  const secrets = {
    ANTHROPIC_API_KEY: 'sk-ant-secret-0001',
    OPENAI_API_KEY: 'sk-openai-secret-0002',
    DEEPSEEK_API_KEY: 'sk-deepseek-secret-0003',
    GOOGLE_GENERATIVE_AI_API_KEY: 'google-secret-0004',
    CONSILIUM_SLOT5_API_KEY: 'local-secret-0005',
  };
  const baseUrl = 'http://admin:base-url-password@10.9.8.7:11434/v1';
  let keyed: RunningServer;
  beforeFirstTest(async () => {
    keyed = await startServer({ ...secrets, CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen', CONSILIUM_SLOT5_BASE_URL: baseUrl });
  });
  afterAll(() => keyed?.close());

  it('shows each slot live, and never a key, a key variable or a base URL', async () => {
    const res = await send('/providers', {}, keyed);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    for (const secret of [
      ...Object.values(secrets),
      ...Object.keys(secrets),
      'base-url-password',
      '10.9.8.7',
      'apiKeyEnv',
      'baseUrl',
    ]) {
      expect(text).not.toContain(secret);
    }
    const catalogue = zProviderCatalogue.parse(JSON.parse(text));
    expect(catalogue.slots.map((s) => [s.provider, s.status, s.api])).toEqual([
      ['anthropic', 'live', 'native'],
      ['openai', 'live', 'native'],
      ['deepseek', 'live', 'native'],
      ['google', 'live', 'native'],
      ['ollama-qwen', 'live', 'openai-compatible'],
    ]);
    for (const slot of catalogue.slots) {
      expect(Object.keys(slot).sort()).toEqual(['api', 'model', 'provider', 'slot', 'status', 'strength']);
    }
  });

  it('nor does any other response', async () => {
    for (const path of ['/health', '/openapi.json', '/nope']) {
      const text = await (await send(path, {}, keyed)).text();
      for (const secret of [...Object.values(secrets), 'base-url-password']) expect(text).not.toContain(secret);
    }
  });

  it('shows the default slots offline when no key is set', async () => {
    const catalogue = zProviderCatalogue.parse(await (await send('/providers')).json());
    expect(catalogue).toMatchObject({ synthesizerSlot: 1, quorum: 3 });
    expect(catalogue.slots.map((s) => s.status)).toEqual(['offline', 'offline', 'offline', 'offline', 'offline']);
  });
});
