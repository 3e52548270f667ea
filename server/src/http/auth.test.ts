/**
 * The auth middleware on its own: a Hono app with `authenticate` in front of a handler that echoes who it let
 * through, real accounts on a real SQLite store (small scrypt), and no HTTP server. The contract-wide checks
 * (every operation, every credential) are `test/auth/contract.test.ts`; the flows over a server `flows.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../accounts/accounts.js';
import { hashSecret, randomId } from '../accounts/secrets.js';
import type { OperationSecurity } from '../generated/routes.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import {
  type AuthOptions,
  authenticate,
  compileSecurity,
  findOperation,
  isPublicPage,
  SESSION_COOKIE,
  sameOrigin,
  secureCookies,
} from './auth.js';
import type { AppEnv } from './deps.js';

const dir = mkdtempSync(join(tmpdir(), 'consilium-auth-'));
let db: SqliteDatabase;
let accounts: Accounts;
/** A user (role `user`) and an admin, each with an API token and a signed-in cookie. */
const who = {} as Record<'alice' | 'root', { id: string; token: string; tokenId: string; cookie: string; signInId: string }>;

beforeAll(async () => {
  db = await SqliteDatabase.open(join(dir, 'auth.db'));
  accounts = new Accounts({
    store: db.accounts,
    signInIdleMs: 3_600_000,
    signInMaxMs: 86_400_000,
    scrypt: { N: 16, r: 1, p: 1 },
  });
  for (const [name, role] of [
    ['alice', 'user'],
    ['root', 'admin'],
  ] as const) {
    const { user } = await accounts.createUser({ username: name, role, password: `${name}-password-1` });
    const { token, id: tokenId } = await accounts.createToken(user.id, 'tests');
    const signedIn = await accounts.signIn(name, `${name}-password-1`);
    const principal = await accounts.authenticateSignIn(signedIn!.secret);
    who[name] = { id: user.id, token, tokenId, cookie: signedIn!.secret, signInId: principal!.via.id };
  }
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The middleware in front of a handler that says whom it let through, and how. */
function app(options: Partial<AuthOptions> = {}) {
  const a = new Hono<AppEnv>();
  a.use(authenticate({ accounts, ...options }));
  a.all('*', (c) => c.json({ user: c.get('user')?.username ?? null, via: c.get('credential') ?? null }));
  return a;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function send(
  a: Hono<AppEnv>,
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await a.request(path.startsWith('http') ? path : `http://localhost${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (value: string) => ({ cookie: `${SESSION_COOKIE}=${value}` });

/** Asserts a 401 problem with its `WWW-Authenticate` and exact detail. */
function expect401(got: Answer, detail: string) {
  expect(got.status).toBe(401);
  expect(got.headers.get('content-type')).toBe('application/problem+json');
  expect(got.headers.get('www-authenticate')).toBe('Bearer');
  expect(got.body).toMatchObject({ code: 'unauthorized', detail });
}

const NO_CREDENTIALS = 'Send a bearer token, or log in for a session cookie.';
const BAD_TOKEN = 'The bearer token is not valid: unknown, revoked, expired, or its user is disabled.';
const NOT_BEARER = 'Send the API token as `Authorization: Bearer <token>` (no other scheme is taken).';
const ENDED = 'The session has ended (signed out, expired, or the user is disabled); log in again.';
const CROSS_SITE = 'A request authenticated by the session cookie must come from this service’s own origin (Origin or Referer).';

describe('isPublicPage', () => {
  it.each([
    ['GET', '/'],
    ['HEAD', '/'],
    ['GET', '/openapi.json'],
    ['HEAD', '/openapi.json'],
    ['GET', '/assets/app.js'],
    ['GET', '/assets/a'],
    ['GET', '/favicon.ico'],
    ['GET', '/favicon.svg'],
    ['GET', '/docs'],
    ['GET', '/docs/'],
    ['GET', '/docs/api/index.html'],
  ])('%s %s is public', (method, path) => {
    expect(isPublicPage(method, path)).toBe(true);
  });

  it.each([
    ['POST', '/'],
    ['PUT', '/docs'],
    ['DELETE', '/assets/app.js'],
    ['OPTIONS', '/'],
    ['GET', '/x/'],
    ['GET', '/openapi.jsonx'],
    ['GET', '/openapiXjson'],
    ['GET', '/x/openapi.json'],
    ['GET', '/assets/'],
    ['GET', '/assets'],
    ['GET', '/x/assets/app.js'],
    ['GET', '/favicon.'],
    ['GET', '/favicon.ico/x'],
    ['GET', '/favicon.i-o'],
    ['GET', '/faviconXico'],
    ['GET', '/x/favicon.ico'],
    ['GET', '/docsx'],
    ['GET', '/x/docs'],
    ['GET', '/sessions'],
  ])('%s %s is not', (method, path) => {
    expect(isPublicPage(method, path)).toBe(false);
  });
});

describe('compileSecurity and findOperation', () => {
  const table: Record<string, OperationSecurity> = {
    dotted: { method: 'GET', path: '/a.b/{id}', security: [] },
    nested: { method: 'POST', path: '/x/{first}/y/{second}', security: [{ bearerAuth: [] }] },
    special: { method: 'GET', path: '/p+q(r)$|s*?[t]^\\', security: [{ cookieAuth: ['admin'] }] },
  };
  const ops = compileSecurity(table);
  const find = (method: string, path: string) => findOperation(ops, method, path)?.operationId;

  it('keeps each operation with its method and security', () => {
    expect(ops.map(({ operationId, method, security }) => ({ operationId, method, security }))).toEqual([
      { operationId: 'dotted', method: 'GET', security: [] },
      { operationId: 'nested', method: 'POST', security: [{ bearerAuth: [] }] },
      { operationId: 'special', method: 'GET', security: [{ cookieAuth: ['admin'] }] },
    ]);
  });

  it('a path parameter is exactly one segment, and everything else is literal', () => {
    expect(find('GET', '/a.b/1')).toBe('dotted');
    expect(find('GET', '/a.b/some-id')).toBe('dotted');
    expect(find('GET', '/aXb/1')).toBeUndefined();
    expect(find('GET', '/a.b/')).toBeUndefined();
    expect(find('GET', '/a.b/1/2')).toBeUndefined();
    expect(find('GET', '/a.b/1/')).toBeUndefined();
    expect(find('GET', '/z/a.b/1')).toBeUndefined();
    expect(find('POST', '/x/1/y/2')).toBe('nested');
    expect(find('POST', '/x/1/y/')).toBeUndefined();
    expect(find('POST', '/x/1/z/2')).toBeUndefined();
    expect(find('GET', '/p+q(r)$|s*?[t]^\\')).toBe('special');
    expect(find('GET', '/pq(r)$|s*?[t]^\\')).toBeUndefined();
    expect(find('GET', '/ppq(r)$|s*?[t]^\\')).toBeUndefined();
  });

  it('matches the method; HEAD is GET', () => {
    expect(find('HEAD', '/a.b/1')).toBe('dotted');
    expect(find('POST', '/a.b/1')).toBeUndefined();
    expect(find('GET', '/x/1/y/2')).toBeUndefined();
    expect(find('HEAD', '/x/1/y/2')).toBeUndefined();
  });

  it('the contract by default', () => {
    const contract = compileSecurity();
    expect(findOperation(contract, 'GET', '/sessions/ses_1/events')?.operationId).toBe('streamSessionEvents');
    expect(findOperation(contract, 'DELETE', '/auth/tokens/tok_1')?.operationId).toBe('revokeApiToken');
  });
});

describe('authenticate, on the contract', () => {
  it('public operations and pages pass with no credentials, and no user', async () => {
    const a = app();
    for (const [method, path] of [
      ['GET', '/health'],
      ['HEAD', '/health'],
      ['POST', '/auth/login'],
      ['GET', '/'],
      ['GET', '/docs/x'],
    ]) {
      const res = await a.request(`http://localhost${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(200);
      if (method !== 'HEAD') expect(await res.json()).toEqual({ user: null, via: null });
    }
  });

  it('everything else needs credentials, operation or not', async () => {
    const a = app();
    expect401(await send(a, '/providers'), NO_CREDENTIALS);
    expect401(await send(a, '/nope'), NO_CREDENTIALS);
    expect401(await send(a, '/', { method: 'POST' }), NO_CREDENTIALS);
    expect401(await send(a, '/health', { method: 'POST' }), NO_CREDENTIALS);
  });

  it('a bearer token: the user and the token it came by', async () => {
    const a = app();
    expect(await send(a, '/providers', { headers: bearer(who.alice.token) })).toMatchObject({
      status: 200,
      body: { user: 'alice', via: { kind: 'token', id: who.alice.tokenId } },
    });
    // Any operation, or none: the default is any valid credentials.
    expect((await send(a, '/nope', { headers: bearer(who.alice.token) })).body.user).toBe('alice');
    expect((await send(a, '/sessions/ses_1', { method: 'DELETE', headers: bearer(who.alice.token) })).body.user).toBe('alice');
  });

  it('the Authorization header is read strictly: scheme in any case, spaces around, nothing else', async () => {
    const a = app();
    const t = who.alice.token;
    for (const header of [`bearer ${t}`, `BEARER ${t}`, `Bearer   ${t}`, `Bearer ${t}  `]) {
      expect((await send(a, '/providers', { headers: { authorization: header } })).body.user, header).toBe('alice');
    }
    for (const header of [`Bearer ${t} x`, `Bearer ${t}\u00e9`, 'Bearer ', 'Bearer']) {
      expect401(await send(a, '/providers', { headers: { authorization: header } }), BAD_TOKEN);
    }
    // Not the Bearer scheme at all: the answer says which scheme to use.
    for (const header of [`Bearer${t}`, `xBearer ${t}`, `Basic ${t}`, t, '']) {
      expect401(await send(a, '/providers', { headers: { authorization: header } }), NOT_BEARER);
    }
  });

  it('a request with a token is judged by the token alone, never by a cookie beside it', async () => {
    const a = app();
    const got = await send(a, '/providers', { headers: { ...bearer('csk_unknown'), ...cookie(who.alice.cookie) } });
    expect401(got, BAD_TOKEN);
    expect(got.headers.get('set-cookie')).toBeNull();
    expect((await send(a, '/providers', { headers: { ...bearer(who.root.token), ...cookie(who.alice.cookie) } })).body.user).toBe(
      'root',
    );
  });

  it('a revoked token is refused', async () => {
    const { token, id } = await accounts.createToken(who.alice.id, 'short-lived');
    const a = app();
    expect((await send(a, '/providers', { headers: bearer(token) })).status).toBe(200);
    await accounts.revokeToken(who.alice.id, id);
    expect401(await send(a, '/providers', { headers: bearer(token) }), BAD_TOKEN);
  });

  it('the session cookie: the user and the sign-in it came by', async () => {
    expect(await send(app(), '/providers', { headers: cookie(who.alice.cookie) })).toMatchObject({
      status: 200,
      body: { user: 'alice', via: { kind: 'signIn', id: who.alice.signInId } },
    });
  });

  it('a cookie that is no sign-in is refused and cleared', async () => {
    const got = await send(app(), '/providers', { headers: cookie('not-a-sign-in') });
    expect401(got, ENDED);
    const cleared = got.headers.get('set-cookie') ?? '';
    expect(cleared).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    expect(cleared).toContain('Max-Age=0');
    expect(cleared).toContain('Path=/');
  });

  it('a cookie of up to 100 characters is looked up; a longer one never is', async () => {
    const signIn = async (secret: string) => {
      const now = new Date();
      await db.accounts.createSignIn({
        id: randomId('sgn'),
        userId: who.alice.id,
        secretHash: hashSecret(secret),
        createdAt: now.toISOString(),
        lastSeenAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
        epoch: 0,
      });
    };
    const a = app();
    const hundred = 'c'.repeat(100);
    await signIn(hundred);
    expect((await send(a, '/providers', { headers: cookie(hundred) })).body.user).toBe('alice');
    const longer = 'd'.repeat(101);
    await signIn(longer);
    expect401(await send(a, '/providers', { headers: cookie(longer) }), ENDED);
  });

  it('admin operations: a user is forbidden, whichever credential; an admin passes', async () => {
    const a = app();
    for (const headers of [bearer(who.alice.token), cookie(who.alice.cookie)]) {
      const got = await send(a, '/users', { headers });
      expect(got.status).toBe(403);
      expect(got.body).toMatchObject({ code: 'forbidden', detail: 'Only admins may do this.' });
    }
    expect((await send(a, '/users', { headers: bearer(who.root.token) })).body.user).toBe('root');
    expect((await send(a, '/users', { headers: cookie(who.root.cookie) })).body.user).toBe('root');
  });
});

