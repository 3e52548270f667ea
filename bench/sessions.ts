/**
 * What session storage costs, against baselines measured in the same run:
 * (1) `GET /sessions/{id}` over loopback for a cached session and for one the cache has evicted (p50; goal cached ≤ 2 ms),
 *     beside a bare `node:http` server sending the same bytes;
 * (2) sustained writes: many debates' real step sequences written at once through the store, as steps/s and
 *     events/s, beside the same events written the naive way (one INSERT and one commit per event);
 * (3) cold start: spawn to "listening" of the server as `npm start` runs it (the bundle its `prestart` writes),
 *     beside a bare `node:http` server (goal < 500 ms).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import type { DebateEvent, Session } from '../sdk/src/generated/types.gen.js';
import { bundleServer } from '../server/build.js';
import type { Step } from '../server/src/sessions/store.js';
import { openDatabase } from '../server/src/store/open.js';
import { ROOT } from '../test/support/process.js';
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const GETS = 2_000;

async function timeGets(urls: string[], headers: Record<string, string> = {}): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < GETS + 200; i++) {
    const start = performance.now();
    const res = await fetch(urls[i % urls.length]!, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${urls[i % urls.length]} answered ${res.status}`);
    if (i >= 200) samples.push(performance.now() - start);
  }
  return samples;
}

async function cachedVersusUncached(): Promise<void> {
  const server = await startServer({ CONSILIUM_SESSION_CACHE: '50' });
  try {
    const ids: string[] = [];
    // 3-round debates: real sessions of 15 answers, a consensus and a verdict (~20 KB of JSON each).
    for (let i = 0; i < 200; i++) {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: `Bench question ${i}: cache or not?`, rounds: 3 }),
      });
      ids.push(((await res.json()) as Session).id);
    }
    const url = (id: string) => `${server.baseUrl}/sessions/${id}`;
    const recent = ids.slice(-10).map(url);
    // 150 sessions read in turn through a cache of 50: each read has been evicted since its last one.
    const evicted = ids.slice(0, 150).map(url);
    const body = await (await fetch(recent[0]!, { headers: server.headers })).text();
    const bare: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    try {
      const baseline = percentile(await timeGets([bareUrl]), 50);
      const cached = percentile(await timeGets(recent, server.headers), 50);
      const uncached = percentile(await timeGets(evicted, server.headers), 50);
      report('sessions: bare node:http GET, same bytes (baseline)', baseline, 'ms', `${(body.length / 1024).toFixed(1)} KB body`);
      report(
        'sessions: GET /sessions/{id} cached p50',
        cached,
        'ms',
        `${(cached / baseline).toFixed(2)}x baseline; goal <= 2 ms`,
      );
      report('sessions: GET /sessions/{id} uncached p50', uncached, 'ms', `${(uncached / cached).toFixed(2)}x cached`);
      record({
        id: 'cached-get',
        label: '`GET /sessions/{id}` cached p50',
        value: round(cached, 2),
        unit: 'ms',
        goal: { op: '≤', value: 2 },
      });
    } finally {
      bare.close();
    }
  } finally {
    await server.close();
  }
}

/** One real debate's steps, as the recorder wrote them, to replay under fresh ids. */
async function recordedSteps(): Promise<Step[]> {
  const server = await startServer();
  try {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What does a debate write?', rounds: 3 }),
    });
    const session = (await res.json()) as Session;
    const events = await server.sessions.store.events(session.id, 0);
    // Step boundaries as the recorder draws them: every event but a delta ends one. Each step carries
    // the finished session (the recorder's carry the session as it stood): the same rows, near enough in size.
    const steps: Step[] = [];
    let pending: DebateEvent[] = [];
    for (const event of events) {
      pending.push(event);
      if (event.type === 'answer.delta') continue;
      const round = 'round' in event ? event.round : event.type === 'answer.completed' ? event.answer.round : undefined;
      steps.push({
        session,
        rounds: round === undefined ? [] : [round],
        consensus: event.type === 'consensus',
        verdict: event.type === 'verdict',
        events: pending,
      });
      pending = [];
    }
    return steps;
  } finally {
    await server.close();
  }
}

function renamed(steps: Step[], id: string): Step[] {
  const rename = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll(steps[0]!.session.id, id)) as T;
  return steps.map((step) => rename(step));
}

