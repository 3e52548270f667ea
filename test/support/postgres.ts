/**
 * A real PostgreSQL for tests: a throwaway cluster (initdb into a temp dir, trust auth, loopback
 * only, a free port) or, with `CONSILIUM_TEST_DATABASE_URL`, an existing server. Each test gets its
 * own database from `createDatabase()`, so tests never see each other's rows.
 *
 * Without PostgreSQL importing this module throws, so its tests fail: `npm test`'s pretest (`setup.sh`) has
 * installed it or stopped. They skip, with the reason printed, only when `CONSILIUM_SKIP_SERVICES` names postgres.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { missingService, skipReason, skipsService } from './services.js';

const ENV_URL = 'CONSILIUM_TEST_DATABASE_URL';

export type PostgresAvailability = { available: true; binDir?: string } | { available: false; reason: string };

/** Where PostgreSQL's server binaries are: `PG_BIN` if set (only there), else Debian's `/usr/lib/postgresql/<newest>/bin`, else `PATH`. */
export function findPostgresBin(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  else {
    const debian = '/usr/lib/postgresql';
    if (existsSync(debian)) {
      const versions = readdirSync(debian)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a));
      candidates.push(...versions.map((v) => join(debian, v, 'bin')));
    }
    for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(dir);
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

function availability(): PostgresAvailability {
  if (skipsService('postgres')) return { available: false, reason: skipReason('postgres') };
  if (process.env[ENV_URL]) return { available: true };
  const binDir = findPostgresBin();
  if (binDir) return { available: true, binDir };
  throw missingService('postgres', 'PostgreSQL server binaries (initdb, pg_ctl)', `PG_BIN or ${ENV_URL}`);
}

/** Decided when the test file loads, so `describe.skipIf(!postgres.available)` can use it. */
export const postgres: PostgresAvailability = availability();
if (!postgres.available) console.warn(`[postgres tests skipped] ${postgres.reason}`);