describe('authenticate: a cookie must come from our own origin to change anything', () => {
  const post = (headers: Record<string, string>, a = app()) =>
    send(a, '/auth/logout', { method: 'POST', headers: { ...cookie(who.alice.cookie), ...headers } });

  it('Origin, else Referer, else Sec-Fetch-Site: same-origin', async () => {
    expect((await post({ origin: 'http://localhost' })).status).toBe(200);
    expect((await post({ referer: 'http://localhost/#/sessions' })).status).toBe(200);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    for (const headers of [
      {},
      { origin: 'http://evil.example' },
      { origin: 'http://localhost:8080' },
      { origin: 'null' },
      { origin: 'http://evil.example', referer: 'http://localhost/' },
      { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' },
      { referer: 'http://evil.example/page' },
      { referer: 'not a url' },
      { referer: 'http://evil.example/', 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ] as Record<string, string>[]) {
      const got = await post(headers);
      expect(got.status, JSON.stringify(headers)).toBe(403);
      expect(got.body).toMatchObject({ code: 'forbidden', detail: CROSS_SITE });
    }
  });

  it('the public origin is ours too', async () => {
    const a = app({ publicOrigin: new URL('https://consilium.example.com/') });
    expect((await post({ origin: 'https://consilium.example.com' }, a)).status).toBe(200);
    expect((await post({ referer: 'https://consilium.example.com/x' }, a)).status).toBe(200);
    expect((await post({ origin: 'http://localhost' }, a)).status).toBe(200);
    expect((await post({ origin: 'https://other.example.com' }, a)).status).toBe(403);
    expect((await post({ origin: 'https://consilium.example.com' })).status).toBe(403);
  });

  it('reads (GET, HEAD, OPTIONS) pass from anywhere; so does a bearer token', async () => {
    const a = app();
    const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      const res = await a.request('http://localhost/providers', { method, headers: { ...cookie(who.alice.cookie), ...evil } });
      expect(res.status, method).toBe(200);
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await a.request('http://localhost/providers', { method, headers: { ...cookie(who.alice.cookie), ...evil } });
      expect(res.status, method).toBe(403);
    }
    expect((await send(a, '/auth/logout', { method: 'POST', headers: { ...bearer(who.alice.token), ...evil } })).status).toBe(
      200,
    );
  });
});

describe('authenticate, on security the contract does not declare', () => {
  const table: Record<string, OperationSecurity> = {
    tokenOnly: { method: 'GET', path: '/token-only', security: [{ bearerAuth: [] }] },
    cookieOnly: { method: 'GET', path: '/cookie-only', security: [{ cookieAuth: [] }] },
    optional: { method: 'GET', path: '/optional', security: [{ bearerAuth: [] }, {}] },
    adminByToken: { method: 'GET', path: '/admin-by-token', security: [{ bearerAuth: ['admin'] }, { cookieAuth: [] }] },
    either: { method: 'GET', path: '/either', security: [{ bearerAuth: ['admin'] }, { bearerAuth: [] }] },
    roles: { method: 'GET', path: '/roles', security: [{ bearerAuth: ['auditor', 'admin'] }] },
  };
  const a = () => app({ table });

  it('an operation that takes one scheme refuses the other', async () => {
    expect((await send(a(), '/token-only', { headers: bearer(who.alice.token) })).body.user).toBe('alice');
    expect401(
      await send(a(), '/token-only', { headers: cookie(who.alice.cookie) }),
      'This operation does not accept the session cookie.',
    );
    expect((await send(a(), '/cookie-only', { headers: cookie(who.alice.cookie) })).body.user).toBe('alice');
    expect401(
      await send(a(), '/cookie-only', { headers: bearer(who.alice.token) }),
      'This operation does not accept bearer tokens.',
    );
  });

  it('an empty requirement makes credentials optional: not even checked', async () => {
    expect(await send(a(), '/optional')).toMatchObject({ status: 200, body: { user: null } });
    expect(await send(a(), '/optional', { headers: bearer('csk_unknown') })).toMatchObject({ status: 200, body: { user: null } });
  });

  it('roles are per requirement: any one that holds is enough', async () => {
    const forbidden = await send(a(), '/admin-by-token', { headers: bearer(who.alice.token) });
    expect(forbidden.status).toBe(403);
    expect((await send(a(), '/admin-by-token', { headers: bearer(who.root.token) })).body.user).toBe('root');
    expect((await send(a(), '/admin-by-token', { headers: cookie(who.alice.cookie) })).body.user).toBe('alice');
    expect((await send(a(), '/either', { headers: bearer(who.alice.token) })).body.user).toBe('alice');
    expect((await send(a(), '/roles', { headers: bearer(who.root.token) })).body.user).toBe('root');
    expect((await send(a(), '/roles', { headers: bearer(who.alice.token) })).status).toBe(403);
  });

  it('paths outside the table need credentials', async () => {
    expect401(await send(a(), '/providers'), NO_CREDENTIALS);
    expect((await send(a(), '/providers', { headers: cookie(who.alice.cookie) })).body.user).toBe('alice');
  });
});

describe('sameOrigin and secureCookies', () => {
  async function judge(url: string, headers: Record<string, string>, publicOrigin?: URL) {
    const a = new Hono();
    a.all('*', (c) => c.json({ same: sameOrigin(c, publicOrigin), secure: secureCookies(c, publicOrigin) }));
    return (await a.request(url, { headers })).json();
  }

  it('own origin includes the port and the scheme', async () => {
    expect(await judge('http://svc:8080/x', { origin: 'http://svc:8080' })).toEqual({ same: true, secure: false });
    expect(await judge('http://svc:8080/x', { origin: 'http://svc' })).toEqual({ same: false, secure: false });
    expect(await judge('http://svc:8080/x', { origin: 'https://svc:8080' })).toEqual({ same: false, secure: false });
    expect(await judge('http://svc:8080/x', { referer: 'http://svc:8080/a?b#c' })).toEqual({ same: true, secure: false });
    expect(await judge('http://svc:8080/x', {})).toEqual({ same: false, secure: false });
  });

  it('cookies are Secure over HTTPS, or when the service is published over it', async () => {
    expect(await judge('https://svc/x', { origin: 'https://svc' })).toEqual({ same: true, secure: true });
    expect(await judge('http://svc/x', {}, new URL('https://public.example'))).toEqual({ same: false, secure: true });
    expect(await judge('http://svc/x', { origin: 'https://public.example' }, new URL('https://public.example'))).toEqual({
      same: true,
      secure: true,
    });
    expect(await judge('http://svc/x', {}, new URL('http://public.example'))).toEqual({ same: false, secure: false });
  });
});
