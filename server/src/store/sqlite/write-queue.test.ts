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
