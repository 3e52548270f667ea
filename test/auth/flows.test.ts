/**
 * Signing in and out, tokens, CSRF, roles and isolation over a real socket: what a browser and a
 * script do, and what must stop working at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../support/lazy.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';

let server: RunningServer;
beforeFirstTest(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const json = { 'content-type': 'application/json' };

async function login(username: string, password: string, headers: Record<string, string> = {}) {
  return fetch(`${server.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify({ username, password }),
  });
}

/** Signs in and returns the cookie to send back (`name=value`). */
async function cookieOf(who: Caller): Promise<string> {
  const res = await login(who.user.username, who.password);
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const withCookie = (cookie: string, path: string, init: RequestInit = {}) =>
  fetch(`${server.baseUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie } });

describe('POST /auth/login', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie on Path=/ with an expiry, not Secure over plain http', async () => {
    const res = await login(server.user.username, server.password);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: { id: string }; expiresAt: string };
    expect(body.user.id).toBe(server.user.id);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^consilium_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    // Cookie dates have whole seconds.
    expect(Date.parse(/; Expires=([^;]+)/.exec(cookie)![1]!)).toBe(Math.floor(Date.parse(body.expiresAt) / 1000) * 1000);
    expect(cookie).not.toMatch(/Secure/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a wrong password, an unknown user and a disabled one alike', async () => {
    const other = await server.newUser();
    await server.accounts.updateUser(other.user.id, { disabled: true });
    for (const [username, password] of [
      [server.user.username, 'wrong-password'],
      ['nobody-at-all', 'whatever-password'],
      [other.user.username, other.password],
    ] as const) {
      const res = await login(username, password);
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
  });

  it('takes the username without case', async () => {
    expect((await login(server.user.username.toUpperCase(), server.password)).status).toBe(200);
  });

  it('refuses a sign-in posted from another origin (login CSRF)', async () => {
    expect((await login(server.user.username, server.password, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await login(server.user.username, server.password, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await login(server.user.username, server.password, { origin: server.baseUrl })).status).toBe(200);
  });
});

describe('the session cookie', () => {
  it('authenticates, and stops working on the next request after logout', async () => {
    const cookie = await cookieOf(server);
    expect(await (await withCookie(cookie, '/auth/me')).json()).toMatchObject({ id: server.user.id });
    const out = await withCookie(cookie, '/auth/logout', { method: 'POST', headers: { origin: server.baseUrl } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^consilium_session=; Max-Age=0/);
    const after = await withCookie(cookie, '/auth/me');
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ code: 'unauthorized' });
  });

  it('is refused on an unsafe request that does not come from the service’s own origin (CSRF)', async () => {
    const cookie = await cookieOf(server);
    const create = (headers: Record<string, string>) =>
      withCookie(cookie, '/auth/tokens', {
        method: 'POST',
        headers: { ...json, ...headers },
        body: JSON.stringify({ name: 'x' }),
      });
    for (const headers of [
      {} as Record<string, string>,
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { referer: 'https://evil.example/page' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: server.baseUrl.replace('127.0.0.1', 'localhost') },
    ]) {
      const res = await create(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'forbidden' });
    }
    expect(await server.accounts.listTokens(server.user.id)).toHaveLength(1);
    for (const headers of [
      { origin: server.baseUrl } as Record<string, string>,
      { referer: `${server.baseUrl}/#/sessions` },
      { 'sec-fetch-site': 'same-origin' },
    ]) {
      expect((await create(headers)).status, JSON.stringify(headers)).toBe(201);
    }
    // Safe methods need no origin; bearer tokens are not sent by browsers on their own, so they need none either.
    expect((await withCookie(cookie, '/sessions')).status).toBe(200);
    const bearer = await server.fetch('/auth/tokens', { method: 'POST', headers: json, body: JSON.stringify({ name: 'y' }) });
    expect(bearer.status).toBe(201);
  });

  it('a bearer token is judged alone, never rescued by a cookie beside it', async () => {
    const cookie = await cookieOf(server);
    const res = await withCookie(cookie, '/auth/me', { headers: { authorization: 'Bearer csk_not-a-token' } });
    expect(res.status).toBe(401);
  });
});

