/**
 * Several instances on one PostgreSQL database, against baselines measured in the same run:
 * (1) follow lag: each event of a debate running on A, as a follower on B sees it, against a follower on A
 *     (goal: p50 ≤ 50 ms, p99 ≤ 150 ms later), and how many writes each follower's text arrives in;
 * (2) 40 debates at once on PostgreSQL: each debate's time from its request to its `session.ended` (goal: p50 within
 *     1.15× the same 40 on SQLite, measured in the same run), the verdict to `session.ended` (the last step's commit;
 *     goal p99 ≤ 200 ms), and how often connections waited on a lock (NOTIFY's commit lock among them).
 */
import { Client } from 'pg';
import type { DebateEvent } from '../sdk/src/generated/types.gen.js';
import { startPostgres, type TestPostgres } from '../test/support/postgres.js';
import { type Caller, caller, startServer } from '../test/support/server.js';
import { SseParser } from '../test/support/sse.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Every event of an SSE response with the time its chunk arrived, and the number of chunks that carried events. */
async function timedEvents(res: Response): Promise<{ at: Map<number, number>; events: DebateEvent[]; writes: number }> {
  const parser = new SseParser();
  const at = new Map<number, number>();
  const events: DebateEvent[] = [];
  let writes = 0;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const now = performance.now();
    const messages = parser.feed(decoder.decode(chunk, { stream: true }));
    if (messages.length > 0) writes++;
    for (const m of messages) {
      const event = JSON.parse(m.data) as DebateEvent;
      at.set(event.seq, now);
      events.push(event);
    }
  }
  return { at, events, writes };
}

async function followLag(pg: TestPostgres): Promise<void> {
  const database = await pg.createDatabase();
  // Paced like a fast real model: the debate streams for a few seconds.
  const a = await startServer({ CONSILIUM_DATABASE: database, CONSILIUM_OFFLINE_TOKEN_MS: '3' });
  const b = await startServer({ CONSILIUM_DATABASE: database, CONSILIUM_OFFLINE_TOKEN_MS: '3' });
  const bAsA: Caller = caller(b.baseUrl, a.user, a.password, a.token);
  const lags: number[] = [];
  const writes = { owner: 0, other: 0 };
  try {
    for (let i = 0; i < 4; i++) {
      const res = await a.fetch('/consilium/deep', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ question: `Followed from two instances, ${i}?`, rounds: 2, detach: true }),
      });
      const { sessionId } = (await res.json()) as { sessionId: string };
      const [owner, other] = await Promise.all([
        a.fetch(`/sessions/${sessionId}/events`).then(timedEvents),
        bAsA.fetch(`/sessions/${sessionId}/events`).then(timedEvents),
      ]);
      if (JSON.stringify(owner.events) !== JSON.stringify(other.events)) throw new Error('the followers saw different events');
      // Live events only: both followers replay what was stored when they connected at once.
      const connected = Math.max(owner.at.get(owner.events[0]!.seq)!, other.at.get(other.events[0]!.seq)!);
      for (const [seq, t] of owner.at) if (t > connected + 5) lags.push(other.at.get(seq)! - t);
      writes.owner += owner.writes;
      writes.other += other.writes;
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  const p50 = percentile(lags, 50);
  const p99 = percentile(lags, 99);
  report('follow lag, other instance vs owner, p50', p50, 'ms', `${lags.length} events of 4 debates`);
  report('follow lag, other instance vs owner, p99', p99, 'ms');
  report('writes carrying events, owner / other', writes.other / writes.owner, '×', `${writes.owner} vs ${writes.other}`);
  record({
    id: 'follow-lag-p50',
    label: 'Follower on another instance, added lag p50',
    value: round(p50, 1),
    unit: 'ms',
    goal: { op: '≤', value: 50 },
  });
  record({
    id: 'follow-lag-p99',
    label: 'Follower on another instance, added lag p99',
    value: round(p99, 1),
    unit: 'ms',
    goal: { op: '≤', value: 150 },
  });
  record({
    id: 'follow-cadence',
    label: 'Writes carrying events, other instance / owner',
    value: round(writes.other / writes.owner, 2),
    unit: '×',
  });
}

