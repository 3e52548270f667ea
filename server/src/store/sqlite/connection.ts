/** One node-sqlite3 connection behind promises, with its prepared statements kept for reuse. */
import sqlite3, { type Database, type RunResult as SqliteRunResult, type Statement } from 'sqlite3';
import { StoreError } from '../../sessions/store.js';

export type Params = readonly unknown[];
export type Row = Record<string, unknown>;

export interface RunResult {
  changes: number;
}

export class Connection {
  readonly #db: Database;
  readonly #statements = new Map<string, Promise<Statement>>();
  /** Set once `close` starts: node-sqlite3 would answer later calls with SQLITE_MISUSE, which reads as a bug. */
  #closed = false;

  private constructor(db: Database) {
    this.#db = db;
  }

  static open(file: string, mode = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_FULLMUTEX): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, mode, (error) => {
        if (error) reject(storeError(error, `cannot open ${file}`));
        else resolve(new Connection(db));
      });
    });
  }

  /** Runs a statement (prepared once, reused); resolves with the rows it changed. */
  async run(sql: string, params: Params = []): Promise<RunResult> {
    this.#check();
    const statement = await this.#prepare(sql);
    return new Promise((resolve, reject) => {
      statement.run(params, function (this: SqliteRunResult, error: Error | null) {
        if (error) reject(storeError(error));
        else resolve({ changes: this.changes });
      });
    });
  }

  /**
   * All rows of a query. Never `Statement#get`: it leaves the statement mid-step, which keeps the
   * connection's read transaction (and so its stale WAL snapshot) open until the next call.
   */
  async all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    this.#check();
    const statement = await this.#prepare(sql);
    return new Promise((resolve, reject) => {
      statement.all<T>(params, (error, rows) => {
        if (error) reject(storeError(error));
        else resolve(rows);
      });
    });
  }

  async first<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Several statements without parameters, not kept prepared (schema changes, pragmas). */
  exec(sql: string): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      this.#db.exec(sql, (error) => (error ? reject(storeError(error)) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const statements = await Promise.allSettled(this.#statements.values());
    this.#statements.clear();
    for (const s of statements) {
      if (s.status === 'fulfilled') await new Promise<void>((resolve) => s.value.finalize(() => resolve()));
    }
    await new Promise<void>((resolve, reject) => this.#db.close((error) => (error ? reject(storeError(error)) : resolve())));
  }

  #check(): void {
    if (this.#closed) throw closedError();
  }

  #prepare(sql: string): Promise<Statement> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = new Promise((resolve, reject) => {
        const s = this.#db.prepare(sql, (error) => (error ? reject(storeError(error)) : resolve(s)));
      });
      // A statement that failed to prepare (e.g. SQLITE_BUSY reading the schema) is tried again next time.
      statement.catch(() => this.#statements.delete(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

/** A call on a closed connection: the store is going away (shutdown) or was closed under a request. */
const closedError = () => new StoreError('unavailable', 'the database connection is closed');

/**
 * SQLite's result codes as StoreError codes a caller can act on: a locked or failing disk is
 * `unavailable` (try later), a broken constraint is `conflict`, a damaged file `corrupt`. Anything
 * else (a bug, such as bad SQL) passes through as it is.
 */
export function storeError(error: unknown, context?: string): unknown {
  if (error instanceof StoreError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const message = context ? `${context}: ${error.message}` : error.message;
  switch (code) {
    case 'SQLITE_CONSTRAINT':
      return new StoreError('conflict', message, { cause: error });
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
    case 'SQLITE_IOERR':
    case 'SQLITE_FULL':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PROTOCOL':
    case 'SQLITE_NOMEM':
      return new StoreError('unavailable', message, { cause: error });
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new StoreError('corrupt', message, { cause: error });
    default:
      return error;
  }
}
