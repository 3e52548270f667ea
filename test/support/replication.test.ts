/**
 * The primary and standby of `replication.ts`: asynchronous replication over a delayed link loses a commit the
 * primary acknowledged just before the failover (the old primary's copy keeps it); synchronous replication does not.
 * Each proves the rig first: the standby caught up, `front` answered by the primary, then by the promoted standby.
 */
import { Client } from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { postgres } from './postgres.js';
import { type Replication, replicationBinaries, startReplication } from './replication.js';

async function query<T = Record<string, unknown>>(at: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: at });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const port = async (at: string) => (await query<{ port: number }>(at, 'SELECT inet_server_port() AS port'))[0]!.port;
const rows = async (at: string) => (await query<{ n: number }>(at, 'SELECT n FROM t ORDER BY n')).map((r) => r.n);
const portOf = (u: string) => Number(new URL(u).port);

/** A table with row 1 on both servers; the link then held for an hour, so nothing more reaches the standby. */
async function rowOneEverywhere(rig: Replication): Promise<string> {
  const db = await rig.createDatabase();
  await query(db, 'CREATE TABLE t (n integer)');
  await query(db, 'INSERT INTO t VALUES (1)');
  await rig.caughtUp();
  expect(await rig.lag()).toBe(0);
  const onStandby = new URL(db);
  onStandby.port = String(portOf(rig.standbyUrl));
  expect(await rows(onStandby.toString())).toStrictEqual([1]);
  return db;
}

describe.skipIf(!postgres.available)('a primary and a streaming standby', () => {
  it('has its binaries', () => {
    expect(replicationBinaries(), 'pg_basebackup beside initdb').toBeDefined();
  });

  it('asynchronous, the link delayed: a commit acknowledged before the failover is only in the old primary', async () => {
    const rig = await startReplication();
    try {
      expect(await port(rig.url)).toBe(portOf(rig.primaryUrl));
      const db = await rowOneEverywhere(rig);
      rig.link.delay(3_600_000);
      await query(db, 'INSERT INTO t VALUES (2)');
      // Committed and acknowledged; its WAL waits in the link.
      expect(await rig.lag()).toBeGreaterThan(0);
      expect(rig.link.pending).toBeGreaterThan(0);
      await rig.failover();
      expect(await port(rig.url)).toBe(portOf(rig.standbyUrl));
      expect(await rows(db)).toStrictEqual([1]);
      expect(await rows(rig.oldPrimary(db))).toStrictEqual([1, 2]);
      // The promoted standby takes writes; the old primary's copy only answers reads.
      await query(db, 'INSERT INTO t VALUES (3)');
      expect(await rows(db)).toStrictEqual([1, 3]);
      await expect(query(rig.oldPrimary(db), 'INSERT INTO t VALUES (4)')).rejects.toThrow(/read-only/);
    } finally {
      await rig.stop();
    }
  }, 120_000);

  it('synchronous: a commit waits for the standby, and survives the failover', async () => {
    const rig = await startReplication({ synchronous: true });
    try {
      const db = await rowOneEverywhere(rig);
      rig.link.silence();
      const insert = query(db, 'INSERT INTO t VALUES (2)');
      // Its commit waits for the standby, which hears nothing.
      await vi.waitUntil(
        async () => (await query(rig.primaryUrl, "SELECT 1 FROM pg_stat_activity WHERE wait_event = 'SyncRep'")).length === 1,
        { timeout: 20_000, interval: 20 },
      );
      rig.link.release();
      await insert;
      await rig.failover();
      expect(await rows(db)).toStrictEqual([1, 2]);
      expect(await rows(rig.oldPrimary(db))).toStrictEqual([1, 2]);
      await query(db, 'INSERT INTO t VALUES (3)');
      expect(await rows(db)).toStrictEqual([1, 2, 3]);
    } finally {
      await rig.stop();
    }
  }, 120_000);
});
