/**
 * The SQLite database on real files: the shared session and account store contracts, then what is SQLite's own — connection
 * settings, lock waits and failures, versioned migrations, and online backups (in-process and the
 * `npm run backup` CLI) that are consistent even while debates are being written.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { StoreError } from '../../server/src/sessions/store.js';
import { backupCli } from '../../server/src/store/backup.js';
import { Connection } from '../../server/src/store/sqlite/connection.js';
import { SqliteDatabase } from '../../server/src/store/sqlite/database.js';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../server/src/store/sqlite/migrations.js';
import { debateSteps, FakeDebate, rejection } from '../support/fake-debate.js';
import { describeAccountStoreContract } from './accounts-contract.js';
import { describeLimitStoreContract } from './limits-contract.js';
import { describeSessionStoreContract } from './sessions-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'consilium-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = (name = 'sessions') => join(dir, `${name}-${++files}`, 'consilium.db');

describeSessionStoreContract('sqlite', () => SqliteDatabase.open(join(dir, 'contract', 'sessions.db')));
describeAccountStoreContract('sqlite', () => SqliteDatabase.open(join(dir, 'accounts-contract', 'consilium.db')));
describeLimitStoreContract('sqlite', () => SqliteDatabase.open(join(dir, 'limits-contract', 'consilium.db')));

/** A plain connection beside the store's, as another process would have. */
async function raw(file: string): Promise<Connection> {
  const db = await Connection.open(file, sqlite3.OPEN_READWRITE);
  await db.exec('PRAGMA busy_timeout = 5000');
  return db;
}

async function writeDebate(database: SqliteDatabase, owner = 'usr_backup', rounds = 1): Promise<FakeDebate> {
  const d = new FakeDebate({ owner });
  for (const step of debateSteps(d, rounds)) await database.sessions.write(step);
  return d;
}

describe('connection settings', () => {
  it('uses WAL, foreign keys, a busy timeout and synchronous=NORMAL', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    try {
      expect(database.kind).toBe('sqlite');
      expect(await database.pragmas()).toStrictEqual({
        journalMode: 'wal',
        foreignKeys: true,
        busyTimeoutMs: 5000,
        synchronous: 1,
      });
      // WAL is a property of the file, seen by any connection.
      const other = await raw(file);
      expect(await other.first('PRAGMA journal_mode')).toStrictEqual({ journal_mode: 'wal' });
      await other.close();
    } finally {
      await database.close();
    }
  });

  it('creates missing parent folders', async () => {
    const file = join(dir, 'deep', 'er', 'still', 'consilium.db');
    const database = await SqliteDatabase.open(file);
    expect(database.file).toBe(file);
    await database.close();
  });

  it('waits for another writer, and fails as unavailable (writing nothing) when the lock outlasts busy_timeout', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file, { busyTimeoutMs: 100 });
    const other = await raw(file);
    try {
      const d = new FakeDebate({ owner: 'usr_busy' });
      await other.exec('BEGIN IMMEDIATE');
      const error = await rejection(database.sessions.write(d.start().step()));
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('unavailable');
      await other.exec('COMMIT');
      expect(await database.sessions.get(d.session.id)).toBeUndefined();

      // Released while the write waits: it goes through.
      const patient = await SqliteDatabase.open(file);
      await other.exec('BEGIN IMMEDIATE');
      const step = d.step();
      const writing = patient.sessions.write(step);
      setTimeout(() => void other.exec('COMMIT'), 200);
      await writing;
      expect(await patient.sessions.get(d.session.id)).toStrictEqual(step.session);
      await patient.close();
    } finally {
      await other.close();
      await database.close();
    }
  });

  it('refuses a file that is not a database as corrupt', async () => {
    const file = freshFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'this is not an SQLite database, just text long enough to have a header'.repeat(20));
    expect(await rejection(SqliteDatabase.open(file))).toMatchObject({ name: 'StoreError', code: 'corrupt' });
  });

  it('rejects writes after close as unavailable', async () => {
    const database = await SqliteDatabase.open(freshFile());
    await database.close();
    const d = new FakeDebate({ owner: 'usr_closed' });
    expect(await rejection(database.sessions.write(d.start().step()))).toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
      message: 'the session store is closed',
    });
  });

  it('finishes the writes queued before close, then closes', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = new FakeDebate({ owner: 'usr_closing' });
    const writes = debateSteps(d, 1).map((step) => database.sessions.write(step));
    await database.close();
    await Promise.all(writes);
    const again = await SqliteDatabase.open(file);
    try {
      expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await again.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
    } finally {
      await again.close();
    }
  });

  it('fails a delete as unavailable while another writer holds the lock past busy_timeout, and deletes once it is released', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file, { busyTimeoutMs: 100 });
    const other = await raw(file);
    try {
      const d = await writeDebate(database, 'usr_locked');
      await other.exec('BEGIN IMMEDIATE');
      expect(await rejection(database.sessions.delete(d.session.id))).toMatchObject({ name: 'StoreError', code: 'unavailable' });
      await other.exec('COMMIT');
      expect(await database.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await database.sessions.delete(d.session.id)).toBe(true);
      expect(await database.sessions.get(d.session.id)).toBeUndefined();
    } finally {
      await other.close();
      await database.close();
    }
  });

  it('recovers nothing, and says so, when no session was left running', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      await writeDebate(database, 'usr_finished');
      expect(await database.sessions.recoverInterrupted(new Date())).toStrictEqual([]);
    } finally {
      await database.close();
    }
  });
});

