import type { Context, MiddlewareHandler } from 'hono';
import type { Rate } from '../config/limits.js';
import { problem } from './problem.js';

/** How many keys a limiter remembers; past it the oldest are forgotten (they start again with a full bucket). */
const MAX_KEYS = 100_000;

/** Token buckets by key: each holds `count` tokens and regains them evenly over `periodMs`. */
export class RateLimiter {
  readonly #rate: Rate;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(rate: Rate, now: () => number = Date.now) {
    this.#rate = rate;
    this.#now = now;
  }

  /** Takes a token for `key`: undefined if there was one, else the seconds until there will be. */
  take(key: string): number | undefined {
    const now = this.#now();
    const { count, periodMs } = this.#rate;
    const bucket = this.#buckets.get(key);
    const tokens = bucket ? Math.min(count, bucket.tokens + ((now - bucket.at) * count) / periodMs) : count;
    if (tokens < 1) return Math.max(1, Math.ceil(((1 - tokens) * periodMs) / count / 1000));
    this.#buckets.delete(key); // re-inserted last, so the map stays in least-recently-used order
    this.#buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.#buckets.size > MAX_KEYS) this.#buckets.delete(this.#buckets.keys().next().value!);
    return undefined;
  }

  /** Forgets `key`, e.g. an account after a successful sign-in. */
  reset(key: string): void {
    this.#buckets.delete(key);
  }
}

/** Counts what runs at once per key. */
export class ConcurrencyLimiter {
  readonly #max: number;
  readonly #running = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** A release function (call it once, when the work ends), or undefined if `key` is at its limit. */
  acquire(key: string): (() => void) | undefined {
    const n = this.#running.get(key) ?? 0;
    if (n >= this.#max) return undefined;
    this.#running.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#running.get(key) ?? 1) - 1;
      if (left > 0) this.#running.set(key, left);
      else this.#running.delete(key);
    };
  }

  running(key: string): number {
    return this.#running.get(key) ?? 0;
  }
}

/** 429 `rate_limited` with `Retry-After`. */
export function tooManyRequests(c: Context, retryAfterSeconds: number, detail: string): Response {
  const res = problem(c, 429, 'rate_limited', { detail });
  res.headers.set('retry-after', String(retryAfterSeconds));
  return res;
}

/** The address the connection came from (a proxy's, behind one). */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

export interface LoginLimits {
  perAccount?: Rate;
  perAddress?: Rate;
}

/**
 * Throttles sign-in attempts per client address, and per account name (from the JSON body's `username`)
 * from that address, before the credentials are checked. Keyed by name alone, anyone could keep an
 * account (the admin's) locked out with a few wrong passwords; per address, the lock holds only where
 * the guesses come from. A successful sign-in (2xx) gives the account its attempts from there back.
 */
export function loginRateLimit(limits: LoginLimits): MiddlewareHandler {
  const byAccount = limits.perAccount && new RateLimiter(limits.perAccount);
  const byAddress = limits.perAddress && new RateLimiter(limits.perAddress);
  return async (c, next) => {
    const address = clientAddress(c);
    const waitAddress = byAddress?.take(address);
    if (waitAddress !== undefined) return tooManyRequests(c, waitAddress, 'Too many sign-in attempts from this address.');
    const name = byAccount && (await usernameOf(c));
    const account = name === undefined ? undefined : `${address}\n${name}`;
    if (account !== undefined) {
      const waitAccount = byAccount?.take(account);
      if (waitAccount !== undefined)
        return tooManyRequests(c, waitAccount, 'Too many sign-in attempts for this account from this address.');
    }
    await next();
    if (account !== undefined && c.res.status >= 200 && c.res.status < 300) byAccount?.reset(account);
  };
}

/** The body's `username`, case-folded, if it is JSON with one; Hono keeps the parsed body for the validator. */
async function usernameOf(c: Context): Promise<string | undefined> {
  if (!/^application\/(.+\+)?json\b/i.test(c.req.header('content-type') ?? '')) return undefined;
  try {
    const body = (await c.req.json()) as { username?: unknown };
    return typeof body?.username === 'string' ? body.username.normalize('NFC').toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
