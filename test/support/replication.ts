/**
 * A PostgreSQL primary and a streaming standby (`pg_basebackup -R`), throwaway clusters on loopback as
 * `postgres.ts` starts them, for failovers as an operator runs them:
 *
 *   instances ──▶ front (forwarder) ──▶ primary ──▶ link (forwarder) ──▶ standby
 *
 * The standby's replication connection goes through `link`, which can be delayed: a standby promotes with every WAL
 * record it has received, so a lagging link is a standby behind. `synchronous` makes every commit wait for the
 * standby (`synchronous_standby_names`). `failover()` does what an operator's tooling does when the primary's host
 * dies: the primary stops at once, the standby is promoted, and `front` is switched to it. The old primary's data is
 * kept, served afterwards on a port of its own (`oldPrimary`), so a test can compare each session with its copy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { type Forwarder, startForwarder } from './forwarder.js';
import { type DataDir, dataDir, findPostgresBin, postgres, serverAt, startOnFreePort, type TestPostgres } from './postgres.js';

export interface ReplicationOptions {
  /** Commits wait until the standby has flushed them (`synchronous_standby_names = '*'`). Default: asynchronous. */
  synchronous?: boolean;
  /** The replication link's delay per chunk, once the standby has caught up (default 0; `link.delay` changes it). */
  linkDelayMs?: number;
}

export interface FailoverOptions {
  /**
   * Runs once the standby is promoted and before `front` switches to it, given `databaseUrl`'s database there: what
   * the failover kept, read before any instance can reach it (and write again what it lost).
   */
  promoted?: (at: (databaseUrl: string) => string) => Promise<void>;
}

export interface Replication {
  /** The maintenance database through `front`: what the instances use (see `createDatabase`). */
  readonly url: string;
  /** What the instances connect to: the primary, after `failover()` the promoted standby. */
  readonly front: Forwarder;
  /** The standby's replication connection to the primary: `link.delay(ms)` makes the standby lag. */
  readonly link: Forwarder;
  readonly synchronous: boolean;
  /** Straight to the primary, and to the standby (read-only until promoted), bypassing `front`. */
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  /** A fresh database, created on the primary (and so replicated); its URL through `front`. */
  createDatabase(): Promise<string>;
  /** `front` as a `TestPostgres` (`terminateBackends` and so on; it cannot be halted). */
  readonly server: TestPostgres;
  /** Bytes of WAL the primary has written that the standby has not replayed yet. */
  lag(): Promise<number>;
  /** Resolves once the standby has replayed everything the primary had written when this was called. */
  caughtUp(): Promise<void>;
  /**
   * The primary's host dies: the replication link goes silent and is cut (what it had not delivered is lost, as on
   * the wire), the primary stops at once (`pg_ctl -m immediate stop`), the standby is promoted and accepts writes,
   * and `front` is switched to it (its open connections cut). Then the old primary is started again on a port of its
   * own with what it had committed, read-only, for `oldPrimary`.
   */
  failover(options?: FailoverOptions): Promise<void>;
  /** After `failover()`: the database of `databaseUrl` on the old primary. */
  oldPrimary(databaseUrl: string): string;
  /** Stops both servers and both forwarders, and removes their files. */
  stop(): Promise<void>;
}

/** Whether a primary and standby can run here: PostgreSQL's own binaries (a server given by URL cannot be replicated). */
export function replicationBinaries(): string | undefined {
  if (!postgres.available) return undefined;
  const binDir = postgres.binDir ?? findPostgresBin();
  return binDir && existsSync(join(binDir, 'pg_basebackup')) ? binDir : undefined;
}

const url = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;

/** The one row of `sql` on the server at `at`. */
async function one<T>(at: string, sql: string, params: unknown[] = []): Promise<T> {
  const client = new Client({ connectionString: at });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows[0] as T;
  } finally {
    await client.end();
  }
}