describe('writes', () => {
  it('keeps one session in order when its steps are queued without waiting (FIFO through the group commit)', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      const d = new FakeDebate({ owner: 'usr_fifo' });
      const other = new FakeDebate({ owner: 'usr_fifo' });
      const steps = debateSteps(d, 2);
      const others = debateSteps(other, 2);
      await Promise.all([...steps.map((s) => database.sessions.write(s)), ...others.map((s) => database.sessions.write(s))]);
      expect(await database.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await database.sessions.get(other.session.id)).toStrictEqual(other.session);
      expect(await database.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
    } finally {
      await database.close();
    }
  });

  it('commits the steps of requests handled in one turn of the event loop in one transaction (a drain starts at the check phase)', async () => {
    const database = await SqliteDatabase.open(freshFile());
    const exec = vi.spyOn(Connection.prototype, 'exec');
    try {
      const a = debateSteps(new FakeDebate({ owner: 'usr_turn' }), 1)[0]!;
      const b = debateSteps(new FakeDebate({ owner: 'usr_turn' }), 1)[0]!;
      exec.mockClear();
      // Two callbacks of one loop phase, as two requests read in one poll, with microtasks run between them.
      // Immediates, not timers: two `setTimeout(0)`s may fall due a millisecond apart and run in two turns,
      // while immediates queued together always run in one check phase, and one queued by a callback of that
      // phase (the first write's drain) runs in the next turn, after the second write.
      const written = await new Promise<Promise<void>[]>((resolve) => {
        const both: Promise<void>[] = [];
        setImmediate(() => both.push(database.sessions.write(a)));
        setImmediate(() => resolve([...both, database.sessions.write(b)]));
      });
      await Promise.all(written);
      expect(exec.mock.calls.filter(([sql]) => sql.startsWith('BEGIN IMMEDIATE'))).toHaveLength(1);
      expect(await database.sessions.get(a.session.id)).toBeDefined();
      expect(await database.sessions.get(b.session.id)).toBeDefined();
    } finally {
      exec.mockRestore();
      await database.close();
    }
  });

  it('takes quotes in any text literally (steps are written as quoted SQL literals)', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      const hostile = `it's ''; '); DROP TABLE sessions; -- \\' \u0000 \u2028`;
      const d = new FakeDebate({ owner: "usr_o'quote", question: hostile });
      d.start().startRound(1);
      d.answer(1, 1, hostile);
      const step = d.step({ rounds: [1] });
      await database.sessions.write(step);
      expect(await database.sessions.get(d.session.id)).toStrictEqual(step.session);
      expect(await database.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
      expect((await database.sessions.list({ owner: "usr_o'quote", limit: 5, q: "it's ''" })).items).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  it('fails a step with a number JSON cannot carry (NaN latency) and keeps what was stored before', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      const d = new FakeDebate({ owner: 'usr_nan' });
      const first = d.start().step();
      await database.sessions.write(first);
      d.startRound(1);
      d.answer(1, 1, 'text');
      const step = d.step({ rounds: [1] });
      const bad = structuredClone(step);
      bad.session.rounds[0]!.answers[0]!.latencyMs = Number.NaN;
      await expect(database.sessions.write(bad)).rejects.toThrow();
      expect(await database.sessions.get(d.session.id)).toStrictEqual(first.session);
      await database.sessions.write(step);
      expect(await database.sessions.get(d.session.id)).toStrictEqual(step.session);
    } finally {
      await database.close();
    }
  });

  it('searches questions case-insensitively beyond ASCII (SQLite LIKE alone folds only A-Z)', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      const d = new FakeDebate({ owner: 'usr_unicode', question: 'ÜBER Änderungen am Schema?' });
      await database.sessions.write(d.start().step());
      for (const q of ['über änderungen', 'ÜBER ÄNDERUNGEN', 'Über']) {
        expect((await database.sessions.list({ owner: 'usr_unicode', limit: 5, q })).items.map((s) => s.id)).toStrictEqual([
          d.session.id,
        ]);
      }
    } finally {
      await database.close();
    }
  });

  it('stores usage and outcome of every answer, and the cost, as columns to query', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = await writeDebate(database, 'usr_columns', 2);
    await database.close();
    const db = await raw(file);
    try {
      const [sums] = await db.all<{ input: number; output: number; total: number; failed: number }>(
        `SELECT sum(input_tokens) AS input, sum(output_tokens) AS output, sum(total_tokens) AS total,
           count(error_code) AS failed FROM answers WHERE session_id = ?1`,
        [d.session.id],
      );
      const answers = d.session.rounds.flatMap((r) => r.answers);
      expect(sums).toStrictEqual({
        input: d.session.usage.inputTokens,
        output: d.session.usage.outputTokens,
        total: d.session.usage.totalTokens,
        failed: answers.filter((a) => a.error).length,
      });
      const [header] = await db.all<{ cost_usd: number }>('SELECT cost_usd FROM sessions WHERE id = ?1', [d.session.id]);
      expect(header!.cost_usd).toBeCloseTo(d.session.cost.usd, 12);
    } finally {
      await db.close();
    }
  });
});

