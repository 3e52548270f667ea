/**
 * One PostgreSQL database holding sessions, accounts and limits, shared by several server instances: one pool
 * the stores use, migrated on open, plus the session store's lease and LISTEN connection.
 */
import { Pool } from 'pg';
import type { AccessBus } from '../../access/access.js';
import { check, type PoolUse, type StoreCheck } from '../ready.js';
import { PostgresAccountStore } from './accounts.js';
import { dump } from './dump.js';
import { toStoreError } from './errors.js';
import { PostgresLimitStore } from './limits.js';
import { migrate } from './migrations.js';
import { poolAccess } from './pool.js';
import { type PostgresSessionOptions, PostgresSessionStore } from './sessions.js';

export interface PostgresStoreOptions extends PostgresSessionOptions {
  /** Pool size (default 20, as `CONSILIUM_PG_POOL_SIZE`), besides the session store's one LISTEN connection. */
  maxConnections?: number;
  /** The `pg_dump` to back up with (default: `pg_dump` on PATH). */
  pgDump?: string;
  /** How long `ready()` waits for its query (default 2 s). */
  readyTimeoutMs?: number;
}

export class PostgresDatabase {
  readonly kind = 'postgres';
  readonly sessions: PostgresSessionStore;
  readonly accounts: PostgresAccountStore;
  readonly limits: PostgresLimitStore;
  /** Ends of access, between the instances on this database. */
  readonly access: AccessBus;
  readonly #pool: Pool;
  readonly #url: string;
  readonly #options: PostgresStoreOptions;
  #closing: Promise<void> | undefined;

  private constructor(pool: Pool, url: string, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#url = url;
    this.#options = options;
    const db = poolAccess(pool);
    this.sessions = new PostgresSessionStore(db, url, options);
    this.accounts = new PostgresAccountStore(db);
    this.access = this.sessions.access;
    // Slots are this instance's, under the session store's lease.
    this.limits = new PostgresLimitStore(db, this.sessions.instanceId, options.onError);
  }

  /** Connects, applies missing migrations, and starts the session store (its lease, its listener). */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresDatabase> {
    const pool = new Pool({
      connectionString: url,
      max: options.maxConnections ?? 20,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    });
    // An idle connection's failure surfaces here; the next query gets a fresh one.
    pool.on('error', (error) => options.onError?.(error));
    const database = new PostgresDatabase(pool, url, options);
    try {
      const client = await pool.connect();
      // A connection lost between two of the migration's queries fails the next one, not the process.
      const lost = () => undefined;
      client.on('error', lost);
      try {
        await migrate(client);
      } finally {
        client.off('error', lost);
        client.release();
      }
      await database.sessions.start();
    } catch (error) {
      await database.close().catch(() => undefined);
      throw toStoreError(error);
    }
    return database;
  }

  /** See `dump.ts`: a file in pg_dump's custom format, or restored into the (empty) database of a `postgres://` URL. */
  backup(destination: string): Promise<void> {
    return dump(this.#url, destination, this.#options.pgDump);
  }

  /** A trivial query (through the pool, as requests go), and whether the LISTEN connection is up. */
  async ready(): Promise<StoreCheck[]> {
    const database = await check('database', () => this.#pool.query('SELECT 1'), this.#options.readyTimeoutMs ?? 2000);
    const listening = this.sessions.listening;
    return [database, { name: 'listener', ok: listening, ...(!listening && { error: 'the LISTEN connection is down' }) }];
  }

  poolUse(): PoolUse {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  /** Stops the session store (giving up its lease, so peers may recover what was left running) and ends the pool. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.limits.releaseAll().catch(() => undefined);
      await this.sessions.stop();
      await this.#pool.end();
    })();
    return this.#closing;
  }
}
