import { describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { SessionCache } from './cache.js';

const session = (id: string, question = 'Q?'): Session => ({
  id,
  owner: 'local',
  mode: 'single',
  question,
  roundsRequested: 1,
  rounds: [],
  status: 'completed',
  missingSlots: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: { usd: 0, priced: true },
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
});

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('SessionCache', () => {
  it('keeps the most recently used sessions, up to its capacity', () => {
    const cache = new SessionCache(2);
    cache.set(session('ses_a'));
    cache.set(session('ses_b'));
    cache.get('ses_a'); // a is now more recent than b
    cache.set(session('ses_c'));
    expect(cache.get('ses_b')).toBeUndefined();
    expect(cache.get('ses_a')?.id).toBe('ses_a');
    expect(cache.get('ses_c')?.id).toBe('ses_c');
    expect(cache.size).toBe(2);
  });

  it('replaces a cached session on write and forgets it on delete', () => {
    const cache = new SessionCache(2);
    cache.set(session('ses_a', 'old'));
    cache.set(session('ses_a', 'new'));
    expect(cache.get('ses_a')?.question).toBe('new');
    expect(cache.size).toBe(1);
    cache.delete('ses_a');
    expect(cache.get('ses_a')).toBeUndefined();
  });

  it('caches what a read loads, and does not call the loader again', async () => {
    const cache = new SessionCache(2);
    let loads = 0;
    const load = async () => {
      loads++;
      return session('ses_a');
    };
    await cache.load('ses_a', load);
    expect(cache.get('ses_a')?.id).toBe('ses_a');
    expect(loads).toBe(1);
  });

  it('does not put back a copy read before a write of the same session landed', async () => {
    const cache = new SessionCache(2);
    const read = deferred<Session>();
    const loading = cache.load('ses_a', () => read.promise);
    cache.set(session('ses_a', 'written'));
    read.resolve(session('ses_a', 'stale'));
    expect((await loading)?.question).toBe('stale');
    expect(cache.get('ses_a')?.question).toBe('written');
  });

  it('does not resurrect a session deleted while it was being read', async () => {
    const cache = new SessionCache(2);
    const read = deferred<Session>();
    const loading = cache.load('ses_a', () => read.promise);
    cache.delete('ses_a');
    read.resolve(session('ses_a'));
    await loading;
    expect(cache.get('ses_a')).toBeUndefined();
  });

  it('two reads of one session in flight: a write while the second is still out keeps the written copy', async () => {
    const cache = new SessionCache(2);
    const first = deferred<Session>();
    const second = deferred<Session>();
    const a = cache.load('ses_a', () => first.promise);
    const b = cache.load('ses_a', () => second.promise);
    first.resolve(session('ses_a', 'read'));
    await a;
    cache.set(session('ses_a', 'written'));
    second.resolve(session('ses_a', 'stale'));
    await b;
    expect(cache.get('ses_a')?.question).toBe('written');
    // Once no read is out, a read caches what it finds again.
    cache.delete('ses_a');
    await cache.load('ses_a', async () => session('ses_a', 'fresh'));
    expect(cache.get('ses_a')?.question).toBe('fresh');
  });

  it('a read that finds nothing caches nothing', async () => {
    const cache = new SessionCache(2);
    expect(await cache.load('ses_a', async () => undefined)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('with capacity 0 caches nothing', () => {
    const cache = new SessionCache(0);
    cache.set(session('ses_a'));
    expect(cache.get('ses_a')).toBeUndefined();
  });
});

describe('SessionCache.clear', () => {
  it('forgets every copy, and a read in flight does not put back what it read', async () => {
    const cache = new SessionCache(5);
    cache.set(session('ses_a'));
    cache.set(session('ses_b'));
    const read = deferred<Session | undefined>();
    const loading = cache.load('ses_c', () => read.promise);
    cache.clear();
    read.resolve(session('ses_c'));
    expect(await loading).toMatchObject({ id: 'ses_c' });
    expect([cache.get('ses_a'), cache.get('ses_b'), cache.get('ses_c'), cache.size]).toStrictEqual([
      undefined,
      undefined,
      undefined,
      0,
    ]);
  });
});
