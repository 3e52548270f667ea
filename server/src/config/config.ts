import { existsSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parseHost } from './hosts.js';
import { type RateLimits, rateLimitsFromEnv } from './limits.js';
import { type PriceTable, parsePrices } from './prices.js';
import { type AddressRange, parseTrustedProxies } from './proxies.js';
import { ConfigError, type SlotConfig, slotsFromEnv } from './slots.js';
import { type WikiSourceConfig, wikisFromEnv } from './wikis.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Where sessions persist: an SQLite file path, or a `postgres://` URL for several instances. */
  database: string;
  /** How many recent sessions are kept in memory, so reading them never touches the database. */
  sessionCacheSize: number;
  /** How long a run's writes are retried while the session store fails before the run ends `failed`. */
  storeRetryMs: number;
  /** Sessions created more than this many days ago are deleted (hourly); 0, the default, keeps them all. */
  retentionDays: number;
  logLevel: LogLevel;
  quorum: number;
  slots: SlotConfig[];
  /** Deadline of one model call, retries included. */
  callTimeoutMs: number;
  /** Further attempts after a retryable provider failure (429, 5xx, network) before any text arrived. */
  maxRetries: number;
  /** USD per million tokens by `provider/model`; unpriced usage makes costs a lower bound. */
  prices: PriceTable;
  /** The offline model's mean delay per token; unset keeps each slot's realistic pace, 0 streams at once. */
  offlineTokenDelayMs: number | undefined;
  /** How often an event stream gets a `: heartbeat` comment, for proxies that close idle connections. */
  sseHeartbeatMs: number;
  /** How long a client may take to send a request's headers, and its whole request (headers and body). */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Sign-in and debate-start limits; each undefined when off. */
  rateLimits: RateLimits;
  /** `CONSILIUM_TRUSTED_PROXIES`: proxies whose forwarded-for headers name the client; empty: the connection's address counts. */
  trustedProxies: AddressRange[];
  /** `CONSILIUM_PUBLIC_ORIGIN`: the origin clients reach the service at (through a proxy), e.g. `https://consilium.example.com`. */
  publicOrigin: URL | undefined;
  /** `CONSILIUM_ALLOWED_HOSTS`: further `Host` names the service answers to; `*` answers to any (reopens DNS rebinding). */
  allowedHosts: string[] | '*';
  /** A sign-in (session cookie) unused this long ends. */
  signInIdleMinutes: number;
  /** A sign-in ends this long after it began, used or not. */
  signInMaxHours: number;
  /** Several instances on one PostgreSQL database: see `instanceSettings`. */
  instance: InstanceSettings;
  /** `CONSILIUM_DRAIN_MS`: how long SIGTERM lets running debates finish before the process stops them and exits. */
  drainMs: number;
  /** `CONSILIUM_HASH_WORKERS` / `CONSILIUM_HASH_QUEUE`: password hashes at once, each on a thread of its own, and waiting. */
  passwordHashing: { workers: number; queue: number };
  /** `CONSILIUM_METRICS_TOKEN`: the bearer token `GET /metrics` asks for; unset, `/metrics` is not served. */
  metricsToken: string | undefined;
  /** `CONSILIUM_WIKIS`: the wiki sources a debate may be grounded in (see `wikis.ts`). */
  wikis: WikiSourceConfig[];
}

/** How an instance shares a PostgreSQL database with others (SQLite ignores all but `id`). */
export interface InstanceSettings {
  /** `CONSILIUM_INSTANCE_ID`: stable across restarts, so a restarted instance recovers its own runs at start. */
  id: string;
  /** `CONSILIUM_PG_POOL_SIZE`: connections in the pool, besides the one LISTEN connection. */
  poolSize: number;
  /** `CONSILIUM_LEASE_MS`: how long an instance's lease outlives its last renewal. */
  leaseMs: number;
  /** `CONSILIUM_HEARTBEAT_MS`: how often the lease is renewed. */
  heartbeatMs: number;
  /** `CONSILIUM_SWEEP_MS`: how often runs whose instance's lease expired are looked for. */
  sweepMs: number;
}

/** 40 debates at once on one instance kept 18 connections busy; at 10 their steps queued for the pool (bench/postgres.ts). */
export const DEFAULT_POOL_SIZE = 20;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export { ConfigError };

