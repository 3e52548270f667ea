/** A PostgreSQL pool as the stores use it: queries and transactions whose failures arrive as `StoreError`s. */
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { isUnavailable, toStoreError } from './errors.js';

export interface PostgresAccess {
  /** One statement; a `QueryConfig` with a `name` is prepared once per connection. */
  query<R extends object>(sql: string | QueryConfig, params?: unknown[]): Promise<{ rows: R[]; rowCount?: number | null }>;
  /** Runs `work` between BEGIN and COMMIT on one connection; rolls back if it throws. */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
}

/**
 * Waits before each repeat of a statement whose connection had ended: long enough for the pool to hear of the others
 * that ended with it (all of them, when every backend is terminated), which a repeat at once would take one by one.
 */
const REPEAT_AFTER_MS = [10, 100];

const repeatDelay = (attempt: number) => new Promise((resolve) => setTimeout(resolve, REPEAT_AFTER_MS[attempt]));

export function poolAccess(pool: Pool): PostgresAccess {
  return {
    async query<R extends object>(sql: string | QueryConfig, params?: unknown[]): Promise<{ rows: R[] }> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await (typeof sql === 'string' ? pool.query<R>(sql, params) : pool.query<R>(sql));
        } catch (error) {
          // Connections ended under the pool (a terminated backend, a restart) fail the queries that find them: the
          // pool drops each, so a repeat gets a fresh one. A repeat of one that did commit unseen is harmless here:
          // inserts carry their ids (a repeat conflicts), updates set values, steps check their events; a limit counts twice.
          if (!isUnavailable(error) || attempt === REPEAT_AFTER_MS.length) throw toStoreError(error);
          await repeatDelay(attempt);
        }
      }
    },

    async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        let client: PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          throw toStoreError(error);
        }
        let broken = false;
        let begun = false;
        let again = false;
        // pg-pool drops its own listener while a client is out: without one, a connection lost between two queries
        // (a terminated backend, a server restart) is an unhandled 'error' event that ends the process.
        const lost = () => {
          broken = true;
        };
        client.on('error', lost);
        try {
          await client.query('BEGIN');
          begun = true;
          const result = await work(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          broken = isUnavailable(error);
          if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
          // A connection found ended at BEGIN ran nothing of `work`: the whole transaction may go again.
          again = broken && !begun && attempt < REPEAT_AFTER_MS.length;
          if (!again) throw toStoreError(error);
        } finally {
          client.off('error', lost);
          // A connection that failed goes, not back to the pool.
          client.release(broken);
        }
        if (again) await repeatDelay(attempt);
      }
    },
  };
}
