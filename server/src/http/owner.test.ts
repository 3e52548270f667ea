/**
 * Owner resolution: whose sessions a request may see, from the user `authenticate` put on the context,
 * and the owner of sessions written before accounts existed, whom the first admin adopts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import { Accounts } from '../accounts/accounts.js';
import { ALL_OWNERS } from '../sessions/sessions.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import type { AppEnv } from './deps.js';
import { LOCAL_OWNER, ownerOf, scopeOf } from './owner.js';

/** What `ownerOf` and `scopeOf` give for a request made as `user` (none: no authenticated user). */
async function resolve(user?: { id: string; role: 'admin' | 'user' }) {
  const app = new Hono<AppEnv>();
  app.onError((error, c) => c.json({ error: error.message }, 500));
  app.get('/', (c) => {
    if (user) c.set('user', { ...user, username: 'u', disabled: false, createdAt: '2026-01-01T00:00:00.000Z' });
    const scope = scopeOf(c);
    return c.json({ owner: ownerOf(c), all: scope === ALL_OWNERS, scope: scope === ALL_OWNERS ? null : scope });
  });
  const res = await app.request('/');
  return { status: res.status, body: await res.json() };
}

describe('owner resolution', () => {
  it('a user owns what they start and sees only their own; an admin sees every session', async () => {
    expect(await resolve({ id: 'usr_a', role: 'user' })).toEqual({
      status: 200,
      body: { owner: 'usr_a', all: false, scope: 'usr_a' },
    });
    expect(await resolve({ id: 'usr_b', role: 'admin' })).toEqual({
      status: 200,
      body: { owner: 'usr_b', all: true, scope: null },
    });
  });

  it('without an authenticated user it is a bug, said as such, never an anonymous owner', async () => {
    expect(await resolve()).toEqual({ status: 500, body: { error: 'no authenticated user on the request' } });
    const app = new Hono<AppEnv>();
    app.onError((error, c) => c.json({ error: error.message }, 500));
    app.get('/', (c) => c.json({ owner: ownerOf(c) }));
    expect(await (await app.request('/')).json()).toEqual({ error: 'no authenticated user on the request' });
  });
});

describe('sessions from before accounts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-owner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the first admin adopts the sessions a pre-accounts version stored (owner "local")', async () => {
    const db = await SqliteDatabase.open(join(dir, 'sessions.db'));
    try {
      // What the versions before accounts wrote: the owner literally `local` (migration 2's note).
      const old = new FakeDebate({ owner: 'local' });
      await db.sessions.write(old.start().step());
      const accounts = new Accounts({
        store: db.accounts,
        signInIdleMs: 60_000,
        signInMaxMs: 60_000,
        scrypt: { N: 16, r: 1, p: 1 },
      });
      await accounts.bootstrap({ password: 'admin-password', adopt: LOCAL_OWNER });
      const admin = (await accounts.findUser('admin'))!;
      expect((await db.sessions.get(old.session.id))?.owner).toBe(admin.id);
    } finally {
      await db.close();
    }
  });
});
