/**
 * `Database.ready()` and `poolUse()`, the probes behind `GET /ready` and the pool gauges: against a real SQLite file
 * and a real PostgreSQL (a throwaway cluster), each part reported down while it really is — the LISTEN connection
 * cut, connections refused, the database closed — and up again once it is back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/store/open.js';
import type { StoreCheck } from '../../server/src/store/ready.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';

/** Polls `probe` until `done` holds: waits for a state the server reaches on its own (reconnects), bounded by the test timeout. */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const okOf = (checks: StoreCheck[]) => Object.fromEntries(checks.map((c) => [c.name, c.ok]));

describe('SQLite', () => {
  it('answers while open, says why once closed, and has no pool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'consilium-ready-'));
    try {
      const database = await openDatabase(join(dir, 'consilium.db'));
      expect(await database.ready()).toEqual([{ name: 'database', ok: true }]);
      expect(database.poolUse()).toBeUndefined();
      await database.close();
      const [check] = await database.ready();
      expect(check).toMatchObject({ name: 'database', ok: false, error: expect.any(String) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!postgres.available)('PostgreSQL', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(() => server?.stop());

  const query = async (url: string, text: string, params?: unknown[]) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  };
  const admin = (text: string, params?: unknown[]) => query(server.url, text, params);

  it('reports the listener down while its connection is cut, and the database down while connections are refused', async () => {
    const url = await server.createDatabase();
    const name = new URL(url).pathname.slice(1);
    const database = await openDatabase(url, { maxConnections: 3, instanceId: 'ready-test', readyTimeoutMs: 1000 });
    try {
      expect(await database.ready()).toEqual([
        { name: 'database', ok: true },
        { name: 'listener', ok: true },
      ]);
      expect(database.poolUse()).toEqual({ total: expect.any(Number), idle: expect.any(Number), waiting: 0 });
      expect(database.poolUse()!.total).toBeLessThanOrEqual(3);

      // No new connections, and every existing one cut: the pool's next query and the listener both fail.
      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      const down = await until(
        () => database.ready(),
        (checks) => checks.every((c) => !c.ok),
      );
      expect(down).toEqual([
        { name: 'database', ok: false, error: expect.any(String) },
        { name: 'listener', ok: false, error: 'the LISTEN connection is down' },
      ]);

      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      const up = await until(
        () => database.ready(),
        (checks) => checks.every((c) => c.ok),
      );
      expect(okOf(up)).toEqual({ database: true, listener: true });
    } finally {
      await database.close();
    }
  });

  it('passes the pool size, the instance id and the lease through openDatabase', async () => {
    const url = await server.createDatabase();
    const database = await openDatabase(url, { maxConnections: 2, instanceId: 'web-7:8787', leaseMs: 60_000 });
    try {
      // Three queries at once on a pool of two: one waits.
      const queries = [1, 2, 3].map(() => database.ready());
      expect(database.poolUse()!.waiting).toBeGreaterThan(0);
      await Promise.all(queries);
      expect(database.poolUse()!.total).toBe(2);
      const [lease] = await query(url, 'SELECT extract(epoch FROM expires_at - now()) AS s FROM instances WHERE id = $1', [
        'web-7:8787',
      ]);
      expect(Number(lease!.s)).toBeGreaterThan(50);
      const listeners = await query(
        server.url,
        `SELECT application_name FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'consilium-listen %'`,
        [new URL(url).pathname.slice(1)],
      );
      expect(listeners).toEqual([{ application_name: 'consilium-listen web-7:8787' }]);
    } finally {
      await database.close();
    }
  });
});
