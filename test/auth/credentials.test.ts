/**
 * When credentials end, over a real socket, on SQLite and on PostgreSQL: an admin's password reset and disabling end
 * every sign-in and token of the user (re-enabling revives none); a user's own change ends the others unless told not to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';

const json = { 'content-type': 'application/json' };

let pg: TestPostgres | undefined;
afterAll(() => pg?.stop());

const stores: [string, () => Promise<Record<string, string>>, boolean][] = [
  ['SQLite', async () => ({}), true],
  [
    'PostgreSQL',
    async () => {
      pg ??= await startPostgres();
      return { CONSILIUM_DATABASE: await pg.createDatabase() };
    },
    postgres.available,
  ],
];

describe.each(stores)('credentials end on %s', (_, env, available) => {
  let server: RunningServer;
  beforeAll(async () => {
    if (available) server = await startServer(await env());
  });
  afterAll(() => server?.close());

  /** A fresh sign-in's cookie (`name=value`). */
  const cookieOf = async (who: Caller, password = who.password): Promise<string> => {
    const res = await fetch(`${server.baseUrl}/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username: who.user.username, password }),
    });
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie')!.split(';')[0]!;
  };
  const meWith = async (headers: Record<string, string>) => (await fetch(`${server.baseUrl}/auth/me`, { headers })).status;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  /** Another token of the user's, made with their cookie. */
  const tokenOf = async (cookie: string, name: string): Promise<string> => {
    const res = await fetch(`${server.baseUrl}/auth/tokens`, {
      method: 'POST',
      headers: { ...json, cookie, origin: server.baseUrl },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  };
  const tokenNames = async (who: Caller | string) => {
    const res =
      typeof who === 'string'
        ? await fetch(`${server.baseUrl}/auth/tokens`, { headers: bearer(who) })
        : await who.fetch('/auth/tokens');
    return ((await res.json()) as { items: { name: string }[] }).items.map((t) => t.name);
  };

  it.skipIf(!available)("an admin's reset ends every sign-in and token of the user", async () => {
    const admin = await server.admin();
    const ann = await server.newUser();
    const cookie = await cookieOf(ann);
    const spare = await tokenOf(cookie, 'spare');
    expect([await meWith({ cookie }), await meWith(bearer(ann.token)), await meWith(bearer(spare))]).toEqual([200, 200, 200]);
    const reset = await admin.fetch(`/users/${ann.user.id}/password`, { method: 'POST', headers: json, body: '{}' });
    const { password } = (await reset.json()) as { password: string };
    expect([await meWith({ cookie }), await meWith(bearer(ann.token)), await meWith(bearer(spare))]).toEqual([401, 401, 401]);
    // The new password signs in, and makes tokens that work.
    const fresh = await tokenOf(await cookieOf(ann, password), 'fresh');
    expect(await meWith(bearer(fresh))).toBe(200);
    expect(await tokenNames(fresh)).toEqual(['fresh']);
  });

  it.skipIf(!available)("disabling ends them; re-enabling revives none, the user's tokens listed included", async () => {
    const admin = await server.admin();
    const ben = await server.newUser();
    const cookie = await cookieOf(ben);
    const patch = (disabled: boolean) =>
      admin.fetch(`/users/${ben.user.id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ disabled }) });
    expect((await patch(true)).status).toBe(200);
    expect([await meWith({ cookie }), await meWith(bearer(ben.token))]).toEqual([401, 401]);
    expect((await patch(false)).status).toBe(200);
    expect([await meWith({ cookie }), await meWith(bearer(ben.token))]).toEqual([401, 401]);
    const again = await cookieOf(ben);
    expect(await meWith({ cookie: again })).toBe(200);
    const res = await fetch(`${server.baseUrl}/auth/tokens`, { headers: { cookie: again } });
    expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
  });

  it.skipIf(!available)('an own change ends the other sign-ins and tokens by default, keeping the one asking', async () => {
    const cy = await server.newUser();
    const here = await cookieOf(cy);
    const there = await cookieOf(cy);
    const spare = await tokenOf(here, 'spare');
    const res = await fetch(`${server.baseUrl}/auth/password`, {
      method: 'POST',
      headers: { ...json, cookie: here, origin: server.baseUrl },
      body: JSON.stringify({ currentPassword: cy.password, newPassword: 'cy-second-password' }),
    });
    expect(res.status).toBe(204);
    expect(await meWith({ cookie: here })).toBe(200);
    expect([await meWith({ cookie: there }), await meWith(bearer(cy.token)), await meWith(bearer(spare))]).toEqual([
      401, 401, 401,
    ]);
  });

  it.skipIf(!available)(
    'an own change with endOtherCredentials: false keeps them all; true, by token, keeps that token',
    async () => {
      const dot = await server.newUser();
      const cookie = await cookieOf(dot);
      const spare = await tokenOf(cookie, 'spare');
      const change = (currentPassword: string, newPassword: string, endOtherCredentials: boolean) =>
        dot.fetch('/auth/password', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ currentPassword, newPassword, endOtherCredentials }),
        });
      expect((await change(dot.password, 'dot-second-password', false)).status).toBe(204);
      expect([await meWith({ cookie }), await meWith(bearer(dot.token)), await meWith(bearer(spare))]).toEqual([200, 200, 200]);
      expect((await change('dot-second-password', 'dot-third-password', true)).status).toBe(204);
      expect([await meWith({ cookie }), await meWith(bearer(dot.token)), await meWith(bearer(spare))]).toEqual([401, 200, 401]);
      expect(await tokenNames(dot)).toHaveLength(1);
    },
  );
});