export interface TestPostgres {
  /** A superuser URL of the maintenance database. */
  readonly url: string;
  /** A fresh, empty database; returns its URL. Dropped by `stop()`. */
  createDatabase(): Promise<string>;
  /** Ends every connection to `database` (a URL or name; all databases but the caller's when omitted), as a crash of their backends would. */
  terminateBackends(database?: string): Promise<number>;
  /** Stops the PostgreSQL server (fast shutdown: connections end, nothing is lost) until `start()`; the throwaway cluster only. */
  halt(): Promise<void>;
  /** Starts the server `halt()` stopped, on the same port and data. */
  start(): Promise<void>;
  /** `halt()` then `start()`. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

let databases = 0;

/** Starts the throwaway cluster (or attaches to `CONSILIUM_TEST_DATABASE_URL`). */
export async function startPostgres(): Promise<TestPostgres> {
  const existing = process.env[ENV_URL];
  if (existing) return serverAt(existing, async () => undefined);
  if (!postgres.available || !postgres.binDir) throw new Error('PostgreSQL is not available');
  const cluster = await startCluster(postgres.binDir);
  return serverAt(cluster.url, cluster.stop, cluster.control);
}

export interface Control {
  halt(): Promise<void>;
  start(): Promise<void>;
}

const shared: Control = {
  halt: () => Promise.reject(new Error(`cannot stop a server given by ${ENV_URL}`)),
  start: () => Promise.reject(new Error(`cannot start a server given by ${ENV_URL}`)),
};

/** The server at `url` as a `TestPostgres`; `stopServer` ends it, `control` halts and starts it (default: refused). */
export function serverAt(url: string, stopServer: () => Promise<void>, control: Control = shared): TestPostgres {
  const created: string[] = [];
  const admin = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    async createDatabase() {
      const name = `consilium_test_${process.pid}_${Date.now().toString(36)}_${++databases}`;
      await admin((client) => client.query(`CREATE DATABASE ${name}`));
      created.push(name);
      const dbUrl = new URL(url);
      dbUrl.pathname = `/${name}`;
      return dbUrl.toString();
    },
    async terminateBackends(database) {
      const name = database === undefined ? undefined : database.includes('://') ? new URL(database).pathname.slice(1) : database;
      const { rows } = await admin((client) =>
        client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND ($1::text IS NULL OR datname = $1)`,
          [name ?? null],
        ),
      );
      return rows.length;
    },
    halt: () => control.halt(),
    start: () => control.start(),
    async restart() {
      await control.halt();
      await control.start();
    },
    async stop() {
      // On a shared server, leave nothing behind; a throwaway cluster goes whole.
      if (process.env[ENV_URL] && created.length > 0) {
        await admin(async (client) => {
          for (const name of created) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        });
      }
      await stopServer();
    },
  };
}

/** A port nothing listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` OS user. */
function runAs(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { prefix: ['runuser', '-u', 'postgres', '--'], uid: id('-u'), gid: id('-g') };
  } catch (cause) {
    throw new Error('running as root, and there is no `postgres` OS user to own the test cluster', { cause });
  }
}

/**
 * Runs `command` and resolves once it exited 0; else fails with its output. Never synchronously: a forwarder in this
 * process (`forwarder.ts`) may stand between the tool and its server.
 */
function run(prefix: string[], command: string, args: string[]): Promise<void> {
  const [file, ...rest] = [...prefix, command, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(file!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (status) =>
      status === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${status}:\n${output}`)),
    );
  });
}

/** A throwaway server's data directory, and the server binaries run over it as its owner. */
export interface DataDir {
  /** The temp directory holding `data` and `log`; `remove()` deletes it. */
  readonly root: string;
  readonly data: string;
  readonly log: string;
  /** Runs a server binary (`initdb`, `pg_ctl`, `pg_basebackup`...) as the data's owner; throws with its output if it fails. */
  tool(name: string, args: readonly string[]): Promise<void>;
  /** Writes `postgresql.auto.conf`: loopback on `port`, no durability (the data is thrown away), then `extra` lines. */
  configure(port: number, extra?: readonly string[]): void;
  /** `pg_ctl start`, waiting until the server accepts connections. */
  start(): Promise<void>;
  /**
   * `pg_ctl stop`: `fast` ends connections and loses nothing; `immediate` is a crash. Waits until the server has gone,
   * unless `wait` is false: it has then been told, and its connections end, while the postmaster may linger.
   */
  stop(mode: 'fast' | 'immediate', options?: { wait?: boolean }): Promise<void>;
  /** Whether a server runs on the data (its postmaster is alive). */
  running(): Promise<boolean>;
  /** Stops the server if it runs (immediately) and deletes the directory. */
  remove(): Promise<void>;
}

/** A fresh temp directory for a server's data, owned by whoever runs the server; `initdb` into it unless `empty`. */
export async function dataDir(binDir: string, { empty = false }: { empty?: boolean } = {}): Promise<DataDir> {
  const user = runAs();
  const root = mkdtempSync(join(tmpdir(), 'consilium-pg-'));
  if (user.uid !== undefined) chownSync(root, user.uid, user.gid!);
  const data = join(root, 'data');
  const log = join(root, 'server.log');
  const tool = (name: string, args: readonly string[]) => run(user.prefix, join(binDir, name), [...args]);
  const dir: DataDir = {
    root,
    data,
    log,
    tool,
    configure(port, extra = []) {
      const conf = join(data, 'postgresql.auto.conf');
      writeFileSync(
        conf,
        [
          "listen_addresses = '127.0.0.1'",
          `port = ${port}`,
          "unix_socket_directories = ''",
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          'max_connections = 200',
          ...extra,
          '',
        ].join('\n'),
      );
      if (user.uid !== undefined) chownSync(conf, user.uid, user.gid!);
    },
    start: () => tool('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '30', 'start']),
    stop: (mode, { wait = true } = {}) => tool('pg_ctl', ['-D', data, '-m', mode, wait ? '-w' : '-W', 'stop']),
    // pg_ctl status exits 3 when no server runs.
    running: () =>
      tool('pg_ctl', ['-D', data, 'status']).then(
        () => true,
        (error: Error) => {
          if (/no server running/.test(error.message)) return false;
          throw error;
        },
      ),
    async remove() {
      try {
        await dir.stop('immediate');
      } catch {
        // Never started, or already gone.
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  if (!empty) {
    try {
      // --no-sync and fsync=off: the data is thrown away, so durability only costs time.
      await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
    } catch (error) {
      await dir.remove();
      throw error;
    }
  }
  return dir;
}

/** Starts the server of `dir` on a free port (`configure` with `extra`); returns the port. */
export async function startOnFreePort(dir: DataDir, extra: readonly string[] = []): Promise<number> {
  // A port taken between freePort() and the server's bind fails the start; try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    dir.configure(port, extra);
    try {
      await dir.start();
      return port;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

async function startCluster(binDir: string): Promise<{ url: string; stop: () => Promise<void>; control: Control }> {
  const dir = await dataDir(binDir);
  const stop = () => dir.remove();
  try {
    const port = await startOnFreePort(dir);
    const control = { halt: () => dir.stop('fast'), start: () => dir.start() };
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, control };
  } catch (error) {
    await stop();
    throw error;
  }
}