type Env = Record<string, string | undefined>;

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: `Number()` would read " " as 0 (a random port), "1e3" as 1000 and "0x1F90" as 8080.
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${key} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * Reads configuration from the environment. Every setting has a default, so a fresh checkout
 * runs with none: loopback only, port 8787, data under ./data, offline models.
 */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.CONSILIUM_LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`CONSILIUM_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const dataDir = resolve(env.CONSILIUM_DATA_DIR || 'data');
  const database = env.CONSILIUM_DATABASE || join(dataDir, 'consilium.db');
  // SQLite's `:memory:` would be read as a file name here, and the store's writer and reader connections
  // would not share one in-memory database anyway.
  if (database === ':memory:') {
    throw new ConfigError('CONSILIUM_DATABASE=:memory: is not supported: use a file (on tmpfs, e.g. /dev/shm/consilium.db)');
  }
  const port = integer(env, 'PORT', 8787, 0, 65535);
  const slots = slotsFromEnv(env);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    dataDir,
    database: isDatabaseUrl(database) ? database : resolve(database),
    sessionCacheSize: integer(env, 'CONSILIUM_SESSION_CACHE', 50, 0, 100_000),
    storeRetryMs: integer(env, 'CONSILIUM_STORE_RETRY_MS', 30_000, 0, 3_600_000),
    retentionDays: integer(env, 'CONSILIUM_RETENTION_DAYS', 0, 0, 100_000),
    logLevel,
    quorum: integer(env, 'CONSILIUM_QUORUM', 3, 1, 5),
    slots,
    callTimeoutMs: integer(env, 'CONSILIUM_CALL_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    maxRetries: integer(env, 'CONSILIUM_MAX_RETRIES', 2, 0, 10),
    prices: parsePrices(
      env.CONSILIUM_PRICES,
      slots.flatMap((s) => [s.model, ...(s.models ?? [])].map((model) => `${s.provider}/${model}`)),
    ),
    sseHeartbeatMs: integer(env, 'CONSILIUM_SSE_HEARTBEAT_MS', 15_000, 10, 3_600_000),
    ...timeouts(env),
    rateLimits: rateLimitsFromEnv(env),
    trustedProxies: parseTrustedProxies(env.CONSILIUM_TRUSTED_PROXIES),
    offlineTokenDelayMs: env.CONSILIUM_OFFLINE_TOKEN_MS ? integer(env, 'CONSILIUM_OFFLINE_TOKEN_MS', 0, 0, 10_000) : undefined,
    publicOrigin: publicOrigin(env.CONSILIUM_PUBLIC_ORIGIN),
    allowedHosts: allowedHosts(env.CONSILIUM_ALLOWED_HOSTS),
    signInIdleMinutes: integer(env, 'CONSILIUM_SIGNIN_IDLE_MINUTES', 720, 1, 525_600),
    signInMaxHours: integer(env, 'CONSILIUM_SIGNIN_MAX_HOURS', 168, 1, 8760),
    instance: instanceSettings(env, port),
    drainMs: integer(env, 'CONSILIUM_DRAIN_MS', 30_000, 0, 3_600_000),
    metricsToken: metricsToken(env.CONSILIUM_METRICS_TOKEN),
    passwordHashing: passwordHashing(env),
    wikis: wikisFromEnv(env),
  };
}

/**
 * A core for the rest (the event loop) when there are several, at most two hashing: 32 MiB and ~190 ms a hash, so
 * about 10 sign-ins a second. Four waiting per worker keeps a refused attempt's alternative, waiting, under a second.
 */
function passwordHashing(env: Env): Config['passwordHashing'] {
  const workers = integer(env, 'CONSILIUM_HASH_WORKERS', Math.min(2, Math.max(1, availableParallelism() - 1)), 1, 64);
  return { workers, queue: integer(env, 'CONSILIUM_HASH_QUEUE', 4 * workers, 0, 10_000) };
}

/** Letters, digits and `.:_-`, as in `host:port`: it goes into a connection's application_name and the logs. */
const INSTANCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,62}$/;

/**
 * The defaults let a dead instance's runs be recognised within 10 s: its lease expires at most 6 s after its
 * last renewal, and the next sweep (every 2 s) finds them.
 */
function instanceSettings(env: Env, port: number): InstanceSettings {
  // The default must pass its own check whatever the machine is called.
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56) || 'host';
  const id = env.CONSILIUM_INSTANCE_ID || `${host}:${port}`;
  if (!INSTANCE_ID.test(id)) {
    throw new ConfigError(
      `CONSILIUM_INSTANCE_ID must be 1 to 63 letters, digits, '.', ':', '_' or '-' (starting with a letter or digit), got "${id}"`,
    );
  }
  const leaseMs = integer(env, 'CONSILIUM_LEASE_MS', 6000, 1000, 3_600_000);
  const heartbeatMs = integer(env, 'CONSILIUM_HEARTBEAT_MS', 2000, 100, 3_600_000);
  // Two renewals per lease at least, so one slow or failed renewal does not let the lease lapse.
  if (heartbeatMs >= leaseMs / 2) {
    throw new ConfigError(`CONSILIUM_HEARTBEAT_MS (${heartbeatMs}) must be below half of CONSILIUM_LEASE_MS (${leaseMs})`);
  }
  return {
    id,
    poolSize: integer(env, 'CONSILIUM_PG_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    leaseMs,
    heartbeatMs,
    sweepMs: integer(env, 'CONSILIUM_SWEEP_MS', 2000, 100, 3_600_000),
  };
}

function metricsToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  // It is sent as `Authorization: Bearer <token>`: a token68-ish value, and long enough not to be guessed.
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) {
    throw new ConfigError('CONSILIUM_METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  }
  return raw;
}

function timeouts(env: Env): { headersTimeoutMs: number; bodyTimeoutMs: number } {
  const headersTimeoutMs = integer(env, 'CONSILIUM_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const bodyTimeoutMs = integer(env, 'CONSILIUM_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000);
  // Node counts the request timeout from the first byte, headers included.
  if (bodyTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      `CONSILIUM_BODY_TIMEOUT_MS (${bodyTimeoutMs}) must not be below CONSILIUM_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  }
  return { headersTimeoutMs, bodyTimeoutMs };
}

function publicOrigin(raw: string | undefined): URL | undefined {
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== raw.replace(/\/$/, '')) {
    throw new ConfigError(`CONSILIUM_PUBLIC_ORIGIN must be an origin such as https://consilium.example.com, got "${raw}"`);
  }
  return url;
}

function allowedHosts(raw: string | undefined): string[] | '*' {
  if (raw?.trim() === '*') return '*';
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  for (const host of hosts) {
    if (!parseHost(host))
      throw new ConfigError(`CONSILIUM_ALLOWED_HOSTS must list host names (name or name:port), got "${host}"`);
  }
  return hosts;
}

/** A PostgreSQL connection URL rather than an SQLite file path. */
export function isDatabaseUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Loads `.env` from the working directory into `process.env`, if there is one; real env wins. */
export function loadDotEnv(path = '.env'): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}
