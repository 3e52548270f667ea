import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { readSse } from '../../../test/support/sse.js';
import { parseRate, rateLimitsFromEnv } from '../config/limits.js';
import { ConfigError } from '../config/slots.js';
import { ConcurrencyLimiter, MemoryLimitStore, RateLimiter } from '../limits/memory.js';
import { peerAddress } from './client-address.js';
import type { AppEnv } from './deps.js';
import { type LoginLimits, loginRateLimit, MAX_SLOWDOWN_MS, slowdownMs } from './rate-limit.js';

describe('RateLimiter', () => {
  it('allows `count` at once, then one more per period/count, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 3, periodMs: 60_000 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take('a')).toBe(20);
    expect(limiter.take('b')).toBeUndefined();
    now = 19_999;
    expect(limiter.take('a')).toBe(1);
    now = 20_000;
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBe(20);
    limiter.reset('a');
    expect(limiter.take('a')).toBeUndefined();
  });
});

describe('ConcurrencyLimiter', () => {
  it('holds at most `max` per key; a release is counted once', () => {
    const limiter = new ConcurrencyLimiter(2);
    const r1 = limiter.acquire('u');
    const r2 = limiter.acquire('u');
    expect(limiter.acquire('u')).toBeUndefined();
    expect(limiter.acquire('v')).toBeDefined();
    r1?.();
    r1?.();
    expect(limiter.running('u')).toBe(1);
    expect(limiter.acquire('u')).toBeDefined();
    r2?.();
  });
});

describe('limit settings', () => {
  it('parse count/period, off, and the defaults', () => {
    expect(parseRate({ X: '10/15m' }, 'X', 'off')).toEqual({ count: 10, periodMs: 900_000 });
    expect(parseRate({ X: '5/s' }, 'X', 'off')).toEqual({ count: 5, periodMs: 1000 });
    expect(parseRate({}, 'X', 'off')).toBeUndefined();
    for (const bad of ['10', '0/1m', '1/0m', '1/m/', 'ten/1m', '1/1d'])
      expect(() => parseRate({ X: bad }, 'X', 'off'), bad).toThrow(ConfigError);
    expect(rateLimitsFromEnv({})).toEqual({
      loginPerAccount: { count: 10, periodMs: 900_000 },
      loginPerAddress: { count: 100, periodMs: 900_000 },
      debateStartsPerUser: { count: 60, periodMs: 3_600_000 },
      runningDebatesPerUser: 8,
    });
    expect(rateLimitsFromEnv({ CONSILIUM_RATE_LIMITS: 'off', CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '1/1s' })).toEqual({
      loginPerAccount: undefined,
      loginPerAddress: undefined,
      debateStartsPerUser: undefined,
      runningDebatesPerUser: undefined,
    });
    expect(() => rateLimitsFromEnv({ CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '0' })).toThrow(/positive integer or off/);
  });
});

const json = { 'content-type': 'application/json' };

async function expect429(res: Response, retryAfter?: number): Promise<void> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(body.code).toBe('rate_limited');
  const seconds = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
  // Real sign-ins hash with scrypt, so a few seconds of the window may have passed since the first attempt.
  if (retryAfter !== undefined) {
    expect(seconds).toBeLessThanOrEqual(retryAfter);
    expect(seconds).toBeGreaterThan(retryAfter - 30);
  }
}

