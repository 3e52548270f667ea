/** A PostgreSQL pool as the stores use it: queries and transactions whose failures arrive as `StoreError`s. */
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { isUnavailable, toStoreError } from './errors.js';

export interface PostgresAccess {
  /** One statement; a `QueryConfig` with a `name` is prepared once per connection. */
  query<R extends object>(sql: string | QueryConfig, params?: unknown[]): Promise<{ rows: R[]; rowCount?: number | null }>;
  /** Runs `work` between BEGIN and COMMIT on one connection; rolls back if it throws. */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
}

export function poolAccess(pool: Pool): PostgresAccess {
  return {
    async query<R extends object>(sql: string | QueryConfig, params?: unknown[]): Promise<{ rows: R[] }> {
      const once = () => (typeof sql === 'string' ? pool.query<R>(sql, params) : pool.query<R>(sql));
      try {
        return await once();
      } catch (error) {
        // An idle connection ended under the pool (a terminated backend, a restart) fails the one query that finds it:
        // the pool has dropped it, so once more gets a fresh one. A repeat of one that did commit unseen is harmless here:
        // inserts carry their ids (a repeat conflicts), updates set values, steps check their events; a limit counts twice.
        if (!isUnavailable(error)) throw toStoreError(error);
        try {
          return await once();
        } catch (again) {
          throw toStoreError(again);
        }
      }
    },

    async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toStoreError(error);
      }
      let broken = false;
      // pg-pool drops its own listener while a client is out: without one, a connection lost between two queries
      // (a terminated backend, a server restart) is an unhandled 'error' event that ends the process.
      const lost = () => {
        broken = true;
      };
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken = isUnavailable(error);
        if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
        throw toStoreError(error);
      } finally {
        client.off('error', lost);
        // A connection that failed goes, not back to the pool.
        client.release(broken);
      }
    },
  };
}
