import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { User } from '../../sdk/src/generated/types.gen.js';
import { type Client, createConsiliumClient } from '../../sdk/src/index.js';
import type { Accounts } from '../../server/src/accounts/accounts.js';
import { openAccounts } from '../../server/src/accounts/open.js';
import type { ScryptParams } from '../../server/src/accounts/passwords.js';
import type { Role } from '../../server/src/accounts/store.js';
import { type Config, loadConfig } from '../../server/src/config/config.js';
import { createLogger } from '../../server/src/config/log.js';
import { createApp } from '../../server/src/http/app.js';
import type { DebateDeps } from '../../server/src/http/deps.js';
import { LOCAL_OWNER } from '../../server/src/http/owner.js';
import { Readiness } from '../../server/src/http/readiness.js';
import { answerClientErrors, httpServerOptions } from '../../server/src/http/timeouts.js';
import { openSessions } from '../../server/src/sessions/open.js';
import type { Sessions } from '../../server/src/sessions/sessions.js';
import { type Database, openDatabase } from '../../server/src/store/open.js';

/** Someone with an API token: an SDK client and a `fetch` that send it. */
export interface Caller {
  user: User;
  password: string;
  /** The API token's secret. */
  token: string;
  /** `{ authorization: 'Bearer …' }`, to add to a request. */
  headers: Record<string, string>;
  /** The SDK, signed in with the token. */
  client: Client;
  /** `fetch(baseUrl + path)` with the token added (headers given in `init` are kept). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export interface RunningServer extends Caller {
  baseUrl: string;
  config: Config;
  /** The database it stores sessions and accounts in. */
  database: Database;
  /** What `/ready` answers besides the database: `readiness.drain()` makes it 503 `draining`. */
  readiness: Readiness;
  sessions: Sessions;
  accounts: Accounts;
  /** The SDK with no credentials. */
  anonymous: Client;
  /** The scrypt parameters its passwords are hashed with (`TEST_SCRYPT`). */
  scrypt: ScryptParams;
  /** The first admin's password (`admin` when this server created it). */
  adminPassword: string;
  /** Another user with a token of their own; `role` defaults to `user`. */
  newUser(options?: { role?: Role; username?: string; password?: string }): Promise<Caller>;
  /** An admin with a token (made on first use, then the same one). */
  admin(): Promise<Caller>;
  close(): Promise<void>;
}

/**
 * The cost test servers hash passwords with: 2^10 instead of production's 2^15 (`DEFAULT_SCRYPT`), since every
 * server start, sign-in and new user hashes one, and mutation testing reruns them thousands of times. Real
 * scrypt all the same, through `openAccounts`' own parameter; each hash records it, so it verifies as any other.
 */
export const TEST_SCRYPT: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

/**
 * The real app on a real HTTP server on loopback, on a free port, storing sessions in a fresh SQLite
 * file (unless `env` names a database); offline models stream without delay unless `env` says otherwise.
 * It has accounts like any server: the first admin is created if the store has none, and the
 * returned server is itself a caller — a fresh user (role `user`) with an API token.
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  options: {
    /** The debate engine and its deps, instead of the app's own (a test counting model calls). */
    debate?: (config: Config, sessions: Sessions) => DebateDeps;
    /** What `/ready` answers besides the database, instead of a `Readiness` that is started. */
    readiness?: Readiness;
  } = {},
): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'consilium-test-'));
  // Rate limits off unless a test sets them: suites run more debates than a person would.
  const all = {
    CONSILIUM_LOG_LEVEL: 'silent',
    CONSILIUM_OFFLINE_TOKEN_MS: '0',
    CONSILIUM_DATA_DIR: dataDir,
    CONSILIUM_RATE_LIMITS: 'off',
    // Suites sign in many at once; a test of the hash queue's bound sets its own.
    CONSILIUM_HASH_QUEUE: '1000',
    ...env,
  };
  const config = loadConfig(all);
  // Each test server is an instance of its own (a fresh id), whatever its port.
  const database = await openDatabase(config.database, { maxConnections: config.instance.poolSize });
  const sessions = await openSessions(database.sessions, {
    cacheSize: config.sessionCacheSize,
    storeRetryMs: config.storeRetryMs,
    checkEveryMs: config.instance.sweepMs,
    handOverWaitMs: config.instance.leaseMs + 2 * config.instance.sweepMs,
  });
  const accounts = openAccounts(database.accounts, config, TEST_SCRYPT);
  const adminPassword = `admin-${randomUUID()}`;
  await accounts.bootstrap({ password: adminPassword, adopt: LOCAL_OWNER });
  const readiness = options.readiness ?? new Readiness();
  // Slot keys come from `env` only, never from the machine running the tests.
  const app = createApp({
    store: database,
    readiness,
    config,
    env: all,
    logger: createLogger('silent'),
    version: '0.0.0-test',
    sessions,
    accounts,
    limits: database.limits,
    ...(options.debate && { debate: options.debate(config, sessions) }),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0, serverOptions: httpServerOptions(config) }, () =>
      resolve(s),
    );
    answerClientErrors(s);
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  const newUser = async ({ role = 'user', username, password }: { role?: Role; username?: string; password?: string } = {}) => {
    const name = username ?? `${role}-${randomUUID().slice(0, 8)}`;
    const secret = password ?? `pw-${randomUUID()}`;
    const { user } = await accounts.createUser({ username: name, role, password: secret });
    const { token } = await accounts.createToken(user.id, 'tests');
    return caller(baseUrl, user, secret, token);
  };
  let admin: Promise<Caller> | undefined;
  const self = await newUser();
  return {
    ...self,
    baseUrl,
    config,
    database,
    readiness,
    sessions,
    accounts,
    scrypt: TEST_SCRYPT,
    anonymous: createConsiliumClient({ baseUrl }),
    adminPassword,
    newUser,
    admin: () => {
      admin ??= newUser({ role: 'admin' });
      return admin;
    },
    close: async () => {
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      await sessions.close();
      await accounts.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A caller of `baseUrl` with `token`. */
export function caller(baseUrl: string, user: User, password: string, token: string): Caller {
  const headers = { authorization: `Bearer ${token}` };
  return {
    user,
    password,
    token,
    headers,
    client: createConsiliumClient({ baseUrl, token }),
    fetch: (path, init = {}) => {
      const merged = new Headers(init.headers);
      if (!merged.has('authorization')) merged.set('authorization', headers.authorization);
      return fetch(`${baseUrl}${path}`, { ...init, headers: merged });
    },
  };
}
