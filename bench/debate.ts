/**
 * What the debate engine and its event stream cost, with simulated providers of exactly known timing
 * (`sim-model.ts`), so each figure has an ideal to compare with:
 * 1. a 5-model, 3-round `engine.deep` against its critical path (slowest call per round + the verdict);
 * 2. a provider's first token to the client's first `answer.delta` over SSE on loopback, against a bare
 *    `node:http` SSE write;
 * 3. 500 streamed debates at once against a server in a child process: errors, the latency each event
 *    adds from `emit` to the client (clocks aligned over IPC; the same debates one at a time are the
 *    baseline), and the server's peak RSS and CPU.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { serve } from '@hono/node-server';
import type { DebateEvent } from '../sdk/src/generated/types.gen.js';
import { loadConfig } from '../server/src/config/config.js';
import { createLogger } from '../server/src/config/log.js';
import { slotsFromEnv } from '../server/src/config/slots.js';
import { DebateEngine, type Slot } from '../server/src/debate/engine.js';
import { createApp } from '../server/src/http/app.js';
import { LOCAL_OWNER } from '../server/src/http/owner.js';
import { openSessions } from '../server/src/sessions/open.js';
import { openDatabase } from '../server/src/store/open.js';
import { benchCaller } from '../test/support/caller.js';
import { type SseMessage, SseParser } from '../test/support/sse.js';
import { record, round } from './figures.js';
import { callMs, SIM_PROFILES, type SimCall, SimLanguageModel } from './sim-model.js';
import { percentile, report } from './stats.js';

const QUESTION = 'Should the service stream every token of every model to the client, or batch them?';
const ROUNDS = 3;
const CRITICAL_RUNS = 9;
const FIRST_TOKEN_STREAMS = 40;
const CONCURRENT = 500;
const CONCURRENT_ROUNDS = 2;
/** Debates run one at a time for the unloaded baseline. */
const ALONE = 5;
const CHILD_ENV = 'CONSILIUM_BENCH_CHILD';

const PROFILES = Object.values(SIM_PROFILES);
const SLOWEST_MS = Math.max(...PROFILES.map(callMs));
/** The ideal duration of a deep debate: the slowest call of each round, then the verdict (slot 1). */
export const idealMs = (rounds: number) => rounds * SLOWEST_MS + callMs(SIM_PROFILES[1]);

const goal = (met: boolean) => (met ? 'met' : 'NOT met');
const median = (xs: number[]) => percentile(xs, 50);
const mb = (bytes: number) => bytes / 2 ** 20;

// ---------------------------------------------------------------------------------------------
// The engine over simulated providers.

export function simPanel(onCall?: (call: SimCall) => void): Slot[] {
  return slotsFromEnv({}).map((config) => {
    const languageModel = new SimLanguageModel({ slot: config.slot, ...(onCall && { onCall }) });
    return {
      config,
      model: { slot: config.slot, provider: config.provider, model: languageModel.modelId, offline: false, languageModel },
    };
  });
}

type DeepOptions = NonNullable<Parameters<DebateEngine['deep']>[1]>;

/** The app's defaults (quorum, deadline, retries, prices), none read from this machine's environment. */
export function settings(panel: Slot[]) {
  // 500 debates at once from one owner: the rate limits would (rightly) refuse most of them.
  const config = loadConfig({ CONSILIUM_LOG_LEVEL: 'silent', CONSILIUM_RATE_LIMITS: 'off' });
  return {
    config,
    engine: {
      panel,
      quorum: config.quorum,
      callTimeoutMs: config.callTimeoutMs,
      maxRetries: config.maxRetries,
      prices: config.prices,
      owner: LOCAL_OWNER,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Critical path.

/** The same calls as a debate, without the engine: each round's five `doStream`s at once, read to the end; then slot 1. */
async function bareDebate(panel: Slot[], rounds: number): Promise<void> {
  const drain = async (slot: Slot, json: boolean) => {
    const { stream } = await slot.model.languageModel.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }],
      ...(json && {
        responseFormat: {
          type: 'json',
          schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
        },
      }),
    });
    const reader = (stream as ReadableStream<LanguageModelV3StreamPart>).getReader();
    while (!(await reader.read()).done);
  };
  for (let n = 1; n <= rounds; n++) await Promise.all(panel.map((slot) => drain(slot, n === rounds)));
  await drain(panel[0]!, true);
}