async function sustainedWrites(): Promise<void> {
  const steps = await recordedSteps();
  const events = steps.reduce((n, s) => n + s.events.length, 0);
  const dir = mkdtempSync(join(tmpdir(), 'consilium-bench-writes-'));
  try {
    const database = await openDatabase(join(dir, 'store.db'));
    const store = database.sessions;
    const debates = 100;
    const work = Array.from({ length: debates }, (_, i) => renamed(steps, `ses_BENCH${String(i).padStart(21, '0')}`));
    const start = performance.now();
    // Each debate writes its steps in order, all debates at once: how the recorder drives the store.
    await Promise.all(
      work.map(async (debate) => {
        for (const step of debate) await store.write(step);
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    await database.close();

    const naive = await naiveEventWrites(join(dir, 'naive.db'), work.slice(0, 10));
    const ours = (debates * events) / seconds;
    report(
      'sessions: store writes, 100 debates at once',
      (debates * steps.length) / seconds,
      'step/s',
      `${debates} debates x ${steps.length} steps`,
    );
    report('sessions: store writes, events', ours, 'ev/s', `${events} events per debate`);
    report(
      'sessions: naive 1 INSERT + commit per event (baseline)',
      naive,
      'ev/s',
      `store ${(ours / naive).toFixed(1)}x baseline`,
    );
    record({
      id: 'writes',
      label: 'store writes, 100 debates at once / one commit per event',
      value: round(ours / naive, 1),
      unit: '×',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Events only, one autocommitted INSERT each, WAL and synchronous=NORMAL like the store: what a plain event log costs. */
async function naiveEventWrites(file: string, work: Step[][]): Promise<number> {
  const db = new sqlite3.Database(file);
  const run = (sql: string, params: unknown[] = []) =>
    new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
  await run('PRAGMA journal_mode=WAL');
  await run('PRAGMA synchronous=NORMAL');
  await run(
    'CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq))',
  );
  const all = work.flatMap((steps) => steps.flatMap((s) => s.events));
  const start = performance.now();
  for (const e of all) await run('INSERT INTO events VALUES (?, ?, ?, ?)', [e.sessionId, e.seq, e.type, JSON.stringify(e)]);
  const rate = all.length / ((performance.now() - start) / 1000);
  await new Promise<void>((resolve) => db.close(() => resolve()));
  return rate;
}

/** Milliseconds from spawn to `pattern` on stdout. */
function spawnUntil(command: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (pattern.test(out)) {
        const ms = performance.now() - start;
        child.kill('SIGKILL');
        resolve(ms);
      }
    });
    child.once('exit', (code) => {
      if (!pattern.test(out)) reject(new Error(`${command} exited ${code} before ${pattern}: ${out}`));
    });
  });
}

async function coldStart(): Promise<void> {
  const runs = 7;
  const bare: number[] = [];
  const server: number[] = [];
  // What `npm start` runs once its `prestart` has bundled the server.
  const bundle = await bundleServer();
  const bareScript = "require('node:http').createServer().listen(0, '127.0.0.1', () => console.log('listening'))";
  for (let i = 0; i < runs; i++) {
    bare.push(await spawnUntil(process.execPath, ['-e', bareScript], process.env, /listening/));
    const dataDir = mkdtempSync(join(tmpdir(), 'consilium-bench-start-'));
    try {
      const env = { ...process.env, PORT: '0', CONSILIUM_DATA_DIR: dataDir, CONSILIUM_DATABASE: '', CONSILIUM_LOG_LEVEL: 'info' };
      server.push(await spawnUntil(process.execPath, [bundle], env, /"msg":"listening"/));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const baseline = percentile(bare, 50);
  const ours = percentile(server, 50);
  report('sessions: cold start, bare node:http (baseline)', baseline, 'ms', `median of ${runs}`);
  report('sessions: cold start, server (fresh data dir)', ours, 'ms', `${(ours / baseline).toFixed(1)}x baseline; goal < 500 ms`);
  record({
    id: 'cold-start',
    label: 'cold start, spawn → listening, median',
    value: Math.round(ours),
    unit: 'ms',
    goal: { op: '<', value: 500 },
  });
}

export async function benchSessions(): Promise<void> {
  await cachedVersusUncached();
  await sustainedWrites();
  await coldStart();
}