describe('sign-in attempts over HTTP', () => {
  let server: RunningServer;
  beforeFirstTest(async () => {
    server = await startServer({
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '3/1h',
      CONSILIUM_LIMIT_LOGIN_PER_ADDRESS: '8/1h',
    });
  });
  afterAll(() => server?.close());
  const login = (username: string) =>
    server.fetch(`/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username, password: 'guess' }),
    });

  it('per account (case-folded), then per client address; 429 with Retry-After', async () => {
    for (const name of ['ada', 'Ada', 'ADA']) expect((await login(name)).status).not.toBe(429);
    await expect429(await login('ada'), 1200);
    for (const name of ['bob', 'cy', 'dee', 'eve']) expect((await login(name)).status, name).not.toBe(429);
    // Eight attempts from this address so far (the refused one counts): the next, for any account, is refused.
    await expect429(await login('gus'));
  });
});

describe('a successful sign-in gives the account its attempts back', () => {
  it('over HTTP, with the limiter in front of a login that accepts one password', async () => {
    const app = new Hono();
    app.post(
      '/auth/login',
      loginRateLimit({ store: new MemoryLimitStore(), perAccount: { count: 2, periodMs: 3_600_000 } }),
      async (c) => {
        const body = await c.req.json();
        return body.password === 'right' ? c.json({ ok: true }) : c.json({ ok: false }, 401);
      },
    );
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/login`;
      const attempt = (password: string) =>
        fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ username: 'ada', password }) });
      expect((await attempt('wrong')).status).toBe(401);
      expect((await attempt('right')).status).toBe(200);
      expect((await attempt('wrong')).status).toBe(401);
      expect((await attempt('wrong')).status).toBe(401);
      expect((await attempt('right')).status).toBe(429);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('debate starts over HTTP', () => {
  it('per user: a refused (invalid) request costs nothing; past the rate, 429 with Retry-After', async () => {
    const server = await startServer({ CONSILIUM_RATE_LIMITS: 'on', CONSILIUM_LIMIT_DEBATES_PER_USER: '3/1h' });
    try {
      const start = (path: string, body: unknown) =>
        server.fetch(`${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
      expect((await start('/consilium', {})).status).toBe(400);
      expect((await start('/consilium', { question: 'One?' })).status).toBe(200);
      expect((await start('/ask/openai', { question: 'Two?' })).status).toBe(200);
      expect((await start('/consilium/deep', { question: 'Three?', rounds: 2 })).status).toBe(200);
      await expect429(await start('/consilium/deep/stream', { question: 'Four?' }), 1200);
      await expect429(await start('/synthesize', { question: 'Five?', answers: [{ slot: 1, text: 'x' }] }), 1200);
      const list = await (await server.fetch(`/sessions`)).json();
      expect(list.items).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('running at once per user: held for a stream until it ends or its client leaves', async () => {
    const server = await startServer({
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '1',
      CONSILIUM_OFFLINE_TOKEN_MS: '2',
    });
    try {
      const start = (path: string, body: unknown, signal?: AbortSignal) =>
        server.fetch(`${path}`, { method: 'POST', headers: json, body: JSON.stringify(body), signal });
      // A stream read to its end.
      const stream = await start('/consilium/deep/stream', { question: 'Long?', rounds: 2 });
      expect(stream.status).toBe(200);
      const events = readSse(stream)[Symbol.asyncIterator]();
      await events.next();
      await expect429(await start('/consilium', { question: 'Meanwhile?' }), 5);
      while (!(await events.next()).done) {}
      expect((await start('/consilium', { question: 'After?' })).status).toBe(200);
      // A stream whose client leaves.
      const abort = new AbortController();
      const left = await start('/consilium/deep/stream', { question: 'Leaving?', rounds: 3 }, abort.signal);
      expect(left.status).toBe(200);
      await expect429(await start('/consilium', { question: 'Meanwhile?' }), 5);
      abort.abort();
      let status = 429;
      // Until the left stream's run has stopped and freed its slot; a deadline, not a count, so a slow machine is not a failure.
      for (const deadline = Date.now() + 45_000; status === 429 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = (await start('/consilium', { question: 'After leaving?' })).status;
      }
      expect(status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('RateLimiter, at its edges', () => {
  it('refills evenly but never past `count`, and rounds a wait up to whole seconds (at least one)', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 2, periodMs: 10_000 }, () => now);
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBe(5);
    now = 4_001;
    expect(limiter.take('a')).toBe(1);
    now = 1_000_000; // long idle: the bucket holds 2, not 200
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([undefined, undefined, 5]);
    const slow = new RateLimiter({ count: 1, periodMs: 3_600_000 }, () => now);
    slow.take('b');
    expect(slow.take('b')).toBe(3600);
    const fast = new RateLimiter({ count: 100, periodMs: 1000 }, () => now);
    for (let i = 0; i < 100; i++) fast.take('c');
    expect(fast.take('c')).toBe(1);
  });

  it('forgets the least recently used key past 100,000, and only it', () => {
    const limiter = new RateLimiter({ count: 1, periodMs: 3_600_000 }, () => 0);
    limiter.take('first');
    limiter.take('second');
    expect(limiter.take('first')).toBe(3600); // a refused take does not make it recent
    for (let i = 0; i < 99_998; i++) limiter.take(`k${i}`);
    // 100,000 keys: all remembered.
    expect(limiter.take('first')).toBe(3600);
    limiter.take('one-more');
    // 100,001: the oldest, `first`, is forgotten and starts again with a full bucket; `second` is still held.
    expect(limiter.take('second')).toBe(3600);
    expect(limiter.take('first')).toBeUndefined();
  });

  it('a reset key starts again full; other keys keep their state', () => {
    const limiter = new RateLimiter({ count: 1, periodMs: 60_000 }, () => 0);
    limiter.take('a');
    limiter.take('b');
    limiter.reset('a');
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('b')).toBe(60);
  });
});

describe('ConcurrencyLimiter, counting', () => {
  it('counts per key and frees a key entirely when its last run ends', () => {
    const limiter = new ConcurrencyLimiter(3);
    const releases = [limiter.acquire('u'), limiter.acquire('u'), limiter.acquire('u')];
    expect(limiter.running('u')).toBe(3);
    expect(limiter.acquire('u')).toBeUndefined();
    expect(limiter.running('v')).toBe(0);
    releases[0]?.();
    expect(limiter.running('u')).toBe(2);
    releases[1]?.();
    releases[2]?.();
    expect(limiter.running('u')).toBe(0);
    const again = [limiter.acquire('u'), limiter.acquire('u'), limiter.acquire('u')];
    expect(again.every(Boolean)).toBe(true);
    expect(limiter.acquire('u')).toBeUndefined();
  });
});

describe('loginRateLimit on its own', () => {
  /** An app whose login answers `status`, behind the limiter; requests come from `address` (none: unknown). */
  function limited(limits: Omit<LoginLimits, 'store'>, status = 401) {
    const app = new Hono();
    let reached = 0;
    app.post('/auth/login', loginRateLimit({ store: new MemoryLimitStore(), ...limits }), async (c) => {
      reached++;
      const body = JSON.stringify({ body: await c.req.json().catch(() => null) });
      return new Response(status === 204 ? null : body, { status, headers: { 'content-type': 'application/json' } });
    });
    const attempt = async (body: unknown, { address, type = 'application/json' }: { address?: string; type?: string } = {}) => {
      const env = address === undefined ? undefined : { incoming: { socket: { remoteAddress: address } } };
      const res = await app.request(
        'http://localhost/auth/login',
        { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) },
        env,
      );
      const text = await res.text();
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
    };
    return { attempt, reached: () => reached };
  }
  const hour = (count: number) => ({ count, periodMs: 3_600_000 });

  it('per account from one address: the name case-folded and NFC-normalized, with its own detail and Retry-After', async () => {
    const { attempt, reached } = limited({ perAccount: hour(2) });
    expect((await attempt({ username: 'Zoé', password: 'x' })).status).toBe(401);
    expect((await attempt({ username: 'ZOE\u0301', password: 'x' })).status).toBe(401);
    const refused = await attempt({ username: 'zoé', password: 'x' });
    expect(refused).toMatchObject({
      status: 429,
      retryAfter: '1800',
      body: { code: 'rate_limited', detail: 'Too many sign-in attempts for this account from this address.' },
    });
    expect(reached()).toBe(2);
    // Someone else's wrong guesses do not lock the account's owner out where they sign in from.
    expect((await attempt({ username: 'zoé', password: 'x' }, { address: '10.0.0.9' })).status).toBe(401);
    // The handler still reads the body the limiter parsed.
    expect((await attempt({ username: 'other', password: 'y' })).body).toEqual({ body: { username: 'other', password: 'y' } });
  });

  it('an attempt refused before its password was checked (503) gets its tokens back: it was no guess', async () => {
    const { attempt, reached } = limited({ perAddress: hour(2), perAccount: hour(2) }, 503);
    for (let i = 0; i < 5; i++)
      expect((await attempt({ username: 'zoé', password: 'x' }, { address: '10.0.0.1' })).status).toBe(503);
    expect(reached()).toBe(5);
  });

  it('sets the handler’s ticket: the account, the address, and whether its cookie makes it known', async () => {
    const tickets: unknown[] = [];
    const app = new Hono<AppEnv>();
    app.post(
      '/auth/login',
      loginRateLimit({ store: new MemoryLimitStore(), signedInAs: async (c) => c.req.header('x-signed-in-as') }),
      (c) => {
        tickets.push(c.get('signInTicket'));
        return c.body(null, 401);
      },
    );
    const send = (headers: Record<string, string> = {}) =>
      app.request(
        'http://localhost/auth/login',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ username: 'Zoé' }),
        },
        { incoming: { socket: { remoteAddress: '10.0.0.1' } } },
      );
    await send();
    await send({ 'x-signed-in-as': 'zoé' });
    await send({ 'x-signed-in-as': 'someone-else' });
    expect(tickets).toStrictEqual([
      { account: 'zoé', address: '10.0.0.1', known: false },
      { account: 'zoé', address: '10.0.0.1', known: true },
      { account: 'zoé', address: '10.0.0.1', known: false },
    ]);
  });

  it('per address, before the account; unknown addresses share one bucket', async () => {
    const { attempt } = limited({ perAddress: hour(2), perAccount: hour(100) });
    expect((await attempt({ username: 'a' }, { address: '10.0.0.1' })).status).toBe(401);
    expect((await attempt({ username: 'b' }, { address: '10.0.0.1' })).status).toBe(401);
    expect(await attempt({ username: 'c' }, { address: '10.0.0.1' })).toMatchObject({
      status: 429,
      body: { detail: 'Too many sign-in attempts from this address.' },
    });
    expect((await attempt({ username: 'c' }, { address: '10.0.0.2' })).status).toBe(401);
    expect((await attempt({ username: 'd' })).status).toBe(401);
    expect((await attempt({ username: 'e' })).status).toBe(401);
    expect((await attempt({ username: 'f' })).status).toBe(429);
  });

  it('folds case as lower case does: ß is not ss', async () => {
    const { attempt } = limited({ perAccount: hour(1) });
    expect((await attempt({ username: 'straße' })).status).toBe(401);
    expect((await attempt({ username: 'STRASSE' })).status).toBe(401);
    expect((await attempt({ username: 'Strasse' })).status).toBe(429);
  });

  it('only a JSON body with a string username is counted per account', async () => {
    const { attempt } = limited({ perAccount: hour(1) });
    for (const [body, type] of [
      ['{"username":"ada"', 'application/json'],
      [{ username: 42 }, 'application/json'],
      [{ name: 'ada' }, 'application/json'],
      ['username=ada', 'application/x-www-form-urlencoded'],
      [{ username: 'ada' }, 'text/plain'],
      [{ username: 'ada' }, 'application/jsonx'],
      [{ username: 'ada' }, 'text/plain; note=application/json'],
      [null, 'application/json'],
    ] as const) {
      expect((await attempt(body, { type })).status, `${type} ${JSON.stringify(body)}`).toBe(401);
      expect((await attempt(body, { type })).status, `${type} ${JSON.stringify(body)}`).toBe(401);
    }
    expect((await attempt({ username: 'vendor' }, { type: 'application/vnd.x+json; charset=utf-8' })).status).toBe(401);
    expect((await attempt({ username: 'vendor' }, { type: 'APPLICATION/JSON' })).status).toBe(429);
  });

  it('gives the account its attempts back on a 2xx only', async () => {
    for (const [status, reset] of [
      [200, true],
      [204, true],
      [299, true],
      [300, false],
      [400, false],
    ] as const) {
      const { attempt } = limited({ perAccount: hour(1) }, status);
      await attempt({ username: 'ada' });
      expect((await attempt({ username: 'ada' })).status === 429, String(status)).toBe(!reset);
    }
  });
});

describe('peerAddress', () => {
  it('is the socket’s remote address, or "unknown" when there is none', async () => {
    const address = async (env?: object) => {
      const app = new Hono();
      app.get('*', (c) => c.text(peerAddress(c)));
      const res = await app.request('http://localhost/', {}, env);
      return `${res.status} ${await res.text()}`;
    };
    expect(await address({ incoming: { socket: { remoteAddress: '10.1.2.3' } } })).toBe('200 10.1.2.3');
    for (const env of [undefined, {}, { incoming: {} }, { incoming: { socket: {} } }]) {
      expect(await address(env), JSON.stringify(env)).toBe('200 unknown');
    }
  });
});

describe('sign-in across addresses: slowed down, never refused', () => {
  /** A login accepting `right` for `victim`, behind the limiter; each attempt from `address`; the delays it waited. */
  function login(limits: Omit<LoginLimits, 'store' | 'sleep' | 'clientAddress'>) {
    const delays: number[] = [];
    const app = new Hono();
    app.post(
      '/auth/login',
      loginRateLimit({
        ...limits,
        store: new MemoryLimitStore(),
        sleep: async (ms) => {
          delays.push(ms);
        },
      }),
      async (c) => {
        const { username, password } = await c.req.json();
        return username === 'victim' && password === 'right' ? c.json({ ok: true }) : c.json({ ok: false }, 401);
      },
    );
    const attempt = async (address: string, password: string, username = 'victim') => {
      const res = await app.request(
        'http://localhost/auth/login',
        { method: 'POST', headers: json, body: JSON.stringify({ username, password }) },
        { incoming: { socket: { remoteAddress: address } } },
      );
      return res.status;
    };
    return { attempt, delays };
  }
  const hour = (count: number) => ({ count, periodMs: 3_600_000 });

  it('an attacker’s failures from many addresses delay the owner’s sign-in a little, and it succeeds', async () => {
    const { attempt, delays } = login({ perAccount: hour(5), perAddress: hour(100) });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await attempt(`198.51.100.${i}`, `guess-${i}`));
    expect(statuses.every((s) => s === 401)).toBe(true);
    // Five failures allowed, then each attempt waits: 0.5 s, doubling, at most 4 s.
    expect(delays.slice(0, 5)).toStrictEqual([500, 1000, 2000, 4000, 4000]);
    expect(delays).toHaveLength(25);
    expect(Math.max(...delays)).toBe(MAX_SLOWDOWN_MS);
    delays.length = 0;
    expect(await attempt('203.0.113.7', 'right')).toBe(200);
    expect(delays).toStrictEqual([MAX_SLOWDOWN_MS]);
    // Another account is not slowed down.
    expect(await attempt('198.51.100.1', 'x', 'someone-else')).toBe(401);
    expect(delays).toStrictEqual([MAX_SLOWDOWN_MS]);
  });

  it('only failures count toward the slowdown', async () => {
    const { attempt, delays } = login({ perAccount: hour(3), perAddress: hour(100) });
    for (let i = 0; i < 10; i++) expect(await attempt(`203.0.113.${i}`, 'right')).toBe(200);
    expect(await attempt('203.0.113.1', 'wrong')).toBe(401);
    expect(await attempt('203.0.113.2', 'wrong')).toBe(401);
    expect(await attempt('203.0.113.3', 'wrong')).toBe(401);
    expect(delays).toStrictEqual([]);
    expect(await attempt('203.0.113.40', 'right')).toBe(200);
    expect(delays).toStrictEqual([500]);
  });

  it('an account known at its address (signed in from there before) is not slowed down, nor counted against the address', async () => {
    const { attempt, delays } = login({ perAccount: hour(3), perAddress: hour(5) });
    expect(await attempt('203.0.113.1', 'right')).toBe(200);
    for (let i = 0; i < 10; i++) expect(await attempt(`198.51.100.${i}`, `guess-${i}`)).toBe(401);
    // The owner's address, flooded too: its allowance is spent by others' attempts from it.
    for (let i = 0; i < 4; i++) expect(await attempt('203.0.113.1', 'x', `someone-${i}`)).toBe(401);
    expect(await attempt('203.0.113.1', 'x', 'someone-more')).toBe(429);
    delays.length = 0;
    expect(await attempt('203.0.113.1', 'right')).toBe(200);
    expect(delays).toStrictEqual([]);
    // From anywhere else the account is as slowed as before.
    expect(await attempt('203.0.113.2', 'right')).toBe(200);
    expect(delays).toStrictEqual([MAX_SLOWDOWN_MS]);
  });

  it('the delay: none within the allowance, then 0.5 s doubling to 4 s', () => {
    expect([0, -1, 0.5, 1, 1.2, 2, 3, 4, 10].map(slowdownMs)).toStrictEqual([0, 0, 500, 500, 1000, 1000, 2000, 4000, 4000]);
  });
});