async function criticalPath(): Promise<void> {
  const calls: { call: SimCall; elu: EventLoopUtilization }[] = [];
  const panel = simPanel((call) => calls.push({ call, elu: performance.eventLoopUtilization() }));
  const engine = new DebateEngine(settings(panel).engine);
  const ideal = idealMs(ROUNDS);
  const walls: number[] = [];
  const bares: number[] = [];
  const outside: number[] = [];
  const lags: number[] = [];
  const busy: number[] = [];
  const problems: string[] = [];
  for (let run = -2; run < CRITICAL_RUNS; run++) {
    // Bare and engine alternate, so drift in the machine's load touches both alike.
    let start = performance.now();
    await bareDebate(panel, ROUNDS);
    const bare = performance.now() - start;
    calls.length = 0;
    const stages: { at: number; elu: EventLoopUtilization }[] = [];
    start = performance.now();
    const session = await engine.deep(QUESTION, {
      rounds: ROUNDS,
      onLog: (log) =>
        log.subscribe((event) => {
          if (event.type === 'round.started' || event.type === 'synthesis.started') {
            stages.push({ at: performance.now(), elu: performance.eventLoopUtilization() });
          }
        }),
    });
    const wall = performance.now() - start;
    if (session.status !== 'completed') problems.push(`status ${session.status}: ${JSON.stringify(session.missingSlots)}`);
    if (calls.length !== ROUNDS * 5 + 1 || stages.length !== ROUNDS + 1) {
      problems.push(`${calls.length} model calls in ${stages.length} stages, expected ${ROUNDS * 5 + 1} in ${ROUNDS + 1}`);
      continue;
    }
    if (run < 0) continue; // warm-up
    walls.push(wall);
    bares.push(bare);
    // Each stage (round, verdict): its span is first call start to last call end; the rest of the wall time is the engine's.
    let spans = 0;
    stages.forEach((stage, k) => {
      const group = calls.slice(5 * k, 5 * k + 5);
      const last = group.reduce((a, b) => (b.call.start > a.call.start ? b : a));
      spans += Math.max(...group.map((c) => c.call.end ?? Number.NaN)) - Math.min(...group.map((c) => c.call.start));
      // From the stage's event to its last model call starting: the slowest slot cannot start before every slot is set up.
      lags.push(last.call.start - stage.at);
      busy.push(performance.eventLoopUtilization(last.elu, stage.elu).utilization);
    });
    outside.push(wall - spans);
  }
  for (const p of new Set(problems)) console.log(`debate: WARNING ${p}`);
  const wall = median(walls);
  const bare = median(bares);
  report(
    'debate: ideal critical path (baseline)',
    ideal,
    'ms',
    `${ROUNDS} rounds x ${SLOWEST_MS} ms (slot 3) + verdict ${callMs(SIM_PROFILES[1])} ms (slot 1)`,
  );
  report('debate: bare sim calls, no engine, median', bare, 'ms', `${(bare / ideal).toFixed(3)}x ideal (sim timer lateness)`);
  report(`debate: engine.deep 5 models, ${ROUNDS} rounds, median`, wall, 'ms', `of ${walls.length} runs after 2 warm-ups`);
  report('debate: engine.deep / ideal critical path', wall / ideal, 'x', `goal <= 1.02: ${goal(wall / ideal <= 1.02)}`);
  record({
    id: 'critical-path',
    label: '`engine.deep` / ideal critical path',
    value: round(wall / ideal, 3),
    unit: '×',
    goal: { op: '≤', value: 1.02 },
  });
  report(
    'debate: (info) engine time outside model calls',
    median(outside),
    'ms',
    `median per debate: wall minus each stage's span (first call start to last call end); engine / bare ${(wall / bare).toFixed(3)}x`,
  );
  report(
    'debate: (info) stage start -> last doStream',
    median(lags),
    'ms',
    `median of ${lags.length} stages (p90 ${percentile(lags, 90).toFixed(1)} ms); event loop busy ${(100 * median(busy)).toFixed(0)}% of it`,
  );
}

