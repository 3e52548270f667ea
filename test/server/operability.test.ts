/**
 * What an operator's probes see, on the real server on loopback: `GET /ready` (the store answers; 503 `not_ready`
 * while the start is not done, or naming what is down; 503 `draining` once the app is stopping; `/health` stays 200 throughout) and `GET /metrics`
 * (404 unless a token is configured, 401 without it, Prometheus text with it: running debates, events written,
 * store write times, provider failures by cause, the pool on PostgreSQL, Node's defaults).
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Readiness } from '../../server/src/http/readiness.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type RunningServer, startServer } from '../support/server.js';

const TOKEN = 'metrics-0123456789abcdef';

const servers: RunningServer[] = [];
let pg: TestPostgres | undefined;
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await pg?.stop();
  pg = undefined;
});
async function start(env: Record<string, string> = {}, readiness?: Readiness): Promise<RunningServer> {
  const server = await startServer(env, readiness && { readiness });
  servers.push(server);
  return server;
}

const anonymous = (server: RunningServer, path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}${path}`, { headers });

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as { code: string; detail: string };
  expect(body.code).toBe(code);
  return body;
}

/** One sample's value from Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /ready', () => {
  it('answers 200 with the instance id while the store answers, without credentials', async () => {
    const server = await start({ CONSILIUM_INSTANCE_ID: 'probe-1' });
    const res = await anonymous(server, '/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', instance: 'probe-1' });
  });

  it('answers 503 not_ready naming the database once the store is closed under it; /health stays 200', async () => {
    const server = await start({ CONSILIUM_INSTANCE_ID: 'probe-2' });
    await server.database.close();
    const res = await anonymous(server, '/ready');
    expect(res.headers.get('retry-after')).toBe('5');
    const problem = await expectProblem(res, 503, 'not_ready');
    expect(problem.detail).toMatch(/^Instance probe-2 is not ready: database \(.+\)\.$/);
    expect((await anonymous(server, '/health')).status).toBe(200);
  });

  it('answers 503 not_ready while the start is not done (no first admin yet), then 200; /health is 200 throughout', async () => {
    const readiness = new Readiness({ starting: true });
    const server = await start({ CONSILIUM_INSTANCE_ID: 'probe-start' }, readiness);
    const res = await anonymous(server, '/ready');
    expect(res.headers.get('retry-after')).toBe('5');
    const problem = await expectProblem(res, 503, 'not_ready');
    expect(problem.detail).toBe('Instance probe-start is starting: sign-in works once its first admin exists.');
    expect((await anonymous(server, '/health')).status).toBe(200);
    readiness.started();
    expect(await (await anonymous(server, '/ready')).json()).toEqual({ status: 'ready', instance: 'probe-start' });
  });

  it('answers 503 draining once the app is told it is stopping, whatever the store says', async () => {
    const server = await start();
    expect((await anonymous(server, '/ready')).status).toBe(200);
    server.readiness.drain();
    const problem = await expectProblem(await anonymous(server, '/ready'), 503, 'draining');
    expect(problem.detail).toContain('is stopping');
    expect((await anonymous(server, '/health')).status).toBe(200);
  });

  it.skipIf(!postgres.available)('on PostgreSQL, names the listener when its connection is down', async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    const server = await start({ CONSILIUM_DATABASE: url, CONSILIUM_INSTANCE_ID: 'probe-pg' });
    expect(await (await anonymous(server, '/ready')).json()).toEqual({ status: 'ready', instance: 'probe-pg' });
    const { Client } = await import('pg');
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    const name = new URL(url).pathname.slice(1);
    try {
      // Refused from now on, so the listener cannot come back while the test looks.
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'consilium-listen %'`,
        [name],
      );
      let res: Response;
      do res = await anonymous(server, '/ready');
      while (res.status === 200);
      const problem = await expectProblem(res, 503, 'not_ready');
      expect(problem.detail).toContain('listener (the LISTEN connection is down)');
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      do res = await anonymous(server, '/ready');
      while (res.status !== 200);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
  });
});

describe('GET /metrics', () => {
  it('is 404 like any unknown path when no token is configured, even with credentials', async () => {
    const server = await start();
    await expectProblem(await anonymous(server, '/metrics'), 404, 'not_found');
    await expectProblem(await server.fetch('/metrics'), 404, 'not_found');
  });

  it('is 401 without the token, with another one, or with an API token', async () => {
    const server = await start({ CONSILIUM_METRICS_TOKEN: TOKEN });
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { authorization: `Basic ${TOKEN}` }] as Record<
      string,
      string
    >[]) {
      const res = await anonymous(server, '/metrics', headers);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      await expectProblem(res, 401, 'unauthorized');
    }
    await expectProblem(await server.fetch('/metrics'), 401, 'unauthorized');
  });

  it('counts events written, store write times and provider failures by cause; reports running debates and Node defaults', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
    await new Promise((resolve) => dead.close(resolve));
    const server = await start({
      CONSILIUM_METRICS_TOKEN: TOKEN,
      CONSILIUM_MAX_RETRIES: '0',
      CONSILIUM_SLOT5_PROVIDER: 'local-llm',
      CONSILIUM_SLOT5_BASE_URL: deadUrl,
    });
    const scrape = async () => {
      const res = await anonymous(server, '/metrics', { authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const before = await scrape();
    expect(sample(before, 'consilium_debates_running')).toBe(0);
    expect(sample(before, 'consilium_events_written_total')).toBe(0);
    expect(before).toContain('process_cpu_user_seconds_total');
    expect(before).toContain('nodejs_eventloop_lag_seconds');
    // SQLite has no pool.
    expect(before).not.toContain('consilium_pg_pool');

    const ok = await server.fetch('/ask/anthropic', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Is a metric worth it?' }),
    });
    expect(ok.status).toBe(200);
    const failed = await server.fetch('/ask/local-llm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Anyone there?' }),
    });
    expect(failed.status).toBe(502);

    const after = await scrape();
    // Every event stored, counted once: both runs' (the failed one is a session too).
    const { items } = await server.database.sessions.list({ limit: 10 });
    expect(items).toHaveLength(2);
    const events = await Promise.all(items.map((s) => server.database.sessions.events(s.id, 0)));
    expect(sample(after, 'consilium_events_written_total')).toBe(events.flat().length);
    expect(sample(after, 'consilium_store_write_seconds_count{outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'consilium_provider_errors_total{provider="local-llm",code="connection_refused"}')).toBe(1);
    expect(sample(after, 'consilium_debates_running')).toBe(0);
  });

  it('reports a detached debate as running until it is cancelled', async () => {
    const server = await start({ CONSILIUM_METRICS_TOKEN: TOKEN, CONSILIUM_OFFLINE_TOKEN_MS: '50' });
    const running = async () =>
      sample(
        await (await anonymous(server, '/metrics', { authorization: `Bearer ${TOKEN}` })).text(),
        'consilium_debates_running',
      );
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How long is a piece of string?', detach: true }),
    });
    expect(res.status).toBe(202);
    const { sessionId } = (await res.json()) as { sessionId: string };
    expect(await running()).toBe(1);
    expect((await server.fetch(`/sessions/${sessionId}/cancel`, { method: 'POST' })).status).toBeLessThan(300);
    await server.sessions.recorder.done();
    expect(await running()).toBe(0);
  });

  it.skipIf(!postgres.available)('reports the PostgreSQL pool: total, idle and waiting connections', async () => {
    pg = await startPostgres();
    const server = await start({ CONSILIUM_DATABASE: await pg.createDatabase(), CONSILIUM_METRICS_TOKEN: TOKEN });
    const text = await (await anonymous(server, '/metrics', { authorization: `Bearer ${TOKEN}` })).text();
    expect(sample(text, 'consilium_pg_pool_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'consilium_pg_pool_idle')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'consilium_pg_pool_waiting')).toBe(0);
  });
});
