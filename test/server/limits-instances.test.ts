/**
 * Two instances of the service on one PostgreSQL database behind a proxy (here: loopback, trusted, sending
 * `X-Forwarded-For`), requests alternating between them as a round-robin proxy sends them. The limits hold at their
 * configured totals, not once per instance; clients are told apart by their forwarded addresses; and an attacker's
 * wrong guesses from other addresses never keep the owner's right password out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SLOWDOWN_MS, slowdownMs } from '../../server/src/http/rate-limit.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type Caller, caller, type RunningServer, startServer } from '../support/server.js';
import { readSse } from '../support/sse.js';

const json = { 'content-type': 'application/json' };

describe.skipIf(!postgres.available)('limits across two instances behind a trusted proxy', () => {
  let pg: TestPostgres;
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    pg = await startPostgres();
    const env = {
      CONSILIUM_DATABASE: await pg.createDatabase(),
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_TRUSTED_PROXIES: 'loopback',
      CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '10/1h',
      CONSILIUM_LIMIT_LOGIN_PER_ADDRESS: '30/1h',
      CONSILIUM_LIMIT_DEBATES_PER_USER: '3/1h',
      CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '2',
      CONSILIUM_OFFLINE_TOKEN_MS: '2',
    };
    a = await startServer(env);
    b = await startServer(env);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  /** The i-th request goes to A or B in turn. */
  const instance = (i: number) => (i % 2 === 0 ? a : b);
  const signIn = (i: number, from: string, username: string, password: string) =>
    fetch(`${instance(i).baseUrl}/auth/login`, {
      method: 'POST',
      headers: { ...json, 'x-forwarded-for': `${from}, 127.0.0.1` },
      body: JSON.stringify({ username, password }),
    }).then(async (res) => {
      await res.body?.cancel();
      return res.status;
    });
  /** `who` as a caller of the i-th instance. */
  const on = (i: number, who: Caller) => caller(instance(i).baseUrl, who.user, who.password, who.token);
  const start = (i: number, who: Caller, path: string, body: unknown) =>
    on(i, who).fetch(path, { method: 'POST', headers: json, body: JSON.stringify(body) });

  it('sign-in attempts per account from one address: 10 in all, not 10 on each', async () => {
    const user = await a.newUser();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await signIn(i, '192.0.2.10', user.user.username, 'wrong'));
    expect(statuses).toStrictEqual([...Array(10).fill(401), 429]);
    // The same account from another address is not refused.
    expect(await signIn(0, '192.0.2.11', user.user.username, user.password)).toBe(200);
  });

  it('sign-in attempts per address: 30 in all, whichever accounts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push(await signIn(i, '192.0.2.20', `nobody-${i}`, 'wrong'));
    expect(statuses).toStrictEqual([...Array(30).fill(401), 429]);
    expect(await signIn(1, '192.0.2.21', 'nobody-0', 'wrong')).toBe(401);
  });

  it("an attacker's wrong guesses from other addresses leave the owner's right password answering 200", async () => {
    const victim = await a.newUser();
    // Twenty-two guesses, each from an address of its own, half on each instance, all at once as an attacker would.
    const guesses = await Promise.all(
      Array.from({ length: 22 }, (_, i) => signIn(i, `198.51.100.${i + 1}`, victim.user.username, `guess-${i}`)),
    );
    expect(guesses.every((s) => s === 401)).toBe(true);
    // Slowed down (the account is past its failures), by a bounded delay, and let in. Bounded against a sign-in of
    // another account on the same instance, timed here: the slowdown's cap plus that sign-in's own cost, many times over.
    const other = await a.newUser();
    let baseline = 0;
    for (let i = 0; i < 3; i++) {
      const began = performance.now();
      expect(await signIn(1, `203.0.113.${20 + i}`, other.user.username, other.password)).toBe(200);
      baseline = Math.max(baseline, performance.now() - began);
    }
    const began = performance.now();
    expect(await signIn(1, '203.0.113.7', victim.user.username, victim.password)).toBe(200);
    const took = performance.now() - began;
    expect(took).toBeGreaterThanOrEqual(slowdownMs(1) - 5);
    expect(took).toBeLessThan(MAX_SLOWDOWN_MS + 20 * baseline);
  });

  it('debate starts per user: 3 in all, not 3 on each', async () => {
    const user = await a.newUser();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await start(i, user, '/consilium', { question: `Start ${i}?` })).status);
    expect(statuses).toStrictEqual([200, 200, 200, 429]);
    expect((await start(1, user, '/consilium', { question: 'Once more?' })).status).toBe(429);
  });

  it('running debates per user: 2 slots shared by the instances', async () => {
    const user = await a.newUser();
    const first = await start(0, user, '/consilium/deep/stream', { question: 'Long one?', rounds: 2 });
    const second = await start(1, user, '/consilium/deep/stream', { question: 'Long two?', rounds: 2 });
    expect([first.status, second.status]).toStrictEqual([200, 200]);
    const events = readSse(first)[Symbol.asyncIterator]();
    await events.next();
    // A holds one, B the other: neither instance has a third, whatever it holds itself.
    const refused = await start(0, user, '/consilium', { question: 'Meanwhile?' });
    expect(refused.status).toBe(429);
    expect((await refused.json()).detail).toBe('At most 2 of your debates may run at once.');
    // The first ends (read to its end): its slot is free for a start on the other instance.
    while (!(await events.next()).done) {}
    await second.body?.cancel();
    let status = 429;
    // Until the cancelled stream's run has stopped too; a deadline, not a count.
    for (const deadline = Date.now() + 30_000; status === 429 && Date.now() < deadline; ) {
      const res = await start(1, user, '/consilium', { question: 'After?' });
      status = res.status;
      await res.body?.cancel();
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe(200);
  });
});
