/**
 * `GET /metrics` in Prometheus' text format, for operators only: served when `CONSILIUM_METRICS_TOKEN` is set, to
 * `Authorization: Bearer <that token>`. Each app has a registry of its own (several apps in one test process do not
 * collide), and observes the domain through hooks — the recorder's writes and running count, the engine's failed
 * calls, the pool's counts — never from inside it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { SessionRecorder } from '../sessions/recorder.js';
import type { AppEnv, PoolUseSource } from './deps.js';
import { problem } from './problem.js';

export interface MetricsSources {
  recorder: Pick<SessionRecorder, 'running' | 'observeWrites'>;
  poolUse?: PoolUseSource | undefined;
}

export class AppMetrics {
  readonly registry = new Registry();
  readonly #providerErrors: Counter<'provider' | 'code'>;

  constructor({ recorder, poolUse }: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'consilium_debates_running',
      help: 'Debates being run (and recorded) by this instance.',
      registers,
      collect() {
        this.set(recorder.running);
      },
    });
    const events = new Counter({
      name: 'consilium_events_written_total',
      help: 'Debate events committed to the session store by this instance.',
      registers,
    });
    const writes = new Histogram({
      name: 'consilium_store_write_seconds',
      help: "Time of one store write of a run's step, by outcome (ok, failed).",
      labelNames: ['outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    recorder.observeWrites(({ events: n, ms, ok }) => {
      if (ok) events.inc(n);
      writes.observe({ outcome: ok ? 'ok' : 'failed' }, ms / 1000);
    });
    this.#providerErrors = new Counter({
      name: 'consilium_provider_errors_total',
      help: 'Failed model call attempts (retried or not), by provider and cause.',
      labelNames: ['provider', 'code'] as const,
      registers,
    });
    if (poolUse?.()) {
      const gauge = (name: string, help: string, read: (use: NonNullable<ReturnType<PoolUseSource>>) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            const use = poolUse();
            if (use) this.set(read(use));
          },
        });
      gauge('consilium_pg_pool_total', 'Connections the PostgreSQL pool holds.', (u) => u.total);
      gauge('consilium_pg_pool_idle', 'Idle connections in the PostgreSQL pool.', (u) => u.idle);
      gauge('consilium_pg_pool_waiting', 'Queries waiting for a PostgreSQL pool connection.', (u) => u.waiting);
    }
  }

  /** The engine's `onCallFailed` hook. */
  providerFailed(failure: { provider: string; code: string }): void {
    this.#providerErrors.inc({ provider: failure.provider, code: failure.code });
  }
}

/** Constant time in the token's content; hashing first makes the lengths equal too. */
function sameToken(sent: string, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(sent), digest(token));
}

/** The `/metrics` handler: 404 when there is no token (as for any unknown path), 401 without the right one. */
export function metricsHandler(token: string | undefined, metrics: AppMetrics | undefined) {
  return async (c: Context<AppEnv>) => {
    if (!token || !metrics) return problem(c, 404, 'not_found', { detail: `No route for ${c.req.method} ${c.req.path}.` });
    const sent = /^Bearer +([\x21-\x7e]+) *$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!sent || !sameToken(sent, token)) {
      c.header('www-authenticate', 'Bearer realm="metrics"');
      return problem(c, 401, 'unauthorized', {
        detail: 'Send the metrics token (CONSILIUM_METRICS_TOKEN) as `Authorization: Bearer <token>`.',
      });
    }
    const body = await metrics.registry.metrics();
    return c.body(body, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  };
}
