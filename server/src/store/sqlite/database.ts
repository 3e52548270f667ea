/**
 * One SQLite file (WAL) holding sessions and accounts. Writes go through one connection and one
 * queue (`write-queue.ts`) both stores share; reads use a second connection, so they never wait for a write.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MemoryLimitStore } from '../../limits/memory.js';
import { StoreError } from '../../sessions/store.js';
import { check, type StoreCheck } from '../ready.js';
import { SqliteAccountStore } from './accounts.js';
import { Connection } from './connection.js';
import { makeDirectory } from './directory.js';
import { migrate } from './migrations.js';
import { SqliteSessionStore } from './sessions.js';
import { WriteQueue } from './write-queue.js';

export interface SqliteOptions {
  /** How long a write waits for another process's lock before failing as `unavailable`. Default 5000. */
  busyTimeoutMs?: number;
}

export class SqliteDatabase {
  readonly kind = 'sqlite';
  readonly file: string;
  readonly sessions: SqliteSessionStore;
  readonly accounts: SqliteAccountStore;
  /** One process has the file: limits in its memory count the same as in the file. */
  readonly limits = new MemoryLimitStore();
  readonly #writer: Connection;
  readonly #reader: Connection;
  readonly #queue: WriteQueue;
  #closed = false;

  private constructor(file: string, writer: Connection, reader: Connection) {
    this.file = file;
    this.#writer = writer;
    this.#reader = reader;
    this.#queue = new WriteQueue(writer);
    this.sessions = new SqliteSessionStore(reader, this.#queue);
    this.accounts = new SqliteAccountStore(reader, this.#queue);
  }

  /** Opens (creating it and its folder if need be) and migrates the database at `file`. */
  static async open(file: string, options: SqliteOptions = {}): Promise<SqliteDatabase> {
    const path = resolve(file);
    const busyTimeout = options.busyTimeoutMs ?? 5000;
    await makeDirectory(dirname(path));
    const writer = await Connection.open(path);
    let reader: Connection | undefined;
    try {
      await writer.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
      // Takes effect only on a new file (before its first table): pages freed by archives and retention are then
      // given back to the file system by the maintenance sweep. An older file reuses them for later writes.
      await writer.exec('PRAGMA auto_vacuum = INCREMENTAL');
      const [mode] = await writer.all<{ journal_mode: string }>('PRAGMA journal_mode = WAL');
      if (mode?.journal_mode !== 'wal')
        throw new StoreError('unavailable', `${path}: cannot use WAL (journal_mode is ${mode?.journal_mode})`);
      // synchronous=NORMAL is safe with WAL: a crash of the process loses nothing committed, and power
      // loss can at worst drop the last commits, never corrupt the file. FULL would fsync every commit.
      await writer.exec('PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL');
      await migrate(writer, path);
      reader = await Connection.open(path);
      await reader.exec(`PRAGMA busy_timeout = ${busyTimeout}; PRAGMA foreign_keys = ON; PRAGMA query_only = ON`);
    } catch (error) {
      await reader?.close().catch(() => {});
      await writer.close().catch(() => {});
      throw error;
    }
    return new SqliteDatabase(path, writer, reader);
  }

  /**
   * `VACUUM INTO` on a connection of its own: it reads one snapshot while writes go on (WAL), and
   * writes a compact copy to a temporary file that is renamed over `destination` only when whole.
   */
  async backup(destination: string): Promise<void> {
    const target = resolve(destination);
    if (target === this.file) throw new Error(`refusing to back up ${this.file} onto itself`);
    await makeDirectory(dirname(target));
    if (await exists(`${target}-wal`)) {
      throw new StoreError('unavailable', `${target} is in use (it has a -wal file); choose another destination`);
    }
    const temporary = `${target}.${randomUUID().slice(0, 8)}.tmp`;
    const db = await Connection.open(this.file);
    try {
      await db.exec('PRAGMA busy_timeout = 5000');
      await db.run('VACUUM INTO ?1', [temporary]);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    } finally {
      await db.close();
    }
  }

  /** A trivial query on the reader connection; false once closed. */
  async ready(): Promise<StoreCheck[]> {
    return [await check('database', () => this.#reader.first('SELECT 1'), 2000)];
  }

  /** No pool: one writer and one reader connection. */
  poolUse(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.close();
    await this.#reader.close();
    await this.#writer.close();
  }

  /** The connection settings in force, for diagnostics. */
  async pragmas(): Promise<{ journalMode: string; foreignKeys: boolean; busyTimeoutMs: number; synchronous: number }> {
    const one = async (name: string) => Object.values((await this.#writer.first(`PRAGMA ${name}`))!)[0];
    return {
      journalMode: String(await one('journal_mode')),
      foreignKeys: (await one('foreign_keys')) === 1,
      busyTimeoutMs: Number(await one('busy_timeout')),
      synchronous: Number(await one('synchronous')),
    };
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
