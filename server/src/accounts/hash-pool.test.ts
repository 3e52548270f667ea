/**
 * The password hash pool: the same keys as `crypto.scrypt`, at most `workers` running and `queue` waiting with the
 * rest refused at once, libuv's thread pool left free while it hashes, and closing ends what waits.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { HashPool, HashPoolFull } from './hash-pool.js';
import { DEFAULT_SCRYPT, deriveKey, hashPassword, verifyPassword } from './passwords.js';

const SMALL = { N: 16, r: 1, p: 1 };
const pools: HashPool[] = [];
const pool = (workers: number, queue: number) => {
  const made = new HashPool({ workers, queue });
  pools.push(made);
  return made;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** Settles to what happened, so the order of settling can be compared. */
const outcome = (promise: Promise<unknown>, log: string[], name: string) =>
  promise.then(
    () => log.push(`${name} ok`),
    (error: Error) => log.push(`${name} ${error.name}`),
  );

describe('HashPool', () => {
  it('derives the keys crypto.scrypt does: a hash made on either verifies on the other', async () => {
    const { derive } = pool(1, 0);
    const salt = randomBytes(16);
    expect(await derive('pässword', salt, SMALL, 32)).toEqual(await deriveKey('pässword', salt, SMALL, 32));
    const made = await hashPassword('caf\u00e9-password', SMALL, derive);
    expect(await verifyPassword('cafe\u0301-password', made)).toBe(true);
    expect(await verifyPassword('cafe-password', made, derive)).toBe(false);
    expect(await verifyPassword('caf\u00e9-password', await hashPassword('caf\u00e9-password', SMALL), derive)).toBe(true);
  });

  it('runs `workers` hashes, queues `queue` more, and refuses the rest before any of them finishes', async () => {
    const hashes = pool(1, 2);
    const log: string[] = [];
    const slow = { N: 2 ** 13, r: 8, p: 1 };
    const all = Array.from({ length: 5 }, (_, i) => outcome(hashes.derive(`pw-${i}`, randomBytes(16), slow, 32), log, String(i)));
    expect(hashes.load).toEqual({ running: 1, waiting: 2 });
    const refused = hashes.derive('one-more', randomBytes(16), slow, 32);
    await expect(refused).rejects.toBeInstanceOf(HashPoolFull);
    // Four hashes' turn (three ahead, then its own) at the first guess of 200 ms each: 1 s.
    await expect(refused).rejects.toMatchObject({ retryAfterS: 1 });
    await Promise.all(all);
    // The two refused settle first, in the order they came; the three taken run in turn.
    expect(log).toEqual(['3 HashPoolFull', '4 HashPoolFull', '0 ok', '1 ok', '2 ok']);
    expect(hashes.load).toEqual({ running: 0, waiting: 0 });
  });

  it('leaves libuv’s thread pool free: a small scrypt there finishes while four production hashes run', async () => {
    // libuv has 4 threads (UV_THREADPOOL_SIZE); four hashes on it would make anything else there wait its turn.
    const hashes = pool(4, 0);
    const log: string[] = [];
    const big = Array.from({ length: 4 }, (_, i) =>
      outcome(hashes.derive(`pw-${i}`, randomBytes(16), DEFAULT_SCRYPT, 32), log, `big${i}`),
    );
    await outcome(deriveKey('small', randomBytes(16), SMALL, 32), log, 'small');
    await Promise.all(big);
    expect(log[0]).toBe('small ok');
    expect(log).toHaveLength(5);
  });

  it('close fails what runs and waits, and refuses new work', async () => {
    const hashes = pool(1, 1);
    const slow = { N: 2 ** 13, r: 8, p: 1 };
    const running = expect(hashes.derive('a-password', randomBytes(16), slow, 32)).rejects.toThrow(/closed/);
    const waiting = expect(hashes.derive('b-password', randomBytes(16), slow, 32)).rejects.toThrow(/closed/);
    await hashes.close();
    await running;
    await waiting;
    await expect(hashes.derive('c-password', randomBytes(16), SMALL, 32)).rejects.toThrow(/closed/);
  });
});