describe('migrations', () => {
  it('records each version once; reopening applies nothing again and keeps the data', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = await writeDebate(database, 'usr_migrate');
    await database.close();
    const again = await SqliteDatabase.open(file);
    expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
    await again.close();

    const db = await raw(file);
    const rows = await db.all<{ version: number; applied_at: string }>(
      'SELECT version, applied_at FROM schema_migrations ORDER BY version',
    );
    expect(rows.map((r) => r.version)).toStrictEqual(MIGRATIONS.map((m) => m.version));
    expect(rows.at(-1)!.version).toBe(SCHEMA_VERSION);
    for (const row of rows) expect(Number.isNaN(Date.parse(row.applied_at))).toBe(false);
    await db.close();
  });

  // Before the numbering was shared with PostgreSQL, SQLite numbered its migrations 1 to 7: today's 7, 8, 9 and 10
  // were 4, 5, 6 and 7.
  const numberedTheOldWay = async (file: string, upTo = 10) => {
    const db = await raw(file);
    await db.exec(`DELETE FROM schema_migrations WHERE version > ${upTo}`);
    for (const version of [7, 8, 9, 10]) {
      await db.run('UPDATE schema_migrations SET version = ?1 WHERE version = ?2', [version - 3, version]);
    }
    return db;
  };

  it('opens a file numbered the old way, applying nothing twice, and numbers it as PostgreSQL does', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = await writeDebate(database, 'usr_renumbered');
    await database.close();
    await (await numberedTheOldWay(file)).close();

    const again = await SqliteDatabase.open(file);
    expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
    await again.close();
    const db = await raw(file);
    const rows = await db.all<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toStrictEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    await db.close();
  });

  it("migrates a file numbered the old way that stopped short of the old 7 (today's 10)", async () => {
    const file = freshFile();
    await (await SqliteDatabase.open(file)).close();
    const db = await numberedTheOldWay(file, 9);
    await db.exec('DROP TABLE session_sources');
    await db.close();

    const again = await SqliteDatabase.open(file);
    await again.close();
    const after = await raw(file);
    const versions = await after.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((r) => r.version)).toStrictEqual([1, 2, 3, 7, 8, 9, 10]);
    expect(await after.all("SELECT name FROM sqlite_schema WHERE name = 'session_sources'")).toHaveLength(1);
    await after.close();
  });

  it('refuses a database written by a newer build, with a clear error', async () => {
    const file = freshFile();
    await (await SqliteDatabase.open(file)).close();
    const db = await raw(file);
    await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)', [
      SCHEMA_VERSION + 1,
      'from the future',
      new Date().toISOString(),
    ]);
    await db.close();
    const error = await rejection(SqliteDatabase.open(file));
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain(
      `schema version ${SCHEMA_VERSION + 1}, newer than this build knows (${SCHEMA_VERSION})`,
    );
  });

  it('applies each migration in its own transaction: a failing one leaves the earlier ones and nothing of itself', async () => {
    const file = freshFile();
    mkdirSync(dirname(file), { recursive: true });
    const db = await Connection.open(file);
    const migrations = [
      { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' },
      { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER); CREATE TABLE broken (' },
    ];
    await expect(migrate(db, 'test.db', migrations)).rejects.toThrow();
    const tables = (await db.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")).map(
      (r) => r.name,
    );
    expect(tables).toStrictEqual(['one', 'schema_migrations']);
    expect(await db.all('SELECT version FROM schema_migrations')).toStrictEqual([{ version: 1 }]);
    // Fixed, it carries on from version 1.
    migrations[1]!.sql = 'CREATE TABLE two (x INTEGER)';
    expect(await migrate(db, 'test.db', migrations)).toBe(2);
    await db.close();
  });

  it('applies a missing version below the highest applied (branches number migrations ahead of each other)', async () => {
    const file = freshFile();
    mkdirSync(dirname(file), { recursive: true });
    const db = await Connection.open(file);
    const one = { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' };
    const three = { version: 3, name: 'three', sql: 'CREATE TABLE three (x INTEGER)' };
    // Written by a build that knew 1 and 3; then one that also knows 2 opens it.
    expect(await migrate(db, 'test.db', [one, three])).toBe(3);
    expect(await migrate(db, 'test.db', [one, { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' }, three])).toBe(3);
    const versions = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((r) => r.version)).toStrictEqual([1, 2, 3]);
    expect(await db.all("SELECT name FROM sqlite_schema WHERE name = 'two'")).toStrictEqual([{ name: 'two' }]);
    await db.close();
  });
});

describe("a grounded session's page texts", () => {
  const grounded = async (database: SqliteDatabase): Promise<FakeDebate> => {
    const d = new FakeDebate({ owner: 'usr_sources' });
    await database.sessions.write(d.start().step({ run: 'first' }));
    d.readPage('Deploy policy', 'Deploys on Tuesdays.');
    d.readPage('Rollback runbook', "Rollbacks take 'four' minutes.");
    await database.sessions.write(d.step({ run: 'later' }));
    await database.sessions.write(d.end('completed').step({ run: 'later' }));
    return d;
  };

  it('are stored once, in session_sources, never in the links that lists read', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = await grounded(database);
    await database.close();
    const db = await raw(file);
    try {
      const { links } = (await db.first<{ links: string }>('SELECT links FROM sessions WHERE id = ?1', [d.session.id]))!;
      const pages = (JSON.parse(links) as { grounding: { pages: object[] } }).grounding.pages;
      expect(pages.map((p) => Object.keys(p).includes('text'))).toEqual([false, false]);
      expect(links).not.toContain('Tuesdays');
      expect(
        await db.all('SELECT n, sha256, text FROM session_sources WHERE session_id = ?1 ORDER BY n', [d.session.id]),
      ).toEqual(d.session.grounding!.pages.map(({ n, sha256, text }) => ({ n, sha256, text })));
    } finally {
      await db.close();
    }
  });

  it('migration 10 moves the texts of sessions stored before it out of links', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    const d = await grounded(database);
    await database.close();
    // As a database before migration 10 held it: the texts in links, no session_sources.
    const db = await raw(file);
    await db.exec('DROP TABLE session_sources; DELETE FROM schema_migrations WHERE version = 10');
    await db.run('UPDATE sessions SET links = ?2 WHERE id = ?1', [
      d.session.id,
      JSON.stringify({ grounding: d.session.grounding }),
    ]);
    await db.close();
    const again = await SqliteDatabase.open(file);
    expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
    await again.close();
    const after = await raw(file);
    const { links } = (await after.first<{ links: string }>('SELECT links FROM sessions WHERE id = ?1', [d.session.id]))!;
    expect(links).not.toContain('Tuesdays');
    expect(await after.first('SELECT count(*) AS n FROM session_sources WHERE session_id = ?1', [d.session.id])).toEqual({
      n: 2,
    });
    await after.close();
  });
});

async function integrity(file: string): Promise<string> {
  const db = await Connection.open(file, sqlite3.OPEN_READONLY);
  try {
    return (await db.first<{ integrity_check: string }>('PRAGMA integrity_check'))!.integrity_check;
  } finally {
    await db.close();
  }
}

describe('backup', () => {
  it('writes a copy that passes integrity_check and holds the same sessions and events; replaces an older backup', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      const debates = [await writeDebate(database), await writeDebate(database, 'usr_backup', 2)];
      const dest = join(dir, 'backups', 'new-folder', 'copy.db');
      await database.backup(dest);
      debates.push(await writeDebate(database));
      await database.backup(dest);

      expect(await integrity(dest)).toBe('ok');
      const copy = await SqliteDatabase.open(dest);
      try {
        for (const d of debates) {
          expect(await copy.sessions.get(d.session.id)).toStrictEqual(d.session);
          expect(await copy.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
        }
        expect(await copy.sessions.list({ owner: 'usr_backup', limit: 10 })).toStrictEqual(
          await database.sessions.list({ owner: 'usr_backup', limit: 10 }),
        );
      } finally {
        await copy.close();
      }
      await expect(database.backup(database.file)).rejects.toThrow(/onto itself/);
    } finally {
      await database.close();
    }
  });

  it('is consistent while debates are being written: every session in it is exactly one whole step', async () => {
    const database = await SqliteDatabase.open(freshFile());
    const debates = Array.from({ length: 20 }, () => new FakeDebate({ owner: 'usr_live' }));
    const steps = debates.map((d) => debateSteps(d, 2, 20));
    const backups: string[] = [];
    try {
      let written = 0;
      const writing = Promise.all(
        steps.map(async (list) => {
          for (const step of list) {
            await database.sessions.write(step);
            written++;
          }
        }),
      );
      // Backups taken while the writes are under way (between the first and the last commit).
      const total = steps.flat().length;
      while (written < total && backups.length < 4) {
        const dest = join(dir, 'live', `copy-${backups.length}.db`);
        await database.backup(dest);
        backups.push(dest);
      }
      await writing;
      expect(backups.length).toBeGreaterThan(0);

      for (const file of backups) {
        expect(await integrity(file)).toBe('ok');
        const copy = await SqliteDatabase.open(file);
        try {
          for (const [i, d] of debates.entries()) {
            const stored = await copy.sessions.get(d.session.id);
            const events = await copy.sessions.events(d.session.id, 0);
            if (!stored) {
              expect(events).toStrictEqual([]);
              continue;
            }
            // The step whose events end where the copy's do must be the step the copy's session is.
            const ends = steps[i]!.map((_, k) => steps[i]!.slice(0, k + 1).reduce((n, s) => n + s.events.length, 0));
            const step = steps[i]![ends.indexOf(events.length)];
            expect(step).toBeDefined();
            expect(stored).toStrictEqual(step!.session as Session);
            expect(events).toStrictEqual(d.raised.slice(0, events.length));
          }
        } finally {
          await copy.close();
        }
      }
    } finally {
      await database.close();
    }
  });

  it('refuses a destination another database has open (it has a -wal file), touching neither', async () => {
    const database = await SqliteDatabase.open(freshFile());
    const dest = freshFile('in-use');
    const busy = await SqliteDatabase.open(dest);
    try {
      const mine = await writeDebate(database, 'usr_mine');
      const theirs = await writeDebate(busy, 'usr_theirs');
      expect(existsSync(`${dest}-wal`)).toBe(true);
      const error = await rejection(database.backup(dest));
      expect(error).toMatchObject({ name: 'StoreError', code: 'unavailable' });
      expect((error as Error).message).toBe(`${dest} is in use (it has a -wal file); choose another destination`);
      expect(await busy.sessions.get(theirs.session.id)).toStrictEqual(theirs.session);
      expect(await busy.sessions.get(mine.session.id)).toBeUndefined();
    } finally {
      await busy.close();
      await database.close();
    }
  });

  it('fails as the rename failed when the copy cannot take the destination, leaving no temporary file', async () => {
    const database = await SqliteDatabase.open(freshFile());
    const dest = join(dir, 'backup-onto-folder', 'copy.db');
    // A folder with something in it where the copy should go: the copy is made, the rename fails.
    mkdirSync(join(dest, 'occupied'), { recursive: true });
    try {
      await writeDebate(database, 'usr_folder');
      expect(await rejection(database.backup(dest))).toMatchObject({
        code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/),
      });
      expect(readdirSync(dirname(dest))).toStrictEqual(['copy.db']);
      expect(readdirSync(dest)).toStrictEqual(['occupied']);
    } finally {
      await database.close();
    }
  });

  it('fails with the SQLite error when the copy cannot even be created (no temporary file to remove)', async () => {
    const database = await SqliteDatabase.open(freshFile());
    try {
      // /proc exists, but no file can be created in it.
      const error = await rejection(database.backup('/proc/consilium-backup.db'));
      expect(error).toMatchObject({ name: 'StoreError', code: 'unavailable' });
      expect((error as Error).message).toMatch(/SQLITE_CANTOPEN/);
    } finally {
      await database.close();
    }
  });

  it('closes the connection it copies through: once the store closes, the database is checkpointed and its -wal gone', async () => {
    const file = freshFile();
    const database = await SqliteDatabase.open(file);
    await writeDebate(database, 'usr_tidy');
    await database.backup(join(dir, 'tidy', 'copy.db'));
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  describe('npm run backup', () => {
    it('backs up the configured database while a store has it open, and says what it wrote', async () => {
      const file = freshFile();
      const database = await SqliteDatabase.open(file);
      try {
        const d = await writeDebate(database, 'usr_cli');
        const dest = join(dir, 'cli', 'backup.db');
        const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'backup', '--', dest], {
          env: { ...process.env, CONSILIUM_DATABASE: file },
        });
        expect(stdout).toContain(`wrote ${dest} from ${file}`);
        const copy = await SqliteDatabase.open(dest);
        expect(await copy.sessions.get(d.session.id)).toStrictEqual(d.session);
        await copy.close();
      } finally {
        await database.close();
      }
    });

    it('exits 2 with the usage on bad arguments, and 1 when there is no database', async () => {
      const env = { CONSILIUM_DATABASE: join(dir, 'nowhere', 'none.db') };
      for (const args of [[], ['a.db', 'b.db'], ['--force'], ['']]) {
        const err: string[] = [];
        expect(await backupCli(args, env, { out: () => {}, err: (line) => err.push(line) })).toBe(2);
        expect(err.join('\n')).toContain('usage: npm run backup -- <destination>');
      }
      const err: string[] = [];
      expect(await backupCli([join(dir, 'x.db')], env, { out: () => {}, err: (line) => err.push(line) })).toBe(1);
      expect(err.join('\n')).toContain(`there is no session store at ${env.CONSILIUM_DATABASE}`);
    });
  });
});
