import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import type { UserRecord } from '../accounts/store.js';
import { openDatabase } from './open.js';

const dir = mkdtempSync(join(tmpdir(), 'consilium-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const admin: UserRecord = {
  id: 'usr_open',
  username: 'open',
  role: 'admin',
  passwordHash: 'scrypt$16384$8$1$c2FsdA$open',
  disabled: false,
  epoch: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('openDatabase', () => {
  it('opens a file path as SQLite: sessions and accounts in one database, backed up and closed together', async () => {
    const database = await openDatabase(join(dir, 'new', 'consilium.db'));
    expect(database.kind).toBe('sqlite');
    const before = new FakeDebate({ owner: 'local' });
    await database.sessions.write(before.start().step());
    // The first user adopts the sessions from before accounts: one store sees what the other wrote.
    expect(await database.accounts.createFirstUser(admin, 'local')).toBe(true);
    expect((await database.sessions.get(before.session.id))?.owner).toBe(admin.id);

    const copy = join(dir, 'copy.db');
    await database.backup(copy);
    await database.close();
    await expect(database.sessions.write(before.step())).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });
    await expect(database.accounts.createUser({ ...admin, id: 'usr_late', username: 'late' })).rejects.toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
    });

    const restored = await openDatabase(copy);
    try {
      expect((await restored.sessions.get(before.session.id))?.owner).toBe(admin.id);
      expect(await restored.accounts.getUser(admin.id)).toStrictEqual(admin);
    } finally {
      await restored.close();
    }
  });
});
