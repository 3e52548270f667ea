/**
 * The contract every LimitStore keeps, as one vitest suite: SQLite (memory) and PostgreSQL call
 * `describeLimitStoreContract` with their own `open`. Names are unique per run, so the storage need not be empty.
 * Time is the store's own (PostgreSQL's `now()`): rates are long enough that a test never sees a token come back,
 * except the one that waits for it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitStore } from '../../server/src/limits/store.js';
import type { Database } from '../../server/src/store/open.js';

const hour = (count: number) => ({ count, periodMs: 3_600_000 });

export function describeLimitStoreContract(name: string, open: () => Promise<Database>, opts?: { skip?: string }): void {
  const suite = opts?.skip ? describe.skip : describe;
  suite(`LimitStore contract: ${name}${opts?.skip ? ` (skipped: ${opts.skip})` : ''}`, () => {
    let database: Database;
    let store: LimitStore;
    const run = randomUUID().slice(0, 8);
    const kind = (label: string) => `${label}-${run}`;

    beforeAll(async () => {
      database = await open();
      store = database.limits;
    });
    afterAll(async () => {
      await database?.close();
    });

    describe('buckets', () => {
      it('give `count` tokens at once, then say how long until the next (period/count, whole seconds)', async () => {
        const b = store.buckets(kind('take'), hour(3));
        const began = Date.now();
        expect([await b.take('a'), await b.take('a'), await b.take('a')]).toStrictEqual([undefined, undefined, undefined]);
        const wait = await b.take('a');
        // 1200 s for the next token, less the moments since the first take (whole seconds, rounded up).
        expect(wait).toBeGreaterThanOrEqual(Math.floor(1200 - (Date.now() - began) / 1000));
        expect(wait).toBeLessThanOrEqual(1200);
        expect(Number.isInteger(wait)).toBe(true);
        // Another key, another kind, another rate of the same name: full buckets of their own.
        expect(await b.take('b')).toBeUndefined();
        expect(await store.buckets(kind('take-other'), hour(3)).take('a')).toBeUndefined();
        expect(await b.level('a')).toBeLessThan(0.01);
        expect(await b.level('never')).toBe(3);
      });

      it('refuse past the limit under concurrent takes: exactly `count` succeed', async () => {
        const b = store.buckets(kind('race'), hour(5));
        const results = await Promise.all(Array.from({ length: 25 }, () => b.take('k')));
        expect(results.filter((r) => r === undefined)).toHaveLength(5);
        expect(results.filter((r) => r !== undefined).every((r) => r! >= 1)).toBe(true);
      });

      it('a reset key starts full again; others keep their state', async () => {
        const b = store.buckets(kind('reset'), hour(1));
        await b.take('a');
        await b.take('b');
        await b.reset('a');
        await b.reset('never-seen');
        expect(await b.take('a')).toBeUndefined();
        expect(await b.take('b')).toBeGreaterThan(3500);
      });

      it('charge takes a token whatever is left, owing at most `count`, and a take then waits for what is owed', async () => {
        const b = store.buckets(kind('charge'), hour(2));
        const left: number[] = [];
        for (let i = 0; i < 6; i++) left.push(Math.round(await b.charge('acct')));
        expect(left).toStrictEqual([1, 0, -1, -2, -2, -2]);
        expect(Math.round(await b.level('acct'))).toBe(-2);
        // Three tokens to regain before one can be taken: 3 × 1800 s.
        expect(await b.take('acct')).toBeGreaterThan(5390);
        expect(Math.round(await b.level('acct'))).toBe(-2);
      });

      it('refill evenly over the period', async () => {
        const b = store.buckets(kind('refill'), { count: 2, periodMs: 400 });
        await b.take('k');
        await b.take('k');
        expect(await b.take('k')).toBe(1);
        let taken = false;
        for (const deadline = Date.now() + 10_000; !taken && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          taken = (await b.take('k')) === undefined;
        }
        expect(taken).toBe(true);
        expect(await b.level('k')).toBeLessThanOrEqual(2);
      });

      it('take any key: long, with NUL, with a lone surrogate, in any script', async () => {
        const b = store.buckets(kind('keys'), hour(1));
        for (const key of ['x'.repeat(100_000), 'a\u0000b', 'lone \ud800', 'Zoé', '']) {
          expect(await b.take(key), JSON.stringify(key.slice(0, 10))).toBeUndefined();
          expect(await b.take(key), JSON.stringify(key.slice(0, 10))).toBeGreaterThan(3500);
        }
      });
    });

    describe('slots', () => {
      it('hold at most `max` per key; a release frees one, once', async () => {
        const s = store.slots(kind('slots'), 2);
        const r1 = await s.acquire('u');
        const r2 = await s.acquire('u');
        expect(r1).toBeDefined();
        expect(r2).toBeDefined();
        expect(await s.acquire('u')).toBeUndefined();
        expect(await s.held('u')).toBe(2);
        const other = await s.acquire('v');
        expect(other).toBeDefined();
        expect(await store.slots(kind('slots-other'), 2).acquire('u')).toBeDefined();
        await r1!();
        expect(await s.held('u')).toBe(1);
        const r3 = await s.acquire('u');
        expect(r3).toBeDefined();
        expect(await s.acquire('u')).toBeUndefined();
        await Promise.all([r2!(), r3!(), other!()]);
        expect(await s.held('u')).toBe(0);
        expect(await s.held('v')).toBe(0);
      });

      it('give out exactly `max` under concurrent acquires', async () => {
        const s = store.slots(kind('slot-race'), 3);
        const got = await Promise.all(Array.from({ length: 12 }, () => s.acquire('u')));
        expect(got.filter(Boolean)).toHaveLength(3);
        expect(await s.held('u')).toBe(3);
        await Promise.all(got.map((release) => release?.()));
        expect(await s.held('u')).toBe(0);
      });
    });
  });
}
