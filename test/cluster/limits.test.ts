/**
 * Limits through the proxy: two instances behind nginx count sign-ins, debate starts and running debates together, by
 * the client address nginx forwards (`CONSILIUM_TRUSTED_PROXIES=loopback`), so two instances never double a limit and
 * an attacker's guesses from elsewhere never lock the owner out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, clusterAvailable, startCluster } from '../support/cluster.js';
import { signIn } from '../support/process.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

describe.skipIf(!clusterAvailable)('limits through the proxy, across two instances', () => {
  let cluster: Cluster;
  let token: string;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      tokenDelayMs: 20,
      env: {
        CONSILIUM_RATE_LIMITS: 'on',
        CONSILIUM_TRUSTED_PROXIES: 'loopback',
        CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '2',
        CONSILIUM_LIMIT_DEBATES_PER_USER: '4/1h',
        CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '5/15m',
      },
    });
    token = (await signIn(cluster.proxyUrl, cluster.admin.username, cluster.admin.password)).token;
  }, 120_000);
  afterAll(() => cluster?.stop(), 60_000);

  const call = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(`${cluster.proxyUrl}${path}`, { ...init, headers });
  };
  const start = (question: string) =>
    call('/consilium/deep', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ question, rounds: 3, detach: true }),
    });
  const login = (password: string, from: string) =>
    fetch(`${cluster.proxyUrl}/auth/login`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-forwarded-for': from },
      body: JSON.stringify({ username: cluster.admin.username, password }),
    });

  it('running debates and debate starts are counted once for both instances', async () => {
    const first = await Promise.all([start('Running one?'), start('Running two?')]);
    expect(first.map((r) => r.status)).toStrictEqual([202, 202]);
    // Round robin sends the third to whichever instance: both know two run.
    const third = await start('A third at once?');
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ code: 'rate_limited' });
    const ids = await Promise.all(first.map(async (r) => ((await r.json()) as { sessionId: string }).sessionId));
    for (const id of ids) expect((await call(`/sessions/${id}/cancel`, { method: 'POST' })).status).toBe(200);

    // Two starts of the four an hour are left, whichever instance takes them.
    const more = await Promise.all([start('Start three?'), start('Start four?')]);
    expect(more.map((r) => r.status)).toStrictEqual([202, 202]);
    for (const r of more)
      await call(`/sessions/${((await r.json()) as { sessionId: string }).sessionId}/cancel`, { method: 'POST' });
    const fifth = await start('A fifth start within the hour?');
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get('retry-after')).toMatch(/^\d+$/);
  }, 60_000);

  it("an attacker's wrong guesses from other addresses leave the owner's password working from the owner's address", async () => {
    const owner = '198.51.100.7';
    const statuses: number[] = [];
    // Past the account's allowance (5) the guesses are slowed down, not refused.
    for (let i = 0; i < 8; i++) statuses.push((await login('not-the-password', `203.0.113.${i + 1}`)).status);
    // Refused as wrong, never as locked: each guess came from an address of its own.
    expect(new Set(statuses)).toStrictEqual(new Set([401]));
    expect((await login(cluster.admin.password, owner)).status).toBe(200);
  }, 60_000);
});