/** Polls `check` until it is true; fails after `ms` saying `what` (a bound for a broken rig, not a timing). */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`, { cause: last });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts the primary, the standby from its base backup through `link`, and `front`; resolves once the standby has caught up. */
export async function startReplication(options: ReplicationOptions = {}): Promise<Replication> {
  const binDir = replicationBinaries();
  if (!binDir) throw new Error('a primary and a standby need PostgreSQL server binaries with pg_basebackup (PG_BIN)');
  const synchronous = options.synchronous ?? false;
  const dirs: DataDir[] = [];
  const forwarders: Forwarder[] = [];
  const stop = async () => {
    await Promise.all(forwarders.map((f) => f.close()));
    for (const dir of dirs) await dir.remove();
  };
  try {
    const primary = await dataDir(binDir);
    dirs.push(primary);
    const primaryPort = await startOnFreePort(primary, [
      // Commits are in the WAL (the OS's copy: fsync stays off) before they are acknowledged, so the old primary's
      // copy holds every commit a client was told of; and synchronously, on the standby too.
      'synchronous_commit = on',
      "wal_keep_size = '1GB'",
      ...(synchronous ? ["synchronous_standby_names = '*'"] : []),
    ]);
    const link = await startForwarder({ target: { host: '127.0.0.1', port: primaryPort } });
    forwarders.push(link);

    const standby = await dataDir(binDir, { empty: true });
    dirs.push(standby);
    await standby.tool('pg_basebackup', [
      '-D',
      standby.data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
      '-h',
      '127.0.0.1',
      '-p',
      String(link.port),
      '-U',
      'postgres',
    ]);
    // -R appended the connection through `link` to the primary's settings it copied; keep only that line of them
    // (the primary's synchronous_standby_names would make the promoted standby wait for a standby of its own).
    const conninfo = readFileSync(join(standby.data, 'postgresql.auto.conf'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('primary_conninfo'));
    if (conninfo.length !== 1) throw new Error('pg_basebackup -R wrote no primary_conninfo');
    const standbyPort = await startOnFreePort(standby, ['synchronous_commit = on', ...conninfo]);

    const front = await startForwarder({ target: { host: '127.0.0.1', port: primaryPort } });
    forwarders.push(front);
    const primaryUrl = url(primaryPort);
    const standbyUrl = url(standbyPort);
    const server = serverAt(url(front.port), async () => undefined, {
      halt: () => Promise.reject(new Error('the replication rig stops its primary by failover()')),
      start: () => Promise.reject(new Error('the replication rig stops its primary by failover()')),
    });
    let oldPort: number | undefined;

    const lag = async () => {
      const { lsn } = await one<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn() AS lsn');
      const sql = 'SELECT pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()) AS bytes';
      return Number((await one<{ bytes: string }>(standbyUrl, sql, [lsn])).bytes);
    };
    const caughtUp = async () => {
      const { lsn } = await one<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn() AS lsn');
      await until(`the standby replaying up to ${lsn}`, async () => {
        const { behind } = await one<{ behind: boolean }>(
          standbyUrl,
          'SELECT pg_last_wal_replay_lsn() IS NULL OR pg_last_wal_replay_lsn() < $1::pg_lsn AS behind',
          [lsn],
        );
        return !behind;
      });
    };

    await caughtUp();
    if (options.linkDelayMs) link.delay(options.linkDelayMs);

    return {
      url: url(front.port),
      front,
      link,
      synchronous,
      primaryUrl,
      standbyUrl,
      server,
      createDatabase: () => server.createDatabase(),
      lag,
      caughtUp,
      async failover({ promoted }: FailoverOptions = {}) {
        if (oldPort !== undefined) throw new Error('failover() has run already: there is no standby left');
        // Silent first: a cut link's standby would reconnect, and must get nothing more.
        link.silence();
        link.cut();
        // Not waiting for the postmaster: a child it has to SIGKILL can keep it another minute on a loaded machine,
        // and by then its connections have long ended.
        await primary.stop('immediate', { wait: false });
        await standby.tool('pg_ctl', ['-D', standby.data, '-w', '-t', '60', 'promote']);
        await until('the promoted standby accepting writes', async () => {
          const { recovering } = await one<{ recovering: boolean }>(standbyUrl, 'SELECT pg_is_in_recovery() AS recovering');
          return !recovering;
        });
        await promoted?.((databaseUrl) => {
          const at = new URL(databaseUrl);
          at.port = String(standbyPort);
          return at.toString();
        });
        front.switchTo({ host: '127.0.0.1', port: standbyPort });
        // The old primary, started again with what it had committed: a copy to read, no primary for anyone.
        await until('the old primary gone', async () => !(await primary.running()), 120_000);
        oldPort = await startOnFreePort(primary, ['default_transaction_read_only = on']);
      },
      oldPrimary(databaseUrl) {
        if (oldPort === undefined) throw new Error('oldPrimary() is the old primary after failover()');
        const at = new URL(databaseUrl);
        at.port = String(oldPort);
        return at.toString();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
