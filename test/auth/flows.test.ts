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
  it('ends their cookie sessions and revokes their tokens at once, for good; enabling lets them sign in again', async () => {
    const admin = await server.admin();
    const carol = await server.newUser();
    const cookie = await cookieOf(carol);
    const patch = (disabled: boolean) =>
      admin.fetch(`/users/${carol.user.id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ disabled }) });
    expect(await (await patch(true)).json()).toMatchObject({ id: carol.user.id, disabled: true });
    expect((await withCookie(cookie, '/auth/me')).status).toBe(401);
    expect((await carol.fetch('/auth/me')).status).toBe(401);
    expect((await patch(false)).status).toBe(200);
    expect((await carol.fetch('/auth/me')).status).toBe(401);
    // The cookie session stays ended, as does the token; signing in again works.
    expect((await withCookie(cookie, '/auth/me')).status).toBe(401);
    expect((await login(carol.user.username, carol.password)).status).toBe(200);
  });
});

describe('passwords', () => {
  it('change with the current one, ending the other cookie sessions and the tokens but keeping this one', async () => {
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
    expect((await dave.fetch('/auth/me')).status).toBe(401);
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

describe('account problems, exactly', () => {
  const problemOf = async (res: Response) => {
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    return (await res.json()) as { status: number; code: string; detail: string; errors?: unknown };
  };

  it('sign-in: a wrong password and a cross-site post say so; Sec-Fetch-Site other than cross-site alone passes', async () => {
    expect(await problemOf(await login(server.user.username, 'wrong-password'))).toMatchObject({
      status: 401,
      code: 'unauthorized',
      detail: 'Wrong username or password, or the user is disabled.',
    });
    expect(await problemOf(await login(server.user.username, server.password, { origin: 'https://evil.example' }))).toMatchObject(
      {
        status: 403,
        code: 'forbidden',
        detail: 'Sign in from this service’s own origin.',
      },
    );
    expect((await login(server.user.username, server.password, { 'sec-fetch-site': 'same-site' })).status).toBe(200);
    expect((await login(server.user.username, server.password, { 'sec-fetch-site': 'none' })).status).toBe(200);
  });

  it('logout clears the cookie exactly; with a bearer token it ends nothing and sets no cookie', async () => {
    const cookie = await cookieOf(server);
    const out = await withCookie(cookie, '/auth/logout', { method: 'POST', headers: { origin: server.baseUrl } });
    expect(out.headers.get('set-cookie')).toBe('consilium_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    const other = await server.newUser();
    const kept = await cookieOf(other);
    const viaToken = await other.fetch('/auth/logout', { method: 'POST' });
    expect(viaToken.status).toBe(204);
    expect(viaToken.headers.get('set-cookie')).toBeNull();
    expect((await other.fetch('/auth/me')).status).toBe(200);
    expect((await withCookie(kept, '/auth/me')).status).toBe(200);
  });

  it('a password change with the wrong current one names its field', async () => {
    const gina = await server.newUser();
    const change = (currentPassword: string, newPassword: string) =>
      gina.fetch('/auth/password', { method: 'POST', headers: json, body: JSON.stringify({ currentPassword, newPassword }) });
    expect(await problemOf(await change('not-the-password', 'a-new-password-1'))).toEqual(
      expect.objectContaining({
        status: 400,
        code: 'validation_failed',
        detail: 'The current password is wrong.',
        errors: [{ path: 'body.currentPassword', message: 'does not match' }],
      }),
    );
  });

  it('tokens: the secret is never cached; revoking one that is not yours (or none) is 404', async () => {
    const created = await server.fetch('/auth/tokens', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'cache' }),
    });
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { id } = (await created.json()) as { id: string };
    const other = await server.newUser();
    expect(await problemOf(await other.fetch(`/auth/tokens/${id}`, { method: 'DELETE' }))).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: `No token "${id}".`,
    });
    expect((await server.fetch(`/auth/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('user management: the domain’s refusals as problems (what the contract lets through: the field-level ones are unit-tested)', async () => {
    const admin = await server.admin();
    const send = (method: string, path: string, body?: unknown) =>
      admin.fetch(path, { method, headers: json, ...(body !== undefined && { body: JSON.stringify(body) }) });

    const created = await send('POST', '/users', { username: 'hana', password: 'hana-password-1' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { user } = (await created.json()) as { user: { id: string } };
    expect(await problemOf(await send('POST', '/users', { username: 'HANA' }))).toEqual(
      expect.objectContaining({ status: 409, code: 'conflict', detail: 'The username "HANA" is taken.' }),
    );

    const missing = 'usr_missing';
    for (const [method, path, body] of [
      ['PATCH', `/users/${missing}`, { disabled: true }],
      ['DELETE', `/users/${missing}`, undefined],
      ['POST', `/users/${missing}/password`, {}],
    ] as const) {
      expect(await problemOf(await send(method, path, body)), `${method} ${path}`).toMatchObject({
        status: 404,
        code: 'not_found',
        detail: `No user "${missing}".`,
      });
    }

    const reset = await send('POST', `/users/${user.id}/password`, { password: 'hana-password-2' });
    expect(reset.status).toBe(200);
    expect(reset.headers.get('cache-control')).toBe('no-store');
    expect(await reset.json()).toEqual({});
    expect((await login('hana', 'hana-password-2')).status).toBe(200);
    expect(await (await send('PATCH', `/users/${user.id}`, { role: 'admin' })).json()).toMatchObject({
      id: user.id,
      role: 'admin',
    });
  });

  it('the last admin: a conflict with its reason, and no field', async () => {
    const lone = await startServer();
    try {
      const first = (await lone.accounts.findUser('admin'))!;
      const admin = await lone.newUser({ role: 'admin' });
      expect((await admin.fetch(`/users/${first.id}`, { method: 'DELETE' })).status).toBe(204);
      const body = await problemOf(await admin.fetch(`/users/${admin.user.id}`, { method: 'DELETE' }));
      expect(body).toMatchObject({
        status: 409,
        code: 'conflict',
        detail: 'This is the last enabled admin; make another admin first.',
      });
      expect(body.errors).toBeUndefined();
      // The lists, on this server of its own: a test that starts one is the only one StrykerJS credits with the
      // handlers' construction (see test/README.md, "Mutation testing"), so an emptied handler is caught here too.
      const users = (await (await admin.fetch('/users')).json()) as { items: { id: string }[] };
      expect(users.items.map((u) => u.id).sort()).toEqual([admin.user.id, lone.user.id].sort());
      const tokens = (await (await admin.fetch('/auth/tokens')).json()) as { items: { name: string }[] };
      expect(tokens.items.map((t) => t.name)).toEqual(['tests']);
    } finally {
      await lone.close();
    }
  });
});

describe('published over HTTPS (CONSILIUM_PUBLIC_ORIGIN=https://…)', () => {
  it('the session cookie is Secure, set and cleared, even though this hop is plain http', async () => {
    const published = await startServer({ CONSILIUM_PUBLIC_ORIGIN: 'https://consilium.example.com' });
    try {
      const res = await fetch(`${published.baseUrl}/auth/login`, {
        method: 'POST',
        headers: { ...json, origin: 'https://consilium.example.com' },
        body: JSON.stringify({ username: published.user.username, password: published.password }),
      });
      expect(res.status).toBe(200);
      const set = res.headers.get('set-cookie')!;
      expect(set).toMatch(/; Secure/);
      const out = await fetch(`${published.baseUrl}/auth/logout`, {
        method: 'POST',
        headers: { cookie: set.split(';')[0]!, origin: 'https://consilium.example.com' },
      });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toBe('consilium_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
    } finally {
      await published.close();
    }
  });
});
