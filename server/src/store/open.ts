/** Opens the configured database: an SQLite file path, or a `postgres://` URL. */
import type { AccessBus } from '../access/access.js';
import type { AccountStore } from '../accounts/store.js';
import { isDatabaseUrl } from '../config/config.js';
import type { LimitStore } from '../limits/store.js';
import type { SessionStore } from '../sessions/store.js';
import type { PostgresStoreOptions } from './postgres/database.js';
import type { PoolUse, StoreCheck } from './ready.js';

export type { PoolUse, StoreCheck };

/** An opened database: its session store and its account store side by side, on one connection (or pool) underneath. */
export interface Database {
  readonly kind: 'sqlite' | 'postgres';
  readonly sessions: SessionStore;
  readonly accounts: AccountStore;
  /** How instances sharing the database tell each other that access ended (PostgreSQL); absent for one process. */
  readonly access?: AccessBus;
  /** Rate limits and running debates: in the database on PostgreSQL (shared by its instances), in memory on SQLite (one process). */
  readonly limits: LimitStore;
  /** An online, consistent copy of the whole database at `destination` (a file path or a database URL). */
  backup(destination: string): Promise<void>;
  /** Whether the database answers now: cheap enough for a readiness probe every few seconds. Never throws. */
  ready(): Promise<StoreCheck[]>;
  /** The pool's use (PostgreSQL); undefined where there is no pool. */
  poolUse(): PoolUse | undefined;
  /** Finishes the writes queued before, then lets go of the database. */
  close(): Promise<void>;
}

/** PostgreSQL's pool, lease and instance settings (see `PostgresStoreOptions`); SQLite takes none of them. */
export type DatabaseOptions = PostgresStoreOptions;

export async function openDatabase(location: string, options: DatabaseOptions = {}): Promise<Database> {
  if (isDatabaseUrl(location)) {
    const { PostgresDatabase } = await import('./postgres/database.js');
    return PostgresDatabase.open(location, options);
  }
  const { SqliteDatabase } = await import('./sqlite/database.js');
  return SqliteDatabase.open(location);
}
