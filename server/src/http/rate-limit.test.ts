import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { readSse } from '../../../test/support/sse.js';
import { parseRate, rateLimitsFromEnv } from '../config/limits.js';
import { ConfigError } from '../config/slots.js';
import { ConcurrencyLimiter, loginRateLimit, RateLimiter } from './rate-limit.js';

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
  beforeAll(async () => {
    server = await startServer({
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '3/1h',
      CONSILIUM_LIMIT_LOGIN_PER_ADDRESS: '8/1h',
    });
  });
  afterAll(() => server.close());
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
    app.post('/auth/login', loginRateLimit({ perAccount: { count: 2, periodMs: 3_600_000 } }), async (c) => {
      const body = await c.req.json();
      return body.password === 'right' ? c.json({ ok: true }) : c.json({ ok: false }, 401);
    });
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
