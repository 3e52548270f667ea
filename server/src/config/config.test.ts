import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, type LogLevel, loadConfig, loadDotEnv } from './config.js';
import { DEFAULT_SLOTS } from './slots.js';

/** Asserts `loadConfig(env)` throws a `ConfigError` whose message matches `message`. */
function rejects(env: Record<string, string>, message: RegExp): ConfigError {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `loadConfig(${JSON.stringify(env)}) should throw`).toBeInstanceOf(ConfigError);
  expect((thrown as ConfigError).name).toBe('ConfigError');
  expect((thrown as ConfigError).message).toMatch(message);
  return thrown as ConfigError;
}

describe('loadConfig defaults', () => {
  it('runs with no environment at all: loopback, 8787, ./data, info, quorum 3, the five default slots offline', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 8787,
      dataDir: resolve('data'),
      database: resolve('data', 'consilium.db'),
      sessionCacheSize: 50,
      storeRetryMs: 30_000,
      retentionDays: 0,
      logLevel: 'info',
      quorum: 3,
      slots: DEFAULT_SLOTS.map((d, i) => ({ ...d, slot: i + 1, api: 'native', live: false })),
      callTimeoutMs: 120_000,
      maxRetries: 2,
      prices: {},
      sseHeartbeatMs: 15_000,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      rateLimits: {
        loginPerAccount: { count: 10, periodMs: 900_000 },
        loginPerAddress: { count: 100, periodMs: 900_000 },
        debateStartsPerUser: { count: 60, periodMs: 3_600_000 },
        runningDebatesPerUser: 8,
      },
      trustedProxies: [],
      offlineTokenDelayMs: undefined,
      publicOrigin: undefined,
      allowedHosts: [],
      signInIdleMinutes: 720,
      signInMaxHours: 168,
      instance: { id: expect.stringMatching(/:8787$/), poolSize: 20, leaseMs: 6000, heartbeatMs: 2000, sweepMs: 2000 },
      drainMs: 30_000,
      metricsToken: undefined,
      passwordHashing: { workers: Math.min(2, Math.max(1, availableParallelism() - 1)), queue: expect.any(Number) },
      wikis: [],
    });
  });

  it('treats every empty variable as unset, as a `.env` line like `PORT=` gives', () => {
    const empty = {
      HOST: '',
      PORT: '',
      CONSILIUM_DATA_DIR: '',
      CONSILIUM_DATABASE: '',
      CONSILIUM_SESSION_CACHE: '',
      CONSILIUM_LOG_LEVEL: '',
      CONSILIUM_QUORUM: '',
      CONSILIUM_CALL_TIMEOUT_MS: '',
      CONSILIUM_MAX_RETRIES: '',
      CONSILIUM_PRICES: '',
      CONSILIUM_SSE_HEARTBEAT_MS: '',
      CONSILIUM_OFFLINE_TOKEN_MS: '',
      CONSILIUM_PUBLIC_ORIGIN: '',
      CONSILIUM_HEADERS_TIMEOUT_MS: '',
      CONSILIUM_BODY_TIMEOUT_MS: '',
      CONSILIUM_RATE_LIMITS: '',
      CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '',
      CONSILIUM_LIMIT_LOGIN_PER_ADDRESS: '',
      CONSILIUM_LIMIT_DEBATES_PER_USER: '',
      CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '',
      CONSILIUM_ALLOWED_HOSTS: '',
      CONSILIUM_INSTANCE_ID: '',
      CONSILIUM_PG_POOL_SIZE: '',
      CONSILIUM_LEASE_MS: '',
      CONSILIUM_HEARTBEAT_MS: '',
      CONSILIUM_SWEEP_MS: '',
      CONSILIUM_DRAIN_MS: '',
      CONSILIUM_METRICS_TOKEN: '',
    };
    expect(loadConfig(empty)).toEqual(loadConfig({}));
  });
});

