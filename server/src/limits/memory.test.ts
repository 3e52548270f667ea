/**
 * Limits in memory against a wall clock that jumps: the buckets measure elapsed time on a monotonic clock, so a
 * clock set a day ahead and then back (moved here, inside the test process) neither fills nor drains them, and a
 * clock given to them that steps back counts as no time passed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryLimitStore, RateLimiter } from './memory.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

afterEach(() => {
  vi.useRealTimers();
});

describe('RateLimiter and a wall clock that jumps', () => {
  it('a day ahead and back again: the same wait as before, no debt and no refill', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limiter = new RateLimiter({ count: 2, periodMs: HOUR });
    const start = Date.now();
    vi.setSystemTime(start + DAY);
    expect([limiter.take('u'), limiter.take('u')]).toEqual([undefined, undefined]);
    const wait = limiter.take('u');
    // One token per 30 minutes; a little real time has passed, never a day's worth.
    expect(wait).toBeGreaterThan(1700);
    expect(wait).toBeLessThanOrEqual(1800);
    vi.setSystemTime(start);
    expect(limiter.take('u')).toBeLessThanOrEqual(wait!);
    expect(limiter.level('u')).toBeGreaterThanOrEqual(0);
    // And back to a day ahead: nothing refilled by the jump either.
    vi.setSystemTime(start + DAY);
    expect(limiter.take('u')).toBeGreaterThan(1700);
  });

  it('a clock it is given that steps back counts as no time passed', () => {
    let now = 10 * DAY;
    const limiter = new RateLimiter({ count: 2, periodMs: HOUR }, () => now);
    limiter.take('u');
    limiter.take('u');
    expect(limiter.take('u')).toBe(1800);
    now -= DAY;
    expect(limiter.level('u')).toBe(0);
    expect(limiter.take('u')).toBe(1800);
    now += 30 * 60_000;
    expect(limiter.take('u')).toBeUndefined();
  });

  it('the store’s buckets keep the monotonic clock too', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const buckets = new MemoryLimitStore().buckets('debates', { count: 1, periodMs: HOUR });
    const start = Date.now();
    vi.setSystemTime(start + DAY);
    expect(await buckets.take('u')).toBeUndefined();
    vi.setSystemTime(start);
    const wait = await buckets.take('u');
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
  });
});
