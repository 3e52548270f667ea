/**
 * What a user's curl session against a fresh server found, each over real HTTP: the method a path lacks (405 with
 * `Allow`), blank questions, bodies that are not UTF-8, an admin's reach into other users' sessions, and follow-up
 * fields that do not fit the mode.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../sdk/src/generated/types.gen.js';
import * as sdkZod from '../../sdk/src/generated/zod.gen.js';
import { routes } from '../../server/src/generated/routes.js';
import { MAX_BODY_BYTES } from '../../server/src/http/app.js';
import { DEBATE_STARTS } from '../../server/src/http/debate-limits.js';
import { PROBLEM_MEDIA_TYPE } from '../../server/src/http/problem.js';
import { beforeFirstTest } from '../support/lazy.js';
import { type RunningServer, startServer } from '../support/server.js';

let server: RunningServer;
beforeFirstTest(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
});

async function problemOf(res: Response, status: number): Promise<Problem> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toBe(PROBLEM_MEDIA_TYPE);
  return JSON.parse(text) as Problem;
}

/** A valid value for every path parameter of the contract. */
const PATH_VALUES: Record<string, string> = {
  provider: 'anthropic',
  sessionId: 'ses_0123456789ab',
  tokenId: 'tok_abcdef',
  userId: 'usr_abcdef',
};

/** Starts a run as `who` and answers its session's id. */
async function started(who: Pick<RunningServer, 'fetch'>, path: string, question: string): Promise<string> {
  const res = await who.fetch(path, json({ question }));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { sessionId: string }).sessionId;
}

/** Every session row in the store, whoever owns it. */
async function storedCount(): Promise<number> {
  const admin = await server.admin();
  const res = await admin.fetch('/sessions?owner=all&limit=100');
  return ((await res.json()) as { items: unknown[] }).items.length;
}

