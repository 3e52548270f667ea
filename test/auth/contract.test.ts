/**
 * Every operation of the contract, generated from it (no operation is named here): called with no
 * credentials, a revoked token, an expired session cookie, and another user's token on the first
 * user's resources. Each answer is checked against the operation's declared `security` and
 * responses. An operation added to the contract is covered with no new test code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { hashSecret, randomId, randomSecret } from '../../server/src/accounts/secrets.js';
import { operationSecurity, routes } from '../../server/src/generated/routes.js';
import { SESSION_COOKIE } from '../../server/src/http/auth.js';
import { beforeFirstTest } from '../support/lazy.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';

type OperationId = keyof typeof routes;
interface Route {
  method: string;
  tags?: string[];
  path: string;
  request?: { body?: { content: Record<string, { schema: ZodType; example?: unknown }> } };
  responses: Record<string, unknown>;
}
const operations = (Object.keys(routes) as OperationId[]).map((id) => ({
  id,
  route: routes[id] as unknown as Route,
  security: operationSecurity[id].security,
  /** `/v1/*` speaks OpenAI's API: its errors are OpenAI's, and it takes a bearer token only, as OpenAI clients send. */
  openAi: (routes[id] as unknown as Route).tags?.includes('openai') ?? false,
}));

let server: RunningServer;
/** The owner of the resources: a session, a token, the user itself. */
let alice: Caller;
/** Another user (role `user`), with a token of her own. */
let bob: Caller;
const resources: Record<string, string> = { provider: 'anthropic' };
let revoked: string;
let expiredCookie: string;

beforeFirstTest(async () => {
  server = await startServer();
  alice = await server.newUser();
  bob = await server.newUser();
  const debate = await alice.fetch('/consilium', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Whose session is this?' }),
  });
  resources.sessionId = ((await debate.json()) as { sessionId: string }).sessionId;
  resources.tokenId = (await server.accounts.listTokens(alice.user.id))[0]!.id;
  resources.userId = alice.user.id;

  // A token that worked, then was revoked through the API.
  const spare = await server.accounts.createToken(alice.user.id, 'spare');
  expect((await alice.fetch('/auth/me', { headers: { authorization: `Bearer ${spare.token}` } })).status).toBe(200);
  expect((await alice.fetch(`/auth/tokens/${spare.id}`, { method: 'DELETE' })).status).toBe(204);
  revoked = spare.token;

  // A sign-in that ran out: its absolute expiry has passed.
  expiredCookie = randomSecret();
  const past = new Date(Date.now() - 3_600_000).toISOString();
  await server.accounts.store.createSignIn({
    id: randomId('sgn'),
    userId: alice.user.id,
    secretHash: hashSecret(expiredCookie),
    createdAt: past,
    lastSeenAt: past,
    expiresAt: new Date(Date.now() - 1000).toISOString(),
    epoch: 0,
  });
});
afterAll(() => server?.close());

/** The request for an operation on Alice's resources, with the contract's example body. */
function request(op: (typeof operations)[number], headers: Record<string, string>): [string, RequestInit] {
  const path = op.route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = resources[name];
    if (value === undefined) throw new Error(`no resource for path parameter {${name}} of ${op.id}`);
    return value;
  });
  const json = op.route.request?.body?.content['application/json'];
  const init: RequestInit = { method: op.route.method.toUpperCase(), headers };
  if (json) {
    const shape = (json.schema as { shape?: Record<string, unknown> }).shape ?? {};
    // A body that names a session names Alice's.
    const body = 'sessionId' in shape ? { sessionId: resources.sessionId } : json.example;
    expect(body, `${op.id} needs a request example in the contract`).toBeDefined();
    init.body = JSON.stringify(body);
    init.headers = { ...headers, 'content-type': 'application/json' };
  }
  return [path, init];
}

async function call(op: (typeof operations)[number], headers: Record<string, string>) {
  const [path, init] = request(op, headers);
  const res = await fetch(`${server.baseUrl}${path}`, init);
  const text = await res.text();
  // Whatever the answer, the contract declares it.
  expect(Object.keys(op.route.responses), `${op.id} answered ${res.status}: ${text}`).toContain(String(res.status));
  return { status: res.status, text, headers: res.headers, path };
}

function expectUnauthorized(op: (typeof operations)[number], got: Awaited<ReturnType<typeof call>>) {
  expect(got.status, `${op.id}: ${got.text}`).toBe(401);
  expect(got.headers.get('www-authenticate')).toBe('Bearer');
  if (op.openAi) {
    expect(got.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(got.text)).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', code: 'unauthorized', param: null },
    });
    return;
  }
  expect(got.headers.get('content-type')).toBe('application/problem+json');
  expect(JSON.parse(got.text)).toMatchObject({ code: 'unauthorized', instance: got.path });
}

const secured = operations.filter((op) => op.security.length > 0);
const open = operations.filter((op) => op.security.length === 0);
const ids = (list: typeof operations) => list.map((op) => [op.id, op] as const);