/** Reads a fetch body until a message matches; returns when it arrived (the chunk's read time) and the message. */
async function readUntil(
  res: Response,
  match: (m: SseMessage) => boolean,
): Promise<{ at: number; message: SseMessage } | undefined> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      const at = performance.now();
      if (done) return undefined;
      const found = parser.feed(decoder.decode(value, { stream: true })).find(match);
      if (found) return { at, message: found };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// 2. First token.

/** A bare `node:http` SSE endpoint: one message at once, then, 30 ms later, one timed delta. */
async function bareSseServer(): Promise<{ url: string; written: () => number; close: () => void }> {
  let writtenAt = 0;
  const delta = JSON.stringify({ v: 1, sessionId: 'bare', seq: 2, ts: new Date().toISOString(), type: 'answer.delta' });
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('id: 1\nevent: session.started\ndata: {"seq":1}\n\n');
    const timer = setTimeout(() => {
      writtenAt = performance.now();
      res.write(`id: 2\nevent: answer.delta\ndata: ${delta}\n\n`);
    }, 30);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    written: () => writtenAt,
    close: () => server.close(),
  };
}

/** Sessions stored as the product stores them: SQLite in a fresh file, with the accounts beside them. */
async function benchSessions() {
  const database = await openDatabase(join(mkdtempSync(join(tmpdir(), 'consilium-bench-')), 'sessions.db'));
  return { database, sessions: await openSessions(database.sessions, { cacheSize: 50 }) };
}