describe('loadConfig overrides', () => {
  it('debate settings: call deadline, retries, heartbeat, offline pace, prices', () => {
    const config = loadConfig({
      CONSILIUM_CALL_TIMEOUT_MS: '5000',
      CONSILIUM_MAX_RETRIES: '0',
      CONSILIUM_SSE_HEARTBEAT_MS: '1000',
      CONSILIUM_OFFLINE_TOKEN_MS: '0',
      CONSILIUM_PRICES: '{"openai/gpt-4.1": {"inputPerMTok": 2, "outputPerMTok": 8}}',
    });
    expect(config).toMatchObject({
      callTimeoutMs: 5000,
      maxRetries: 0,
      sseHeartbeatMs: 1000,
      offlineTokenDelayMs: 0,
      prices: { 'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 } },
    });
  });

  it.each([
    ['CONSILIUM_CALL_TIMEOUT_MS', '10', /CONSILIUM_CALL_TIMEOUT_MS must be an integer from 1000/],
    ['CONSILIUM_MAX_RETRIES', '-1', /CONSILIUM_MAX_RETRIES must be an integer/],
    ['CONSILIUM_SIGNIN_IDLE_MINUTES', '0', /CONSILIUM_SIGNIN_IDLE_MINUTES must be an integer from 1/],
    ['CONSILIUM_SIGNIN_MAX_HOURS', '9000', /CONSILIUM_SIGNIN_MAX_HOURS must be an integer from 1 to 8760/],
    ['CONSILIUM_PRICES', '{nope', /CONSILIUM_PRICES is not JSON/],
    ['CONSILIUM_PRICES', '{"gpt-4.1": {"inputPerMTok": 2, "outputPerMTok": 8}}', /keyed "provider\/model"/],
    ['CONSILIUM_PRICES', '{"openai/x": {"inputPerMTok": -2, "outputPerMTok": 8}}', /n >= 0/],
    // Settings that parse but cannot be right: each named in one line.
    [
      'CONSILIUM_PRICES',
      '{"openai/gpt-4.l": {"inputPerMTok": 2, "outputPerMTok": 8}}',
      /"openai\/gpt-4\.l"\] prices no configured model/,
    ],
    [
      'CONSILIUM_PRICES',
      '{"openai/gpt-4.1": {"inputPerMTok": 2, "outputPerMTok": 8, "cachedPerMTok": 1}}',
      /cachedPerMTok is not a price field/,
    ],
    ['CONSILIUM_SLOT6_PROVIDER', 'mistral', /CONSILIUM_SLOT6_PROVIDER is set, but there are five slots/],
    ['CONSILIUM_SLOT2_MODLE', 'gpt-5', /CONSILIUM_SLOT2_MODLE is not a slot setting/],
    ['CONSILIUM_SLOT2_API_KEY_ENV', 'PATH', /CONSILIUM_SLOT2_API_KEY_ENV names "PATH", which is no key's variable/],
    ['CONSILIUM_SLOT2_API_KEY_ENV', 'CONSILIUM_METRICS_TOKEN', /names "CONSILIUM_METRICS_TOKEN", which is no key's variable/],
    ['CONSILIUM_TRUSTED_PROXIES', '0.0.0.0/0', /"0\.0\.0\.0\/0" trusts every address/],
    ['CONSILIUM_TRUSTED_PROXIES', '10.0.0.1, ::/0', /"::\/0" trusts every address/],
  ])('refuses %s=%s', (key, value, message) => {
    expect(() => loadConfig({ [key]: value })).toThrow(message);
    expect(() => loadConfig({ [key]: value })).toThrow(/^[^\n]+$/);
  });

  it('takes what those settings may be: a price for a slot’s offered model, a key variable of its own, every proxy as *', () => {
    const config = loadConfig({
      CONSILIUM_SLOT2_MODELS: 'gpt-4.1-mini',
      CONSILIUM_SLOT2_API_KEY_ENV: 'MY_OPENAI_KEY',
      CONSILIUM_PRICES: '{"openai/gpt-4.1-mini": {"inputPerMTok": 0.4, "outputPerMTok": 1.6}}',
      CONSILIUM_TRUSTED_PROXIES: '*',
    });
    expect(config.prices).toEqual({ 'openai/gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 } });
    expect(config.slots[1]!.apiKeyEnv).toBe('MY_OPENAI_KEY');
    expect(config.trustedProxies.map((r) => `${r.address}/${r.prefix}`)).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('HOST', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['8080', 8080],
    ['65535', 65535],
    [' 9000 ', 9000],
  ])('PORT=%j → %i (0 picks a free port)', (raw, port) => {
    expect(loadConfig({ PORT: raw }).port).toBe(port);
  });

  it('CONSILIUM_DATA_DIR, resolved against the working directory', () => {
    expect(loadConfig({ CONSILIUM_DATA_DIR: 'var/consilium' }).dataDir).toBe(resolve('var/consilium'));
    const absolute = join(tmpdir(), 'consilium-data');
    expect(loadConfig({ CONSILIUM_DATA_DIR: absolute }).dataDir).toBe(absolute);
  });

  it('CONSILIUM_DATABASE: a file inside the data directory by default, a relative path resolved, a postgres URL kept as is', () => {
    expect(loadConfig({ CONSILIUM_DATA_DIR: 'var/c' }).database).toBe(resolve('var/c/consilium.db'));
    expect(loadConfig({ CONSILIUM_DATABASE: 'db/sessions.sqlite' }).database).toBe(resolve('db/sessions.sqlite'));
    const url = 'postgres://consilium:secret@db.internal:5432/consilium';
    expect(loadConfig({ CONSILIUM_DATABASE: url }).database).toBe(url);
    expect(loadConfig({ CONSILIUM_DATABASE: 'postgresql://h/db' }).database).toBe('postgresql://h/db');
    expect(() => loadConfig({ CONSILIUM_DATABASE: ':memory:' })).toThrow(/:memory: is not supported/);
  });

  it('CONSILIUM_STORE_RETRY_MS: how long writes are retried; a non-integer is refused by name', () => {
    expect(loadConfig({ CONSILIUM_STORE_RETRY_MS: '500' }).storeRetryMs).toBe(500);
    expect(() => loadConfig({ CONSILIUM_STORE_RETRY_MS: 'forever' })).toThrow(/CONSILIUM_STORE_RETRY_MS/);
  });

  it('CONSILIUM_SESSION_CACHE: 0 turns the cache off; a non-integer is refused by name', () => {
    expect(loadConfig({ CONSILIUM_SESSION_CACHE: '0' }).sessionCacheSize).toBe(0);
    expect(loadConfig({ CONSILIUM_SESSION_CACHE: '200' }).sessionCacheSize).toBe(200);
    expect(() => loadConfig({ CONSILIUM_SESSION_CACHE: 'lots' })).toThrow(/CONSILIUM_SESSION_CACHE/);
  });

  it.each<LogLevel>(['debug', 'info', 'warn', 'error', 'silent'])('CONSILIUM_LOG_LEVEL=%s', (level) => {
    expect(loadConfig({ CONSILIUM_LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it.each([1, 2, 3, 4, 5])('CONSILIUM_QUORUM=%i', (quorum) => {
    expect(loadConfig({ CONSILIUM_QUORUM: String(quorum) }).quorum).toBe(quorum);
  });

  it('passes the slot variables to the slots', () => {
    const config = loadConfig({ CONSILIUM_SLOT3_MODEL: 'deepseek-reasoner', DEEPSEEK_API_KEY: 'k' });
    expect(config.slots[2]).toMatchObject({ slot: 3, provider: 'deepseek', model: 'deepseek-reasoner', live: true });
  });
});

describe('loadConfig rejections', () => {
  it.each(['abc', '-1', '65536', '80.5', '1e3', '0x1F90', '+80', ' ', '8080abc'])('PORT=%j', (raw) => {
    const err = rejects({ PORT: raw }, /^PORT must be an integer from 0 to 65535, got "/);
    expect(err.message).toContain(`got "${raw}"`);
  });

  it.each(['0', '6', 'three', '2.5', '-3'])('CONSILIUM_QUORUM=%j', (raw) => {
    rejects({ CONSILIUM_QUORUM: raw }, new RegExp(`^CONSILIUM_QUORUM must be an integer from 1 to 5, got "${raw}"$`));
  });

  it.each(['verbose', 'INFO', 'trace', ' info'])('CONSILIUM_LOG_LEVEL=%j', (raw) => {
    rejects(
      { CONSILIUM_LOG_LEVEL: raw },
      new RegExp(`^CONSILIUM_LOG_LEVEL must be one of debug, info, warn, error, silent, got "${raw}"$`),
    );
  });

  it.each(['consilium.example.com', 'ftp://x.example', 'https://x.example/app', 'https://u:p@x.example'])(
    'CONSILIUM_PUBLIC_ORIGIN=%j',
    (raw) => {
      rejects({ CONSILIUM_PUBLIC_ORIGIN: raw }, /^CONSILIUM_PUBLIC_ORIGIN must be an origin/);
    },
  );

  it.each(['a b', 'x/y', 'ok,user@host'])('CONSILIUM_ALLOWED_HOSTS=%j', (raw) => {
    rejects({ CONSILIUM_ALLOWED_HOSTS: raw }, /^CONSILIUM_ALLOWED_HOSTS must list host names/);
  });

  it('refuses a body timeout below the headers timeout (Node counts it from the first byte)', () => {
    rejects(
      { CONSILIUM_HEADERS_TIMEOUT_MS: '5000', CONSILIUM_BODY_TIMEOUT_MS: '4000' },
      /^CONSILIUM_BODY_TIMEOUT_MS \(4000\) must not be below/,
    );
    rejects({ CONSILIUM_HEADERS_TIMEOUT_MS: '10' }, /^CONSILIUM_HEADERS_TIMEOUT_MS must be an integer from 100/);
  });

  it('reads the public origin and the extra hosts', () => {
    const config = loadConfig({ CONSILIUM_PUBLIC_ORIGIN: 'https://x.example/', CONSILIUM_ALLOWED_HOSTS: ' a , b:81 ' });
    expect(config.publicOrigin?.origin).toBe('https://x.example');
    expect(config.allowedHosts).toEqual(['a', 'b:81']);
    expect(loadConfig({ CONSILIUM_ALLOWED_HOSTS: '*' }).allowedHosts).toBe('*');
  });

  it('stops on a bad slot, naming the variable (slots throw a plain Error, not ConfigError)', () => {
    expect(() => loadConfig({ CONSILIUM_SLOT2_PROVIDER: 'Open AI' })).toThrow(/^CONSILIUM_SLOT2_PROVIDER must match/);
    expect(() => loadConfig({ CONSILIUM_SLOT4_PROVIDER: 'ollama-qwen' })).toThrow(/needs CONSILIUM_SLOT4_BASE_URL/);
  });
});

describe('several instances', () => {
  it('names the instance <hostname>:<port> by default, so a restart keeps its id', () => {
    const id = loadConfig({ PORT: '9001' }).instance.id;
    expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*:9001$/);
    expect(id).toBe(
      `${hostname()
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .slice(0, 56)}:9001`,
    );
  });

  it('takes the pool, lease, heartbeat, sweep, drain, id and metrics token from the environment', () => {
    const config = loadConfig({
      CONSILIUM_INSTANCE_ID: 'web-1.example:8787',
      CONSILIUM_PG_POOL_SIZE: '4',
      CONSILIUM_LEASE_MS: '10000',
      CONSILIUM_HEARTBEAT_MS: '4999',
      CONSILIUM_SWEEP_MS: '500',
      CONSILIUM_DRAIN_MS: '0',
      CONSILIUM_METRICS_TOKEN: 'scrape-0123456789abcdef',
    });
    expect(config.instance).toEqual({ id: 'web-1.example:8787', poolSize: 4, leaseMs: 10_000, heartbeatMs: 4999, sweepMs: 500 });
    expect(config.drainMs).toBe(0);
    expect(config.metricsToken).toBe('scrape-0123456789abcdef');
  });

  it('refuses a heartbeat not below half the lease: one missed renewal would let the lease lapse', () => {
    rejects(
      { CONSILIUM_LEASE_MS: '6000', CONSILIUM_HEARTBEAT_MS: '3000' },
      /CONSILIUM_HEARTBEAT_MS \(3000\) must be below half of CONSILIUM_LEASE_MS \(6000\)/,
    );
    rejects({ CONSILIUM_HEARTBEAT_MS: '3000' }, /below half/);
  });

  it.each([
    ['a space', 'web 1'],
    ['a slash', 'web/1'],
    ['a leading dash', '-web'],
    ['64 characters', 'a'.repeat(64)],
    ['a quote', "web'1"],
  ])('refuses an instance id with %s', (_, id) => {
    rejects({ CONSILIUM_INSTANCE_ID: id }, /^CONSILIUM_INSTANCE_ID must be 1 to 63 letters/);
  });

  it('refuses out-of-range numbers and a short or spaced metrics token', () => {
    rejects({ CONSILIUM_PG_POOL_SIZE: '0' }, /^CONSILIUM_PG_POOL_SIZE must be an integer from 1/);
    rejects({ CONSILIUM_LEASE_MS: '999' }, /^CONSILIUM_LEASE_MS must be an integer from 1000/);
    rejects({ CONSILIUM_SWEEP_MS: '99' }, /^CONSILIUM_SWEEP_MS must be an integer from 100/);
    rejects({ CONSILIUM_DRAIN_MS: '-1' }, /^CONSILIUM_DRAIN_MS must be an integer/);
    rejects({ CONSILIUM_METRICS_TOKEN: 'short' }, /^CONSILIUM_METRICS_TOKEN must be 16 to 256/);
    rejects({ CONSILIUM_METRICS_TOKEN: 'has a space in it, so no' }, /^CONSILIUM_METRICS_TOKEN must be 16 to 256/);
  });
});

describe('password hashing', () => {
  it('hashes on one thread per core but one, at most two, with four waiting per thread', () => {
    const { workers, queue } = loadConfig({}).passwordHashing;
    expect(workers).toBe(Math.min(2, Math.max(1, availableParallelism() - 1)));
    expect(queue).toBe(4 * workers);
  });

  it('takes both from the environment, a queue of 0 refusing whatever finds every worker busy', () => {
    expect(loadConfig({ CONSILIUM_HASH_WORKERS: '3', CONSILIUM_HASH_QUEUE: '0' }).passwordHashing).toEqual({
      workers: 3,
      queue: 0,
    });
    expect(loadConfig({ CONSILIUM_HASH_WORKERS: '3' }).passwordHashing).toEqual({ workers: 3, queue: 12 });
  });

  it('refuses no worker at all, or a count that is not one', () => {
    expect(() => loadConfig({ CONSILIUM_HASH_WORKERS: '0' })).toThrow(/CONSILIUM_HASH_WORKERS must be an integer from 1 to 64/);
    expect(() => loadConfig({ CONSILIUM_HASH_QUEUE: '-1' })).toThrow(/CONSILIUM_HASH_QUEUE must be an integer from 0/);
  });
});

describe('loadDotEnv', () => {
  const keys = ['CONSILIUM_TEST_DOTENV_A', 'CONSILIUM_TEST_DOTENV_B'] as const;
  let dir: string | undefined;
  afterEach(() => {
    for (const key of keys) delete process.env[key];
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('returns false when there is no file', () => {
    expect(loadDotEnv(join(tmpdir(), 'consilium-no-such-dir', '.env'))).toBe(false);
  });

  it('loads the file into process.env, and the real environment wins', () => {
    dir = mkdtempSync(join(tmpdir(), 'consilium-dotenv-'));
    const path = join(dir, '.env');
    writeFileSync(path, `${keys[0]}=from-file\n${keys[1]}=from-file\n`);
    process.env[keys[0]] = 'from-env';
    expect(loadDotEnv(path)).toBe(true);
    expect(process.env[keys[0]]).toBe('from-env');
    expect(process.env[keys[1]]).toBe('from-file');
  });
});