describe('the contract declares security for every operation', () => {
  it('public: only health, readiness and login; every other operation takes a bearer token or the session cookie', () => {
    // A load balancer's probes carry no credentials.
    expect(open.map((op) => op.id).sort()).toEqual(['getHealth', 'getReady', 'login']);
    for (const op of secured) {
      const schemes = op.openAi ? ['bearerAuth'] : ['bearerAuth', 'cookieAuth'];
      expect(op.security.flatMap((r) => Object.keys(r)).sort(), op.id).toEqual(schemes);
    }
  });
});

describe.each([
  ['no credentials', () => ({})],
  ['a revoked token', () => ({ authorization: `Bearer ${revoked}` })],
  ['a token that never existed', () => ({ authorization: `Bearer csk_${'x'.repeat(43)}` })],
  ['a malformed Authorization header', () => ({ authorization: 'Basic YWRtaW46YWRtaW4=' })],
  ['an expired session cookie', () => ({ cookie: `${SESSION_COOKIE}=${expiredCookie}` })],
])('with %s', (_, headers) => {
  it.each(ids(secured))('%s answers 401 problem+json', async (_, op) => {
    expectUnauthorized(op, await call(op, headers()));
  });

  it.each(ids(open))('%s answers as it does to anyone: its credentials are not looked at', async (_, op) => {
    const got = await call(op, headers());
    const anonymous = await call(op, {});
    expect(got.status).toBe(anonymous.status);
  });
});

describe("a valid session cookie on OpenAI's surface", () => {
  // A browser sends its cookie to any site's form post; a bearer-only surface gives a cross-site request nothing.
  it.each(ids(secured.filter((op) => op.openAi)))('%s answers 401: only a bearer token signs in there', async (_, op) => {
    const signIn = await fetch(`${server.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: alice.user.username, password: alice.password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${server.baseUrl}/auth/me`, { headers: { cookie } })).status).toBe(200);
    expectUnauthorized(op, await call(op, { cookie }));
  });
});

describe("another user's token on Alice's resources", () => {
  const perResource = secured.filter((op) => /\{(sessionId|tokenId|userId)\}/.test(op.route.path));
  const adminOnly = (op: (typeof operations)[number]) =>
    op.security.every((r) => Object.values(r).every((roles) => roles.length > 0));
  const bobHeaders = () => ({ authorization: `Bearer ${bob.token}` });

  it.each(ids(secured.filter(adminOnly)))('%s is for admins: 403 forbidden', async (_, op) => {
    const got = await call(op, bobHeaders());
    expect(got.status, got.text).toBe(403);
    expect(JSON.parse(got.text)).toMatchObject({ code: 'forbidden' });
  });

  it.each(ids(perResource.filter((op) => !adminOnly(op))))(
    '%s answers 404 exactly as for a resource that never existed',
    async (_, op) => {
      const got = await call(op, bobHeaders());
      expect(got.status, got.text).toBe(404);
      // The same answer as for an id nobody has: nothing tells Bob the resource exists.
      const saved = { ...resources };
      Object.assign(resources, { sessionId: 'ses_000000000000', tokenId: 'tok_000000000000' });
      const missing = await call(op, bobHeaders()).finally(() => Object.assign(resources, saved));
      const strip = (text: string) => {
        const { instance: _i, requestId: _r, detail, ...rest } = JSON.parse(text) as Record<string, string>;
        return { ...rest, detail: detail?.replace(/(ses|tok)_[0-9A-Za-z]+/g, '<id>') };
      };
      expect(strip(got.text)).toStrictEqual(strip(missing.text));
    },
  );

  it.each(ids(secured.filter((op) => !adminOnly(op) && !perResource.includes(op))))(
    "%s shows Bob nothing of Alice's",
    async (_, op) => {
      const got = await call(op, bobHeaders());
      const shape = (op.route.request?.body?.content['application/json']?.schema as { shape?: object } | undefined)?.shape;
      if (shape && 'sessionId' in shape) {
        // The body named Alice's session (its id echoed back is Bob's own input): absent, as one that never existed.
        expect(got.status, got.text).toBe(404);
        expect(JSON.parse(got.text)).toMatchObject({ code: 'not_found' });
        return;
      }
      expect(got.status, got.text).toBeLessThan(500);
      for (const secret of [resources.sessionId!, resources.tokenId!, alice.user.id, alice.user.username]) {
        expect(got.text).not.toContain(secret);
      }
    },
  );

  it("left Alice's session, token and account as they were", async () => {
    expect((await alice.fetch(`/sessions/${resources.sessionId}`)).status).toBe(200);
    expect((await alice.fetch('/auth/me')).status).toBe(200);
    expect((await server.accounts.listTokens(alice.user.id)).map((t) => t.id)).toContain(resources.tokenId);
    expect((await server.accounts.getUser(alice.user.id))?.disabled).toBe(false);
  });
});