/** 40 deep debates streamed at once: per debate, the time from its verdict's last text to its `session.ended`. */
async function verdictToEnd(
  env: Record<string, string>,
  watch?: string,
): Promise<{
  gaps: number[];
  durations: number[];
  idleInTransaction: number;
  poolBusy: number;
  poolWaiting: number;
  locks: { samples: number; waiting: number; most: number };
}> {
  const server = await startServer({ ...env, CONSILIUM_OFFLINE_TOKEN_MS: '1' });
  const locks = { samples: 0, waiting: 0, most: 0 };
  let idleInTransaction = 0;
  let poolBusy = 0;
  let poolWaiting = 0;
  let sampling = true;
  const sampler = watch
    ? (async () => {
        const client = new Client({ connectionString: watch });
        await client.connect();
        while (sampling) {
          const { rows } = await client.query<{ n: string; locked: string }>(
            `SELECT count(*) FILTER (WHERE state = 'idle in transaction') AS n,
               count(*) FILTER (WHERE wait_event_type = 'Lock') AS locked
             FROM pg_stat_activity WHERE datname = current_database()`,
          );
          idleInTransaction = Math.max(idleInTransaction, Number(rows[0]!.n));
          const locked = Number(rows[0]!.locked);
          locks.samples++;
          if (locked > 0) locks.waiting++;
          locks.most = Math.max(locks.most, locked);
          const pool = server.database.poolUse();
          if (pool) {
            poolBusy = Math.max(poolBusy, pool.total - pool.idle);
            poolWaiting = Math.max(poolWaiting, pool.waiting);
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.end();
      })()
    : Promise.resolve();
  const gaps: number[] = [];
  const durations: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const started = performance.now();
        const res = await server.fetch('/consilium/deep/stream', {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify({ question: `Forty at once, number ${i}?`, rounds: 2 }),
        });
        const { at, events } = await timedEvents(res);
        const verdict = events.find((e) => e.type === 'verdict');
        const end = events.find((e) => e.type === 'session.ended');
        if (!verdict || !end) throw new Error(`debate ${i} ended without a verdict (${end?.type ?? 'no end'})`);
        // The verdict is shown with its commit, the end's: measured from the verdict's last text, shown live.
        const written = events.filter((e) => e.type === 'verdict.delta').at(-1) ?? verdict;
        gaps.push(at.get(end.seq)! - at.get(written.seq)!);
        durations.push(at.get(end.seq)! - started);
      }),
    );
  } finally {
    sampling = false;
    await sampler;
    await server.close();
  }
  return { gaps, durations, idleInTransaction, poolBusy, poolWaiting, locks };
}

async function fortyAtOnce(pg: TestPostgres): Promise<void> {
  const sqlite = await verdictToEnd({});
  const url = await pg.createDatabase();
  const postgres = await verdictToEnd({ CONSILIUM_DATABASE: url }, url);
  const p99 = percentile(postgres.gaps, 99);
  report(
    '40 at once, verdict text → ended, SQLite p50/p99',
    percentile(sqlite.gaps, 50),
    'ms',
    `p99 ${round(percentile(sqlite.gaps, 99), 1)} ms`,
  );
  report('40 at once, verdict text → ended, PostgreSQL p50/p99', percentile(postgres.gaps, 50), 'ms', `p99 ${round(p99, 1)} ms`);
  const ratio = percentile(postgres.durations, 50) / percentile(sqlite.durations, 50);
  report(
    '40 at once, request → ended p50, PostgreSQL / SQLite',
    ratio,
    '×',
    `${round(percentile(postgres.durations, 50), 0)} vs ${round(percentile(sqlite.durations, 50), 0)} ms`,
  );
  report(
    '40 at once, samples with a connection waiting on a lock',
    postgres.locks.waiting,
    '',
    `of ${postgres.locks.samples}; ${postgres.locks.most} waiting at most`,
  );
  record({
    id: 'forty-e2e-ratio',
    label: '40 debates at once, request → session.ended p50, PostgreSQL / SQLite',
    value: round(ratio, 2),
    unit: '×',
    goal: { op: '≤', value: 1.15 },
  });
  record({
    id: 'forty-lock-waits',
    label: '40 at once: lock-wait samples with a connection waiting (of all samples)',
    value: postgres.locks.waiting,
    unit: `of ${postgres.locks.samples}`,
  });
  report('40 at once, most connections idle in transaction', postgres.idleInTransaction, '');
  report(
    '40 at once, pool connections busy at once, most',
    postgres.poolBusy,
    '',
    `of 20; ${postgres.poolWaiting} queries waiting at most`,
  );
  record({
    id: 'forty-end-p99',
    label: '40 debates on PostgreSQL, verdict text → session.ended p99',
    value: round(p99, 1),
    unit: 'ms',
    goal: { op: '≤', value: 200 },
  });
  record({
    id: 'forty-end-sqlite-p99',
    label: 'The same 40 on SQLite, p99',
    value: round(percentile(sqlite.gaps, 99), 1),
    unit: 'ms',
  });
  record({
    id: 'forty-pool-busy',
    label: 'Pool connections busy at once, most seen (of 20)',
    value: postgres.poolBusy,
    unit: '',
  });
  record({
    id: 'forty-pool-waiting',
    label: 'Queries waiting for a pool connection, most seen',
    value: postgres.poolWaiting,
    unit: '',
  });
  record({
    id: 'forty-idle-in-transaction',
    label: 'Connections idle in transaction, most seen',
    value: postgres.idleInTransaction,
    unit: '',
  });
}

export async function benchPostgres(): Promise<void> {
  const pg = await startPostgres();
  try {
    await followLag(pg);
    await fortyAtOnce(pg);
  } finally {
    await pg.stop();
  }
}