describe('a method the path does not have: 405 with Allow', () => {
  it.each([
    ['PUT', '/sessions', 'GET, HEAD'],
    ['PUT', '/sessions/ses_0123456789ab', 'DELETE, GET, HEAD, PATCH'],
    ['PATCH', '/auth/tokens', 'GET, HEAD, POST'],
    ['OPTIONS', '/providers', 'GET, HEAD'],
    ['POST', '/openapi.json', 'GET, HEAD'],
    ['DELETE', '/docs/', 'GET, HEAD'],
  ])('%s %s → Allow: %s', async (method, path, allow) => {
    const problem = await problemOf(await server.fetch(path, { method }), 405);
    expect(problem.code).toBe('method_not_allowed');
    expect(problem.detail).toBe(`${path} does not take ${method}; it takes ${allow}.`);
  });

  it('on a public path too, without credentials: POST /health is 405, not 401', async () => {
    const res = await fetch(`${server.baseUrl}/health`, { method: 'POST' });
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await problemOf(res, 405)).code).toBe('method_not_allowed');
  });

  it('sends Allow, and leaves unknown paths and the methods a path has alone', async () => {
    const res = await server.fetch('/sessions', { method: 'PUT' });
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await server.fetch('/nope', { method: 'PUT' })).status).toBe(404);
    expect((await server.fetch('/sessions', { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/sessions`, { method: 'PUT' })).status).toBe(405);
  });
});

describe('a question of white space alone is refused', () => {
  it.each([
    ['/ask/openai', { question: '   ' }],
    ['/consilium', { question: '\t\n ' }],
    ['/consilium/deep', { question: '\u00a0\u2003' }],
    ['/consilium/deep/stream', { question: ' ' }],
    ['/synthesize', { question: '  ', answers: [{ slot: 1, text: 'x' }] }],
  ])('%s', async (path, body) => {
    const before = await storedCount();
    const problem = await problemOf(await server.fetch(path, json(body)), 400);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors?.map((e) => `${e.path} ${e.code}`)).toEqual(['body.question invalid_format']);
    expect(await storedCount()).toBe(before);
  });

  it('but a blank question stored before the rule still reads: the SDK validates responses without it', () => {
    const summary = {
      id: 'ses_0123456789ab',
      owner: 'usr_abcdef',
      mode: 'single',
      question: '   ',
      status: 'completed',
      roundsRequested: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      cost: { usd: 0, priced: true },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(sdkZod.zSessionSummary.safeParse(summary).success).toBe(true);
    expect(sdkZod.zAskRequest.safeParse({ question: '   ' }).success).toBe(false);
  });

  it('on a follow-up too', async () => {
    const id = await started(server, '/consilium', 'Blank follow-up?');
    const problem = await problemOf(await server.fetch(`/sessions/${id}/follow-ups`, json({ question: ' ' })), 400);
    expect(problem.errors?.map((e) => e.path)).toEqual(['body.question']);
  });

  it('a question with text around white space is kept as sent', async () => {
    const res = await server.fetch('/ask/openai', json({ question: '  why?  ' }));
    expect(res.status).toBe(200);
    const { sessionId } = (await res.json()) as { sessionId: string };
    expect((await server.sessions.get(sessionId, server.user.id))?.question).toBe('  why?  ');
  });
});

describe('a JSON body that is not UTF-8', () => {
  // {"question":"a\xff\xfeb"}
  const bytes = new Uint8Array([...Buffer.from('{"question":"a'), 0xff, 0xfe, ...Buffer.from('b"}')]);

  it('is refused with invalid_text naming the first bad byte, and nothing is stored', async () => {
    const before = await storedCount();
    const problem = await problemOf(await server.fetch('/ask/openai', json(bytes)), 400);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([
      {
        path: 'body',
        code: 'invalid_text',
        message: 'Not valid UTF-8 at byte 14: send the text as UTF-8; it is not stored with the bad bytes replaced.',
      },
    ]);
    expect(await storedCount()).toBe(before);
  });

  it('whatever the operation, and with a charset parameter', async () => {
    const truncated = new Uint8Array([...Buffer.from('{"name":"caf'), 0xc3]); // the first byte of "é" alone
    const res = await server.fetch('/auth/tokens', json(truncated, { 'content-type': 'application/json; charset=utf-8' }));
    expect((await problemOf(res, 400)).errors?.[0]).toMatchObject({ path: 'body', code: 'invalid_text' });
  });

  it('valid UTF-8 beyond ASCII still passes', async () => {
    const res = await server.fetch('/ask/openai', json(Buffer.from('{"question":"Café, 東京, 😀?"}')));
    expect(res.status).toBe(200);
  });
});

describe('an admin and another user’s sessions', () => {
  it('reads and synthesizes them, but a follow-up is 403 naming why; the list says whose each row is', async () => {
    const bob = await server.newUser();
    const admin = await server.admin();
    const id = await started(bob, '/consilium', 'Bob asks?');

    expect((await admin.fetch(`/sessions/${id}`)).status).toBe(200);
    expect((await admin.fetch('/synthesize', json({ sessionId: id }))).status).toBe(200);
    const before = await storedCount();
    const problem = await problemOf(await admin.fetch(`/sessions/${id}/follow-ups`, json({ question: 'Admin adds?' })), 403);
    expect(problem.code).toBe('forbidden');
    expect(problem.detail).toContain('a follow-up continues your own thread only');
    expect(await storedCount()).toBe(before);
    // Bob's thread is untouched, and bob himself may follow it up.
    expect((await bob.fetch(`/sessions/${id}/follow-ups`, json({ question: 'Bob again?' }))).status).toBe(200);
    // A session that exists nowhere is still 404 for an admin.
    expect((await admin.fetch('/sessions/ses_000000000000/follow-ups', json({ question: 'x?' }))).status).toBe(404);
    // Another user (not an admin) is told nothing of it: 404 as for a session that does not exist.
    expect((await server.fetch(`/sessions/${id}/follow-ups`, json({ question: 'Mine?' }))).status).toBe(404);

    const list = (await (await admin.fetch('/sessions?owner=all&limit=100')).json()) as {
      items: { id: string; owner: string }[];
    };
    expect(list.items.find((s) => s.id === id)?.owner).toBe(bob.user.id);
    expect(list.items.every((s) => typeof s.owner === 'string' && s.owner.length > 0)).toBe(true);
    const own = (await (await bob.fetch('/sessions')).json()) as { items: { owner: string }[] };
    expect(new Set(own.items.map((s) => s.owner))).toEqual(new Set([bob.user.id]));
  });
});

describe('follow-up fields that do not fit the mode', () => {
  let parent: string;
  const followUp = async (body: Record<string, unknown>) => {
    parent ??= await started(server, '/ask/openai', 'Parent?');
    return server.fetch(`/sessions/${parent}/follow-ups`, json({ question: 'And then?', ...body }));
  };

  it('are refused, each named, and nothing runs', async () => {
    await followUp({ mode: 'single' }); // makes the parent first, so the count below is after it
    const before = await storedCount();
    const problem = await problemOf(await followUp({ mode: 'single', slots: [1, 2], rounds: 4 }), 400);
    expect(problem.code).toBe('validation_failed');
    expect(problem.detail).toBe('`slots`, `rounds` do not apply to a single follow-up.');
    expect(problem.errors).toEqual([
      {
        path: 'body.slots',
        code: 'unrecognized_keys',
        message: '"slots" is for a parallel or deep follow-up; this one is single.',
      },
      { path: 'body.rounds', code: 'unrecognized_keys', message: '"rounds" is for a deep follow-up; this one is single.' },
    ]);
    expect(await storedCount()).toBe(before);
  });

  it('against the mode the session gives when none is sent', async () => {
    const problem = await problemOf(await followUp({ quorum: 2 }), 400);
    expect(problem.errors?.[0]?.message).toBe('"quorum" is for a deep follow-up; this one is single (the session’s mode).');
  });

  it.each([
    [{ mode: 'parallel', provider: 'openai' }, ['body.provider']],
    [{ mode: 'deep', slots: [1] }, ['body.slots']],
    [{ mode: 'parallel', earlyStop: true, quorum: 3 }, ['body.quorum', 'body.earlyStop']],
  ])('%j', async (body, paths) => {
    expect((await problemOf(await followUp(body), 400)).errors?.map((e) => e.path)).toEqual(paths);
  });

  it('each mode’s own fields are taken', async () => {
    expect((await followUp({ mode: 'single', provider: 'openai' })).status).toBe(200);
    expect((await followUp({ mode: 'parallel', slots: [1, 2] })).status).toBe(200);
    expect((await followUp({ mode: 'deep', rounds: 2, quorum: 1, earlyStop: true })).status).toBe(200);
  });
});

describe('follow-ups count as debate starts', () => {
  it('429 rate_limited once the user’s starts are spent, as POST /consilium is', async () => {
    const limited = await startServer({ CONSILIUM_RATE_LIMITS: 'on', CONSILIUM_LIMIT_DEBATES_PER_USER: '1/1h' });
    try {
      const id = await started(limited, '/consilium', 'One?');
      const res = await limited.fetch(`/sessions/${id}/follow-ups`, json({ question: 'Two?' }));
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await problemOf(res, 429)).code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('the statuses the contract leaves out no more', () => {
  const ops = Object.values(routes) as unknown as {
    method: string;
    path: string;
    operationId: string;
    security?: unknown[];
    request?: { body?: unknown };
    responses: Record<string, unknown>;
  }[];
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => PATH_VALUES[name] ?? 'x');
  const withBody = ops.filter((op) => op.request?.body);

  it('413 and 415 on every operation with a body: returned, and documented', async () => {
    expect(withBody.length).toBeGreaterThan(10);
    const admin = await server.admin();
    for (const op of withBody) {
      const path = fill(op.path);
      const method = op.method.toUpperCase();
      const tooLarge = await admin.fetch(path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(MAX_BODY_BYTES + 1),
      });
      expect(tooLarge.status, `${method} ${path}`).toBe(413);
      const wrongType = await admin.fetch(path, { method, headers: { 'content-type': 'text/plain' }, body: '{}' });
      expect(wrongType.status, `${method} ${path}`).toBe(415);
      expect(Object.keys(op.responses), op.operationId).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('429 documented on every operation that starts a debate (each is limited: debate-limits)', () => {
    for (const id of DEBATE_STARTS) expect(Object.keys(routes[id].responses), id).toContain('429');
    expect(Object.keys(routes.synthesizeVerdict.responses)).toContain('502');
  });

  it('403 on every unsafe operation a cookie from another origin reaches: returned, and documented', async () => {
    const signIn = await fetch(
      `${server.baseUrl}/auth/login`,
      json({ username: server.user.username, password: server.password }),
    );
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    // Bearer-only operations (OpenAI's surface) take no cookie, so a cross-site request there is simply unsigned (auth test).
    const unsafe = ops.filter(
      (op) => op.method !== 'get' && (op.security ?? [{ cookieAuth: [] }]).some((r) => 'cookieAuth' in (r as object)),
    );
    expect(unsafe.length).toBeGreaterThan(10);
    for (const op of unsafe) {
      const res = await fetch(`${server.baseUrl}${fill(op.path)}`, {
        method: op.method.toUpperCase(),
        headers: { cookie, origin: 'https://elsewhere.example', 'content-type': 'application/json' },
        body: '{}',
      });
      // An admin-only operation says 403 too (this user is no admin); either way the contract must list it.
      expect(res.status, op.operationId).toBe(403);
      expect(Object.keys(op.responses), op.operationId).toContain('403');
    }
  });

  it('no 501 is documented: every operation is implemented', () => {
    for (const op of ops) expect(Object.keys(op.responses), op.operationId).not.toContain('501');
  });
});
