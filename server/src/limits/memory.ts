/** Limits in this process's memory: for one process (SQLite), where they are equivalent to counting them in the database. */
import type { Rate } from '../config/limits.js';
import type { Buckets, LimitStore, Release, Slots } from './store.js';

/** How many keys a limiter remembers; past it the oldest are forgotten (they start again with a full bucket). */
const MAX_KEYS = 100_000;

/**
 * Elapsed time is read off a monotonic clock (`performance.now`), which the wall clock's steps (NTP, a clock set
 * by hand, a VM resumed) never move: a bucket refills by the time that really passed, and a clock put back an hour
 * owes nobody an hour.
 */
const monotonic = () => performance.now();

/**
 * Token buckets by key: each holds `count` tokens and regains them evenly over `periodMs`. A clock given that steps
 * back counts as no time passed, never as tokens owed.
 */
export class RateLimiter {
  readonly #rate: Rate;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(rate: Rate, now: () => number = monotonic) {
    this.#rate = rate;
    this.#now = now;
  }

  /** Takes a token for `key`: undefined if there was one, else the seconds until there will be. */
  take(key: string): number | undefined {
    const { count, periodMs } = this.#rate;
    const tokens = this.level(key);
    if (tokens < 1) return Math.max(1, Math.ceil(((1 - tokens) * periodMs) / count / 1000));
    this.#set(key, tokens - 1);
    return undefined;
  }

  /** Takes a token whatever the bucket holds, owing at most `count`; the tokens left. */
  charge(key: string): number {
    const tokens = Math.max(-this.#rate.count, this.level(key) - 1);
    this.#set(key, tokens);
    return tokens;
  }

  /** The tokens `key` holds now. */
  level(key: string): number {
    const { count, periodMs } = this.#rate;
    const bucket = this.#buckets.get(key);
    if (!bucket) return count;
    const now = this.#now();
    // A clock that went back: no time passed, and time counts on from where it is now.
    if (now < bucket.at) bucket.at = now;
    return Math.min(count, bucket.tokens + ((now - bucket.at) * count) / periodMs);
  }

  /** Forgets `key`, e.g. an account after a successful sign-in. */
  reset(key: string): void {
    this.#buckets.delete(key);
  }

  /** Gives back one token (at most `count`), e.g. for an attempt that was refused before it was checked. */
  refund(key: string): void {
    if (this.#buckets.has(key)) this.#set(key, Math.min(this.#rate.count, this.level(key) + 1));
  }

  #set(key: string, tokens: number): void {
    this.#buckets.delete(key); // re-inserted last, so the map stays in least-recently-used order
    this.#buckets.set(key, { tokens, at: this.#now() });
    if (this.#buckets.size > MAX_KEYS) this.#buckets.delete(this.#buckets.keys().next().value!);
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

/** `LimitStore` over the two limiters above; asking twice for the same name (and rate) gives the same limits. */
export class MemoryLimitStore implements LimitStore {
  readonly #now: () => number;
  readonly #buckets = new Map<string, Buckets>();
  readonly #slots = new Map<string, Slots>();

  constructor(now: () => number = monotonic) {
    this.#now = now;
  }

  buckets(name: string, rate: Rate): Buckets {
    const id = `${name}\n${rate.count}/${rate.periodMs}`;
    let buckets = this.#buckets.get(id);
    if (!buckets) {
      const limiter = new RateLimiter(rate, this.#now);
      buckets = {
        take: async (key) => limiter.take(key),
        charge: async (key) => limiter.charge(key),
        level: async (key) => limiter.level(key),
        reset: async (key) => limiter.reset(key),
        refund: async (key) => limiter.refund(key),
      };
      this.#buckets.set(id, buckets);
    }
    return buckets;
  }

  slots(name: string, max: number): Slots {
    const id = `${name}\n${max}`;
    let slots = this.#slots.get(id);
    if (!slots) {
      const limiter = new ConcurrencyLimiter(max);
      slots = {
        acquire: async (key) => {
          const release = limiter.acquire(key);
          return release && ((async () => release()) satisfies Release);
        },
        held: async (key) => limiter.running(key),
      };
      this.#slots.set(id, slots);
    }
    return slots;
  }
}