describe('API tokens', () => {
  it('are shown once, listed without their secret, and stop working on the next request once revoked', async () => {
    const created = await server.fetch('/auth/tokens', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'ci', expiresInDays: 30 }),
    });
    expect(created.status).toBe(201);
    const token = (await created.json()) as { id: string; token: string; prefix: string; expiresAt: string };
    expect(token.token).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
    expect(token.token.startsWith(token.prefix)).toBe(true);
    expect(Date.parse(token.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const listed = await (await server.fetch('/auth/tokens')).text();
    expect(listed).toContain(token.id);
    expect(listed).not.toContain(token.token);

    const use = () => fetch(`${server.baseUrl}/auth/me`, { headers: { authorization: `Bearer ${token.token}` } });
    expect((await use()).status).toBe(200);
    expect((await server.accounts.listTokens(server.user.id)).find((t) => t.id === token.id)?.lastUsedAt).toBeDefined();
    expect((await server.fetch(`/auth/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await use()).status).toBe(401);
    expect((await server.fetch(`/auth/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('are stored only as a hash', async () => {
    const { token } = await server.accounts.createToken(server.user.id, 'hashed');
    const stored = await server.accounts.store.listTokens(server.user.id);
    expect(JSON.stringify(stored)).not.toContain(token.slice(4));
    const user = await server.accounts.store.getUser(server.user.id);
    expect(user!.passwordHash).toMatch(new RegExp(`^scrypt\\$${server.scrypt.N}\\$${server.scrypt.r}\\$${server.scrypt.p}\\$`));
    expect(user!.passwordHash).not.toContain(server.password);
  });
});

describe('disabling a user', () => {
  it('ends their cookie sessions and stops their tokens at once; enabling lets them sign in again', async () => {
    const admin = await server.admin();
    const carol = await server.newUser();
    const cookie = await cookieOf(carol);
    const patch = (disabled: boolean) =>
      admin.fetch(`/users/${carol.user.id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ disabled }) });
    expect(await (await patch(true)).json()).toMatchObject({ id: carol.user.id, disabled: true });
    expect((await withCookie(cookie, '/auth/me')).status).toBe(401);
    expect((await carol.fetch('/auth/me')).status).toBe(401);
    expect((await patch(false)).status).toBe(200);
    expect((await carol.fetch('/auth/me')).status).toBe(200);
    // The cookie session stays ended; signing in again works.
    expect((await withCookie(cookie, '/auth/me')).status).toBe(401);
    expect((await login(carol.user.username, carol.password)).status).toBe(200);
  });
});

describe('passwords', () => {
  it('change with the current one, ending the other cookie sessions but keeping this one', async () => {
    const dave = await server.newUser();
    const here = await cookieOf(dave);
    const elsewhere = await cookieOf(dave);
    const change = (currentPassword: string, newPassword: string) =>
      withCookie(here, '/auth/password', {
        method: 'POST',
        headers: { ...json, origin: server.baseUrl },
        body: JSON.stringify({ currentPassword, newPassword }),
      });
    const wrong = await change('not-the-password', 'a-new-password-1');
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ errors: [{ path: 'body.currentPassword' }] });
    expect((await change(dave.password, 'short')).status).toBe(400);
    expect((await change(dave.password, 'a-new-password-1')).status).toBe(204);
    expect((await withCookie(here, '/auth/me')).status).toBe(200);
    expect((await withCookie(elsewhere, '/auth/me')).status).toBe(401);
    expect((await login(dave.user.username, dave.password)).status).toBe(401);
    expect((await login(dave.user.username, 'a-new-password-1')).status).toBe(200);
  });
});

describe('admins', () => {
  it('list every session only when they ask (owner=all); users may not ask', async () => {
    const admin = await server.admin();
    const erin = await server.newUser();
    const started = await erin.fetch('/consilium', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ question: 'Erin asks?' }),
    });
    const { sessionId } = (await started.json()) as { sessionId: string };
    const ids = async (who: Caller, query = '') =>
      ((await (await who.fetch(`/sessions${query}`)).json()) as { items: { id: string }[] }).items.map((s) => s.id);
    expect(await ids(admin)).not.toContain(sessionId);
    expect(await ids(admin, '?owner=all')).toContain(sessionId);
    expect(await ids(erin)).toEqual([sessionId]);
    const refused = await erin.fetch('/sessions?owner=all');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'forbidden' });
    // By id, an admin may open what the list showed them.
    expect((await admin.fetch(`/sessions/${sessionId}`)).status).toBe(200);
    expect((await server.fetch(`/sessions/${sessionId}`)).status).toBe(404);
  });

  it('create users (with a generated password shown once), refuse a taken name, reset passwords and remove users', async () => {
    const admin = await server.admin();
    const created = await admin.fetch('/users', { method: 'POST', headers: json, body: JSON.stringify({ username: 'frank' }) });
    expect(created.status).toBe(201);
    const { user, password } = (await created.json()) as { user: { id: string; role: string }; password: string };
    expect(user.role).toBe('user');
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect((await login('frank', password)).status).toBe(200);
    const again = await admin.fetch('/users', { method: 'POST', headers: json, body: JSON.stringify({ username: 'FRANK' }) });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'conflict' });

    const reset = await admin.fetch(`/users/${user.id}/password`, { method: 'POST', headers: json, body: '{}' });
    const { password: next } = (await reset.json()) as { password: string };
    expect((await login('frank', password)).status).toBe(401);
    expect((await login('frank', next)).status).toBe(200);

    const listed = (await (await admin.fetch('/users')).json()) as { items: { id: string }[] };
    expect(listed.items.map((u) => u.id)).toContain(user.id);
    expect(JSON.stringify(listed)).not.toMatch(/scrypt|passwordHash/);
    expect((await admin.fetch(`/users/${user.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await login('frank', next)).status).toBe(401);
    expect((await admin.fetch(`/users/${user.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('cannot disable, demote or remove the last enabled admin', async () => {
    const lone = await startServer();
    try {
      const first = (await lone.accounts.findUser('admin'))!;
      const admin = await lone.newUser({ role: 'admin' });
      expect((await admin.fetch(`/users/${first.id}`, { method: 'DELETE' })).status).toBe(204);
      for (const [method, body] of [
        ['PATCH', { disabled: true }],
        ['PATCH', { role: 'user' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await admin.fetch(`/users/${admin.user.id}`, {
          method,
          headers: json,
          ...(body && { body: JSON.stringify(body) }),
        });
        expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(409);
      }
      expect((await admin.fetch('/auth/me')).status).toBe(200);
    } finally {
      await lone.close();
    }
  });
});
