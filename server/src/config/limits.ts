import { ConfigError } from './slots.js';

/** At most `count` in any `periodMs` (a token bucket: `count` at once, refilled evenly over the period). */
export interface Rate {
  count: number;
  periodMs: number;
}

export interface RateLimits {
  /** Sign-in attempts per account name. */
  loginPerAccount: Rate | undefined;
  /** Sign-in attempts per client address. */
  loginPerAddress: Rate | undefined;
  /** Debates (and single asks, syntheses) a user may start. */
  debateStartsPerUser: Rate | undefined;
  /** Debates of one user running at the same time. */
  runningDebatesPerUser: number | undefined;
}

type Env = Record<string, string | undefined>;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `10/15m` → 10 per 15 minutes; `off` → no limit; unset → `fallback`. */
export function parseRate(env: Env, key: string, fallback: string): Rate | undefined {
  const raw = (env[key] || fallback).trim();
  if (raw === 'off') return undefined;
  const m = /^(\d{1,9})\/(\d{0,9})(ms|s|m|h)$/.exec(raw);
  const count = Number(m?.[1]);
  const periodMs = Number(m?.[2] || 1) * (UNITS[m?.[3] ?? ''] ?? Number.NaN);
  if (!m || count < 1 || !(periodMs >= 1)) {
    throw new ConfigError(`${key} must be a rate such as 10/15m (count/period in ms, s, m or h) or off, got "${raw}"`);
  }
  return { count, periodMs };
}

function parseCount(env: Env, key: string, fallback: string): number | undefined {
  const raw = (env[key] || fallback).trim();
  if (raw === 'off') return undefined;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${key} must be a positive integer or off, got "${raw}"`);
  return Number(raw);
}

/** The limits from the environment; `CONSILIUM_RATE_LIMITS=off` turns every one off (benchmarks, tests). */
export function rateLimitsFromEnv(env: Env): RateLimits {
  const all = (env.CONSILIUM_RATE_LIMITS || 'on').trim();
  if (all !== 'on' && all !== 'off') throw new ConfigError(`CONSILIUM_RATE_LIMITS must be on or off, got "${all}"`);
  const off = all === 'off';
  return {
    loginPerAccount: off ? undefined : parseRate(env, 'CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT', '10/15m'),
    loginPerAddress: off ? undefined : parseRate(env, 'CONSILIUM_LIMIT_LOGIN_PER_ADDRESS', '100/15m'),
    debateStartsPerUser: off ? undefined : parseRate(env, 'CONSILIUM_LIMIT_DEBATES_PER_USER', '60/1h'),
    runningDebatesPerUser: off ? undefined : parseCount(env, 'CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER', '8'),
  };
}
