import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FakeDebate } from '../../../../test/support/fake-debate.js';
import { Connection } from './connection.js';
import { SqliteDatabase } from './database.js';

const dir = mkdtempSync(join(tmpdir(), 'consilium-queue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describe('the write queue both stores share', () => {
  it('commits a step and an account change queued together in one transaction; a failing job is undone alone', async () => {
    const database = await SqliteDatabase.open(join(dir, `queue-${++files}.db`));
    const exec = vi.spyOn(Connection.prototype, 'exec');
    try {
      const d = new FakeDebate({ owner: 'usr_queue' });
      const user = {
        id: 'usr_queue',
        username: 'queue',
        role: 'user' as const,
        passwordHash: 'scrypt$x',
        disabled: false,
        epoch: 0,
        createdAt: d.session.createdAt,
        updatedAt: d.session.createdAt,
      };
      exec.mockClear();
      // Queued in one turn: the drain starts after it, so all three share one transaction.
      const outcomes = await Promise.allSettled([
        database.sessions.write(d.start().step()),
        database.accounts.createUser(user),
        database.accounts.createUser({ ...user, id: 'usr_clash' }),
      ]);
      expect(outcomes.map((o) => o.status)).toStrictEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'AccountError', code: 'conflict' });
      expect(exec.mock.calls.filter(([sql]) => sql.startsWith('BEGIN IMMEDIATE'))).toHaveLength(1);
      expect(await database.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await database.accounts.getUser(user.id)).toStrictEqual(user);
      expect(await database.accounts.getUser('usr_clash')).toBeUndefined();
    } finally {
      exec.mockRestore();
      await database.close();
    }
  });

  it('writes the steps around another job in bulk, one trip for each run of them; a bad step among them fails alone', async () => {
    const database = await SqliteDatabase.open(join(dir, `queue-${++files}.db`));
    const exec = vi.spyOn(Connection.prototype, 'exec');
    try {
      const debates = Array.from({ length: 40 }, () => new FakeDebate({ owner: 'usr_bulk' }).start());
      const clash = new FakeDebate({ owner: 'usr_bulk' }).start();
      const user = {
        id: 'usr_bulk',
        username: 'bulk',
        role: 'user' as const,
        passwordHash: 'scrypt$x',
        disabled: false,
        epoch: 0,
        createdAt: clash.session.createdAt,
        updatedAt: clash.session.createdAt,
      };
      const step = clash.step();
      // The same seq twice: the events' primary key refuses it.
      const bad = { ...step, events: [...step.events, step.events[0]!] };
      exec.mockClear();
      const outcomes = await Promise.allSettled([
        ...debates.slice(0, 20).map((d) => database.sessions.write(d.step())),
        database.accounts.createUser(user),
        database.sessions.write(bad),
        ...debates.slice(20).map((d) => database.sessions.write(d.step())),
      ]);
      expect(outcomes.map((o) => o.status)).toStrictEqual([
        ...Array(21).fill('fulfilled'),
        'rejected',
        ...Array(20).fill('fulfilled'),
      ]);
      const stepTrips = exec.mock.calls.filter(([sql]) => sql.includes('INSERT INTO events'));
      // A run of 20, then one of 21 that fails on the bad step and goes again one by one: 2 + 21 trips, not 41.
      expect(stepTrips).toHaveLength(23);
      for (const d of debates) expect(await database.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await database.sessions.get(clash.session.id)).toBeUndefined();
      expect(await database.accounts.getUser(user.id)).toStrictEqual(user);
    } finally {
      exec.mockRestore();
      await database.close();
    }
  });

  it('finishes what was queued before close, then refuses more as unavailable', async () => {
    const database = await SqliteDatabase.open(join(dir, `queue-${++files}.db`));
    const d = new FakeDebate({ owner: 'usr_closing' });
    const written = database.sessions.write(d.start().step());
    await database.close();
    await written;
    await expect(database.sessions.write(d.step())).rejects.toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
      message: 'the session store is closed',
    });
    const again = await SqliteDatabase.open(database.file);
    try {
      expect((await again.sessions.get(d.session.id))?.status).toBe('running');
    } finally {
      await again.close();
    }
  });
});
