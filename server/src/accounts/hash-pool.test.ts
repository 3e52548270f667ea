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

describe('HashPool, shared out by ticket', () => {
  const slow = { N: 2 ** 13, r: 8, p: 1 };
  const ticket = (address: string, account: string, known = false) => ({ address, account, known });
  const hash = (hashes: HashPool, t: ReturnType<typeof ticket>, log: string[], name: string) =>
    outcome(hashes.deriveFor(t)(`pw-${name}`, randomBytes(16), slow, 32), log, name);

  it('one address holds at most a quarter of the places, one account at most half; others still get in', async () => {
    // 1 worker + 4 waiting: 2 places per address, 3 per account.
    const hashes = pool(1, 4);
    const log: string[] = [];
    const all = [
      hash(hashes, ticket('10.0.0.1', 'owner'), log, 'a1'),
      hash(hashes, ticket('10.0.0.1', 'owner'), log, 'a2'),
      hash(hashes, ticket('10.0.0.1', 'owner'), log, 'a3'),
      hash(hashes, ticket('10.0.0.2', 'owner'), log, 'b1'),
      hash(hashes, ticket('10.0.0.3', 'owner'), log, 'c1'),
      hash(hashes, ticket('10.0.0.3', 'someone'), log, 'c2'),
    ];
    expect(() => hashes.admit(ticket('10.0.0.1', 'other'))).toThrow(HashPoolFull);
    expect(() => hashes.admit(ticket('10.0.0.4', 'owner'))).toThrow(HashPoolFull);
    expect(() => hashes.admit(ticket('10.0.0.4', 'other'))).not.toThrow();
    await Promise.all(all);
    expect(log.slice(0, 2).sort()).toEqual(['a3 HashPoolFull', 'c1 HashPoolFull']);
    expect(log.slice(2)).toEqual(['a1 ok', 'a2 ok', 'b1 ok', 'c2 ok']);
    // Every place given back: the same address hashes again.
    expect(hashes.load).toEqual({ running: 0, waiting: 0 });
    await hash(hashes, ticket('10.0.0.1', 'owner'), log, 'again');
    expect(log.at(-1)).toBe('again ok');
  });

  it('an account known at its address gets a reserve beyond the queue, served first', async () => {
    const hashes = pool(1, 2);
    const log: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => hash(hashes, ticket(`198.51.100.${i}`, `guess-${i}`), log, `f${i}`));
    // The queue is full of the flood.
    expect(() => hashes.admit(ticket('198.51.100.9', 'guess-9'))).toThrow(HashPoolFull);
    const owner = hash(hashes, ticket('203.0.113.1', 'owner', true), log, 'owner');
    await Promise.all([...flood, owner]);
    expect(log.filter((l) => l.endsWith('HashPoolFull'))).toEqual(['f3 HashPoolFull', 'f4 HashPoolFull', 'f5 HashPoolFull']);
    // The owner's hash ran as soon as the worker was free, ahead of the flood that waited.
    expect(log.filter((l) => l.endsWith('ok'))).toEqual(['f0 ok', 'owner ok', 'f1 ok', 'f2 ok']);
  });
});