async function firstToken(): Promise<void> {
  const calls: SimCall[] = [];
  const { config, engine: engineSettings } = settings(simPanel((call) => calls.push(call)));
  const { database, sessions } = await benchSessions();
  const { accounts, authorization } = await benchCaller(database.accounts);
  const app = createApp({
    config,
    logger: createLogger('silent'),
    version: 'bench',
    sessions,
    accounts,
    debate: { engine: new DebateEngine(engineSettings), sessions, ownerOf: () => LOCAL_OWNER },
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/consilium/deep/stream`;
  const bare = await bareSseServer();
  const isDelta = (m: SseMessage) => m.event === 'answer.delta';
  const viaApp: number[] = [];
  const baseline: number[] = [];
  const problems: string[] = [];
  try {
    for (let i = -5; i < FIRST_TOKEN_STREAMS; i++) {
      const b = await readUntil(await fetch(bare.url), isDelta);
      if (b && i >= 0) baseline.push(b.at - bare.written());

      calls.length = 0;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ question: QUESTION, rounds: ROUNDS }),
      });
      if (res.status !== 200) problems.push(`status ${res.status}`);
      // The client leaves once it has its first delta: the server cancels that debate.
      const got = await readUntil(res, isDelta);
      const first = calls.filter((c) => c.firstToken !== undefined).sort((a, b) => a.firstToken! - b.firstToken!)[0];
      if (!got || !first) {
        problems.push('no answer.delta');
        continue;
      }
      const event = JSON.parse(got.message.data) as DebateEvent;
      if (event.type !== 'answer.delta' || event.slot !== first.slot) {
        problems.push(
          `first delta from slot ${event.type === 'answer.delta' ? event.slot : '?'}, first token from ${first.slot}`,
        );
      }
      if (i >= 0) viaApp.push(got.at - first.firstToken!);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the cancelled debate winds down
    }
  } finally {
    bare.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const p of new Set(problems)) console.log(`debate: WARNING ${p}`);
  const base = median(baseline);
  const app50 = median(viaApp);
  report('debate: bare node:http SSE write -> read p50', base, 'ms', `baseline, n=${baseline.length}, same process`);
  report(
    'debate: first token -> client answer.delta p50',
    app50,
    'ms',
    `${(app50 / base).toFixed(2)}x baseline; goal <= 5 ms: ${goal(app50 <= 5)}; n=${viaApp.length}, p90 ${percentile(viaApp, 90).toFixed(2)} ms, same process`,
  );
  record({
    id: 'first-token',
    label: 'first token → client `answer.delta` p50',
    value: round(app50, 2),
    unit: 'ms',
    goal: { op: '≤', value: 5 },
  });
}

// ---------------------------------------------------------------------------------------------
// 3. Concurrency: the server in a child process.

/** One wall clock for both processes, to the microsecond: process start plus monotonic time since. */
const clock = () => performance.timeOrigin + performance.now();

type ToChild = { type: 'ping'; t0: number } | { type: 'reset' } | { type: 'report' } | { type: 'exit' };
interface ServerReport {
  type: 'report';
  /** Highest RSS seen by the 50 ms sampler since the reset, with the heap at that moment. */
  peakRss: number;
  heapAtPeak: { heapUsed: number; heapTotal: number; external: number };
  /** The kernel's high-water mark (getrusage) over the child's whole life, which no sampler can miss. */
  maxRss: number;
  idleRss: number;
  samples: number;
  /** Longest wait between two samples: how long the event loop was held at worst. */
  maxGapMs: number;
  cpuMs: number;
  wallMs: number;
  /** Emission time (`clock()`) by event `seq`, by session id. */
  emitted: Record<string, number[]>;
}
type FromChild =
  | { type: 'ready'; port: number; startRss: number; authorization: string }
  | { type: 'pong'; t0: number; tc: number }
  | { type: 'reset'; idleRss: number }
  | ServerReport;

/** The child: the app over simulated providers, reporting event emission times, RSS and CPU over IPC. */
async function serveDebates(): Promise<void> {
  const send = (message: FromChild) => process.send!(message);
  let emitted = new Map<string, number[]>();
  class TimedEngine extends DebateEngine {
    override deep(question: string, options: DeepOptions = {}) {
      const onLog = options.onLog;
      return super.deep(question, {
        ...options,
        onLog: (log, snapshot) => {
          const times: number[] = [];
          emitted.set(log.sessionId, times);
          // Subscribed before the SSE handler's listener: stamps each event as `emit` hands it out.
          log.subscribe((event) => {
            times[event.seq] = clock();
          });
          onLog?.(log, snapshot);
        },
      });
    }
  }
  const { config, engine } = settings(simPanel());
  const { database, sessions } = await benchSessions();
  const { accounts, authorization } = await benchCaller(database.accounts);
  const app = createApp({
    config,
    logger: createLogger('silent'),
    version: 'bench',
    sessions,
    accounts,
    debate: { engine: new TimedEngine(engine), sessions, ownerOf: () => LOCAL_OWNER },
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const memory = () => process.memoryUsage();
  let idleRss = memory().rss;
  let peak = memory();
  let samples = 0;
  let last = performance.now();
  let maxGapMs = 0;
  let cpu = process.cpuUsage();
  let wall = performance.now();
  setInterval(() => {
    const m = memory();
    if (m.rss > peak.rss) peak = m;
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    samples++;
  }, 50);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToChild) => {
    if (message.type === 'ping') send({ type: 'pong', t0: message.t0, tc: clock() });
    else if (message.type === 'reset') {
      emitted = new Map();
      peak = memory();
      idleRss = peak.rss;
      samples = 0;
      maxGapMs = 0;
      last = performance.now();
      cpu = process.cpuUsage();
      wall = performance.now();
      send({ type: 'reset', idleRss });
    } else if (message.type === 'report') {
      const used = process.cpuUsage(cpu);
      const m = memory();
      if (m.rss > peak.rss) peak = m;
      send({
        type: 'report',
        peakRss: peak.rss,
        heapAtPeak: { heapUsed: peak.heapUsed, heapTotal: peak.heapTotal, external: peak.external },
        maxRss: process.resourceUsage().maxRSS * 1024,
        idleRss,
        samples,
        maxGapMs,
        cpuMs: (used.user + used.system) / 1000,
        wallMs: performance.now() - wall,
        emitted: Object.fromEntries(emitted),
      });
    } else if (message.type === 'exit') server.close(() => process.exit(0));
  });
  send({ type: 'ready', port: (server.address() as AddressInfo).port, startRss: process.memoryUsage().rss, authorization });
}

/** The child's next message of `type`, after sending `message` if one is given. */
function ask<T extends FromChild['type']>(
  child: ChildProcess,
  message: ToChild | undefined,
  type: T,
): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve) => {
    const on = (m: FromChild) => {
      if (m.type !== type) return;
      child.off('message', on);
      resolve(m as Extract<FromChild, { type: T }>);
    };
    child.on('message', on);
    if (message) child.send(message);
  });
}

interface StreamResult {
  status: number;
  sessionId?: string;
  /** Receive time (this process's `clock()`) by event `seq`. */
  received: number[];
  /** Receive time by `seq` and the event's type, for the events past a latency threshold. */
  types: string[];
  completed: boolean;
  parseFailures: number;
  /** A transport error, or the start of a non-200 body. */
  error?: string;
  ms: number;
}

/** One streamed debate with `node:http`: every message parsed, checked and stamped with its chunk's arrival. */
function streamDebate(port: number, agent: Agent, rounds: number, authorization: string): Promise<StreamResult> {
  const body = JSON.stringify({ question: QUESTION, rounds });
  const start = performance.now();
  return new Promise((resolve) => {
    const result: StreamResult = { status: 0, received: [], types: [], completed: false, parseFailures: 0, ms: 0 };
    const done = (error?: string) => {
      if (error !== undefined) result.error ??= error;
      result.ms = performance.now() - start;
      resolve(result);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/consilium/deep/stream',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization },
      },
      (res) => {
        result.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        if (result.status !== 200) {
          let text = '';
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => done(text.slice(0, 200)));
          return;
        }
        const parser = new SseParser();
        let last: DebateEvent | undefined;
        res.on('data', (chunk: string) => {
          const at = clock();
          for (const message of parser.feed(chunk)) {
            try {
              const event = JSON.parse(message.data) as DebateEvent;
              result.sessionId ??= event.sessionId;
              const expected = (last?.seq ?? 0) + 1;
              if (event.seq !== expected || String(event.seq) !== message.id || event.type !== message.event) {
                result.parseFailures++;
              }
              if (event.sessionId !== result.sessionId) result.parseFailures++;
              result.received[event.seq] = at;
              result.types[event.seq] = event.type;
              last = event;
            } catch {
              result.parseFailures++;
            }
          }
        });
        res.on('end', () => {
          result.completed = last?.type === 'session.ended' && last.status === 'completed';
          done();
        });
        res.on('error', (error) => done(String(error)));
      },
    );
    req.on('error', (error) => done(String(error)));
    req.end(body);
  });
}

/** Receive minus emission, for every event of every stream, in ms, with its type; `offset` is the child's clock minus ours. */
function latencies(results: StreamResult[], emitted: Record<string, number[]>, offset: number): { ms: number; type: string }[] {
  const out: { ms: number; type: string }[] = [];
  for (const r of results) {
    const sent = r.sessionId !== undefined ? emitted[r.sessionId] : undefined;
    if (!sent) continue;
    r.received.forEach((at, seq) => {
      const t = sent[seq];
      if (t !== undefined) out.push({ ms: at - (t - offset), type: r.types[seq] ?? '?' });
    });
  }
  return out;
}

/** Which event types the slowest `share` of the samples are, most frequent first. */
function slowest(samples: { ms: number; type: string }[], share: number): string {
  const cut = percentile(
    samples.map((s) => s.ms),
    100 * (1 - share),
  );
  const counts = new Map<string, number>();
  for (const s of samples) if (s.ms >= cut) counts.set(s.type, (counts.get(s.type) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
}

async function concurrency(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    // `BENCH_CPU_PROF=<dir>` profiles the server (`tsx bench/cpu-profile.ts <file>` summarizes it).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, [CHILD_ENV]: 'debate-server' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const { port, startRss, authorization } = await Promise.race([
      ask(child, undefined, 'ready'),
      exited.then(() => {
        throw new Error('the debate server exited before it was ready');
      }),
    ]);
    // Unlimited sockets, no keep-alive: each debate has its own connection, as separate clients would.
    const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

    // Align the clocks: the ping with the shortest round trip bounds the error best.
    let offset = 0;
    let bestRtt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 200; i++) {
      const t0 = clock();
      const pong = await ask(child, { type: 'ping', t0 }, 'pong');
      const t1 = clock();
      if (t1 - t0 < bestRtt) {
        bestRtt = t1 - t0;
        offset = pong.tc - (t0 + t1) / 2;
      }
    }

    // Warm-up: the server's JIT and pools; then debates one at a time, the unloaded baseline.
    await Promise.all(Array.from({ length: 50 }, () => streamDebate(port, agent, CONCURRENT_ROUNDS, authorization)));
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the warm-up's garbage collected before the baseline
    await ask(child, { type: 'reset' }, 'reset');
    const alone: StreamResult[] = [];
    for (let i = 0; i < ALONE; i++) alone.push(await streamDebate(port, agent, CONCURRENT_ROUNDS, authorization));
    const unloaded = latencies(alone, (await ask(child, { type: 'report' }, 'report')).emitted, offset);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const { idleRss } = await ask(child, { type: 'reset' }, 'reset');
    const clientCpu = process.cpuUsage();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: CONCURRENT }, () => streamDebate(port, agent, CONCURRENT_ROUNDS, authorization)),
    );
    const loadMs = performance.now() - started;
    const clientUsed = process.cpuUsage(clientCpu);
    const server = await ask(child, { type: 'report' }, 'report');
    agent.destroy();

    const non200 = results.filter((r) => r.status !== 200);
    const notCompleted = results.filter((r) => r.status === 200 && !r.completed).length;
    const parseFailures = results.reduce((n, r) => n + r.parseFailures, 0);
    const errors = non200.length + notCompleted + parseFailures;
    for (const e of new Set(results.filter((r) => r.error !== undefined).map((r) => `${r.status} ${r.error}`))) {
      console.log(`debate: WARNING client: ${e}`);
    }
    const loaded = latencies(results, server.emitted, offset);
    const ms = loaded.map((l) => l.ms);
    const events = results.reduce((n, r) => n + r.received.filter((t) => t !== undefined).length, 0);
    const p99 = percentile(ms, 99);
    const unloaded99 = percentile(
      unloaded.map((l) => l.ms),
      99,
    );
    const ideal = idealMs(CONCURRENT_ROUNDS);
    const cpuPerDebate = server.cpuMs / CONCURRENT;

    report(
      `debate: ${CONCURRENT} streams: errors`,
      errors,
      '',
      `goal 0: ${goal(errors === 0)} (non-200 ${non200.length}, not completed ${notCompleted}, parse/seq ${parseFailures}); ${CONCURRENT_ROUNDS} rounds each`,
    );
    report(
      'debate: 1 at a time: added event latency p99',
      unloaded99,
      'ms',
      `baseline; p50 ${percentile(
        unloaded.map((l) => l.ms),
        50,
      ).toFixed(3)} ms over ${unloaded.length} events; slowest 5%: ${slowest(unloaded, 0.05)}`,
    );
    report(
      `debate: ${CONCURRENT} streams: added event latency p50`,
      percentile(ms, 50),
      'ms',
      `${loaded.length} of ${events} events received matched to their emission`,
    );
    report(
      `debate: ${CONCURRENT} streams: added event latency p99`,
      p99,
      'ms',
      `${(p99 / unloaded99).toFixed(1)}x baseline; goal < 50 ms: ${goal(p99 < 50)}; max ${Math.max(...ms).toFixed(1)} ms; slowest 1%: ${slowest(loaded, 0.01)}`,
    );
    const ends = loaded.filter((l) => l.type === 'session.ended').map((l) => l.ms);
    const others = loaded.filter((l) => l.type !== 'session.ended').map((l) => l.ms);
    report(
      `debate: (info) ${CONCURRENT} streams: session.ended p50`,
      percentile(ends, 50),
      'ms',
      `p99 ${percentile(ends, 99).toFixed(1)} ms (shown once its run is committed); every other event p99 ${percentile(others, 99).toFixed(1)} ms`,
    );
    report(
      `debate: ${CONCURRENT} streams: server peak RSS`,
      mb(server.peakRss),
      'MB',
      `goal < 512 MB: ${goal(server.peakRss < 512 * 2 ** 20)}; at start ${mb(startRss).toFixed(0)} MB, idle after warm-up ${mb(idleRss).toFixed(0)} MB (baseline); ` +
        `kernel high-water mark ${mb(server.maxRss).toFixed(0)} MB; heap at peak ${mb(server.heapAtPeak.heapUsed).toFixed(0)} used / ` +
        `${mb(server.heapAtPeak.heapTotal).toFixed(0)} MB, external ${mb(server.heapAtPeak.external).toFixed(0)} MB`,
    );
    record({ id: 'errors', label: `${CONCURRENT} streams: errors`, value: errors, unit: '', goal: { op: '=', value: 0 } });
    record({
      id: 'latency-p99',
      label: `${CONCURRENT} streams: added event latency p99`,
      value: round(p99, 1),
      unit: 'ms',
      goal: { op: '<', value: 50 },
    });
    record({
      id: 'peak-rss',
      label: `${CONCURRENT} streams: server peak RSS`,
      value: Math.round(mb(server.peakRss)),
      unit: 'MB',
      goal: { op: '<', value: 512 },
    });
    report(
      `debate: (info) ${CONCURRENT} streams: debate duration p50`,
      median(results.map((r) => r.ms)),
      'ms',
      `ideal ${ideal} ms (1 at a time: ${median(alone.map((r) => r.ms)).toFixed(0)} ms); all ${CONCURRENT} done in ${loadMs.toFixed(0)} ms; ` +
        `${Math.round(events / (loadMs / 1000)).toLocaleString('en-US')} events/s`,
    );
    report(
      `debate: (info) ${CONCURRENT} streams: server CPU`,
      (100 * server.cpuMs) / server.wallMs,
      '%',
      `of one core (child process; clients here used ${((clientUsed.user + clientUsed.system) / 10 / loadMs).toFixed(0)}%); ` +
        `${cpuPerDebate.toFixed(0)} ms CPU per debate; event loop held up to ${server.maxGapMs.toFixed(0)} ms (${server.samples} RSS samples)`,
    );
    report(
      'debate: (info) debates one server core sustains',
      ideal / cpuPerDebate,
      '',
      `at this pace: ideal ${ideal} ms / ${cpuPerDebate.toFixed(0)} ms CPU each; clocks aligned to ${(bestRtt / 2).toFixed(3)} ms (offset ${offset.toFixed(3)} ms)`,
    );
  } finally {
    if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}

export async function benchDebate(): Promise<void> {
  await criticalPath();
  await firstToken();
  await concurrency();
}

if (process.env[CHILD_ENV] === 'debate-server' && process.send) await serveDebates();
