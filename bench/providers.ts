/**
 * Speed with real HTTP providers: the bundle `npm start` runs (a child process) calls `provider-sim.ts` (another
 * process, fixed latencies) through its normal slot configuration, and this process streams 3-round debates:
 * one at a time, then 50 at once (repeated). Overhead = client wall time − the debate's critical path, taken
 * from the simulator's own log; server CPU per debate from /proc, beside the I/O floor (`relay.ts`) in the
 * same run. Settings (`BENCH_*`): bench/README.md.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from '../server/build.js';
import { readSse } from '../test/support/sse.js';
import { record, round } from './figures.js';
import type { SimCall } from './provider-sim.js';
import { percentile, report } from './stats.js';

const ROUNDS = 3;
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

const nowMs = () => performance.timeOrigin + performance.now();
export const ADMIN_PASSWORD = 'bench-admin-password';
/** `Authorization` for every debate, once `signIn` ran. */
let auth: Record<string, string> = {};

/** Signs in as the first admin (cookie), then makes an API token; the `Authorization` header that sends it. */
export async function signIn(url: string): Promise<Record<string, string>> {
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in failed: HTTP ${login.status} ${await login.text()}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const created = await fetch(`${url}/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, cookie },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`token failed: HTTP ${created.status} ${await created.text()}`);
  return { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
}

interface Sim {
  child: ChildProcess;
  port: number;
  ask<T>(type: string): Promise<T>;
}

async function startSim(): Promise<Sim> {
  const child = fork(fileURLToPath(new URL('./provider-sim.ts', import.meta.url)), ['child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  const ask = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
      child.send({ type });
    });
  return { child, port, ask };
}

export interface ServerUnderTest {
  child: ChildProcess;
  url: string;
  /** User + system CPU ms of the server process so far. */
  cpuMs(): number;
  /** The same by thread kind: `main` (JavaScript, and `main (kernel)` its system time), `libuv` (the pool: SQLite, DNS, zlib), `v8` (GC, compilers), other. */
  threadCpuMs(): Record<string, number>;
  /** Log lines it wrote (it logs every request at info, as it does by default). */
  lines: () => number;
  /** When it was spawned (ms since the epoch): a CPU profile's clock starts about then. */
  spawnedAt: number;
  stop(): Promise<void>;
}

/** The bundle `npm start` runs, configured to call the simulator for all five slots. */
async function startServerUnderTest(bundle: string, simPort: number, nodeArgs: string[]): Promise<ServerUnderTest> {
  const sim = `http://127.0.0.1:${simPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'consilium-bench-providers-'));
  const env = {
    ...process.env,
    PORT: '0',
    CONSILIUM_DATA_DIR: dataDir,
    // `BENCH_DATABASE=/dev/shm/bench.db` (tmpfs) takes the disk out of the figures, to tell storage waits from the rest.
    CONSILIUM_DATABASE: process.env.BENCH_DATABASE ?? '',
    CONSILIUM_LOG_LEVEL: 'info',
    // First run creates the admin with this password; the bench signs in and makes an API token.
    CONSILIUM_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // One owner runs 50 debates at once: more than the per-owner limits let a person start.
    CONSILIUM_RATE_LIMITS: 'off',
    // Slot 1: Anthropic's own SDK, Messages SSE.
    ANTHROPIC_API_KEY: 'sk-ant-sim',
    CONSILIUM_SLOT1_BASE_URL: `${sim}/anthropic/v1`,
    // Slots 2, 3, 5: OpenAI's, DeepSeek's and xAI's own SDKs, Chat Completions SSE.
    OPENAI_API_KEY: 'sk-sim',
    CONSILIUM_SLOT2_BASE_URL: `${sim}/openai/v1`,
    CONSILIUM_SLOT2_MODEL: 'sim-openai',
    DEEPSEEK_API_KEY: 'sk-sim',
    CONSILIUM_SLOT3_BASE_URL: `${sim}/deepseek`,
    CONSILIUM_SLOT3_MODEL: 'sim-deepseek',
    // Slot 4: Google's own SDK, Gemini streamGenerateContent SSE; `BENCH_SLOT4=compatible` makes it an
    // OpenAI-compatible server instead.
    ...(process.env.BENCH_SLOT4 === 'compatible'
      ? { CONSILIUM_SLOT4_PROVIDER: 'sim-gemini', CONSILIUM_SLOT4_BASE_URL: `${sim}/compatible/v1` }
      : { GOOGLE_GENERATIVE_AI_API_KEY: 'g-sim', CONSILIUM_SLOT4_BASE_URL: `${sim}/google/v1beta` }),
    CONSILIUM_SLOT4_MODEL: 'sim-gemini',
    XAI_API_KEY: 'xai-sim',
    CONSILIUM_SLOT5_BASE_URL: `${sim}/xai/v1`,
    CONSILIUM_SLOT5_MODEL: 'sim-grok',
  };
  return spawnMeasured([...nodeArgs, bundle], env, () => rmSync(dataDir, { recursive: true, force: true }));
}

/** A child process that prints `{"msg":"listening","url":…}` when it serves, with its CPU readable from /proc. */
export async function spawnMeasured(args: string[], env: NodeJS.ProcessEnv, cleanup: () => void): Promise<ServerUnderTest> {
  const spawnedAt = nowMs();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let lines = 0;
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) lines++;
      if (out !== undefined) {
        out += chunk;
        const m = /"msg":"listening","url":"([^"]+)"/.exec(out);
        if (m) {
          resolve(m[1]!);
          out = '';
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  const ticksOf = (stat: string) => {
    const fields = stat.split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  };
  const cpuMs = () => ticksOf(readFileSync(`/proc/${child.pid}/stat`, 'utf8'));
  // Node 20 names none of its threads (all are `node`; libuv names its pool `libuv-worker` from
  // Node 22 on), so they are told apart by the order they were made in: V8's platform (GC and
  // compiler workers) and Node's own threads start with the process, libuv's pool (SQLite's
  // statements, fs, crypto; `UV_THREADPOOL_SIZE`, 4 by default) all at once on its first use,
  // after them: the newest threads are the pool.
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const threadCpuMs = () => {
    const byKind: Record<string, number> = {};
    const tids = readdirSync(`/proc/${child.pid}/task`).sort((a, b) => Number(a) - Number(b));
    const pool = new Set(tids.filter((t) => t !== String(child.pid)).slice(-poolSize));
    for (const tid of tids) {
      try {
        const comm = readFileSync(`/proc/${child.pid}/task/${tid}/comm`, 'utf8').trim();
        const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
        const kind =
          tid === String(child.pid)
            ? 'main'
            : comm.startsWith('libuv') || (comm === 'node' && pool.has(tid))
              ? 'libuv'
              : /^V8|^node$/.test(comm)
                ? 'v8'
                : 'other';
        byKind[kind] = (byKind[kind] ?? 0) + ticksOf(stat);
        // The main thread's kernel share: syscalls (socket reads and writes, epoll), not JavaScript.
        if (kind === 'main') byKind['main (kernel)'] = Number(stat.split(') ')[1]!.split(' ')[12]) * CLOCK_TICK_MS;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return byKind;
  };
  return {
    child,
    url,
    cpuMs,
    threadCpuMs,
    lines: () => lines,
    spawnedAt,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      cleanup();
    },
  };
}

/** The I/O floor (`relay.ts`): the same calls and chunks relayed, nothing else; the baseline for the server's CPU. */
function startRelay(simPort: number): Promise<ServerUnderTest> {
  const relay = fileURLToPath(new URL('./relay.ts', import.meta.url));
  return spawnMeasured(['--import', 'tsx', relay, String(simPort)], process.env, () => {});
}

interface DebateRun {
  tag: string;
  start: number;
  end: number;
  ok: boolean;
  why?: string;
}

/** One streamed 3-round debate; resolves when `session.ended` is read. */
async function debate(url: string, n: number): Promise<DebateRun> {
  const tag = `#bench-${n}`;
  const start = nowMs();
  try {
    const res = await fetch(`${url}/consilium/deep/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...auth },
      body: JSON.stringify({ question: `Should we ship the smaller change first? ${tag}`, rounds: ROUNDS }),
    });
    if (res.status !== 200) return { tag, start, end: nowMs(), ok: false, why: `HTTP ${res.status}: ${await res.text()}` };
    let failed: string | undefined;
    for await (const message of readSse(res)) {
      const event = JSON.parse(message.data) as { type: string; status?: string; error?: { code: string; message: string } };
      if (event.type === 'answer.failed') failed ??= `answer.failed ${event.error?.code}: ${event.error?.message}`;
      if (event.type === 'verdict' && process.env.BENCH_DEBUG) console.log(message.data.slice(0, 1500));
      if (event.type === 'session.ended') {
        const end = nowMs();
        const ok = event.status === 'completed' && failed === undefined;
        return { tag, start, end, ok, ...(!ok && { why: failed ?? `ended ${event.status}: ${message.data.slice(0, 400)}` }) };
      }
    }
    return { tag, start, end: nowMs(), ok: false, why: 'stream ended without session.ended' };
  } catch (error) {
    return { tag, start, end: nowMs(), ok: false, why: String(error) };
  }
}

interface Measured {
  overhead: number;
  /** POST sent → the debate's first upstream call arrived at the simulator. */
  toFirstCall: number;
  /** The debate's last upstream call ended → `session.ended` read. */
  tail: number;
  critical: number;
  waves: number;
}

/** Each debate's critical path from the simulator's log, and the client's overhead over it. */
function measure(runs: DebateRun[], calls: SimCall[]): Measured[] {
  const byTag = new Map<string, SimCall[]>();
  for (const c of calls) if (c.tag) byTag.set(c.tag, [...(byTag.get(c.tag) ?? []), c]);
  return runs
    .filter((r) => r.ok)
    .map((r) => {
      const own = (byTag.get(r.tag) ?? []).sort((a, b) => a.start - b.start);
      let critical = 0;
      let waves = 0;
      let waveEnd = Number.NEGATIVE_INFINITY;
      let longest = 0;
      for (const c of own) {
        if (c.start >= waveEnd) {
          critical += longest;
          longest = 0;
          waves++;
        }
        longest = Math.max(longest, c.end - c.start);
        waveEnd = Math.max(waveEnd, c.end);
      }
      critical += longest;
      const lastEnd = Math.max(...own.map((c) => c.end));
      return {
        overhead: r.end - r.start - critical,
        toFirstCall: (own[0]?.start ?? r.start) - r.start,
        tail: r.end - lastEnd,
        critical,
        waves,
      };
    });
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/**
 * (3): `relay.ts` serves the same debates (50 at once, as often as (2)): its CPU per debate is the least any
 * Node server spends on those calls and chunks, and the server's figure is printed as a ratio to it.
 */
async function floor(sim: Sim, concurrency: number, repeat: number, serverCpus: readonly number[]): Promise<void> {
  const relay = await startRelay(sim.port);
  try {
    await Promise.all([debate(relay.url, -100), debate(relay.url, -101)]);
    await sim.ask('log');
    const cpus: number[] = [];
    for (let r = 0; r < repeat; r++) {
      const base = 10_000 * (r + 1);
      const before = relay.cpuMs();
      const runs = await Promise.all(Array.from({ length: concurrency }, (_, i) => debate(relay.url, base + i)));
      cpus.push((relay.cpuMs() - before) / concurrency);
      const o = measure(runs, (await sim.ask<{ calls: SimCall[] }>('log')).calls).map((m) => m.overhead);
      const errors = runs.filter((x) => !x.ok).length;
      report(
        `floor (relay.ts), ${concurrency} at once, run ${r + 1}: CPU per debate`,
        cpus[r]!,
        'ms',
        `overhead p50 ${ms(percentile(o, 50))}, p99 ${ms(percentile(o, 99))}; errors ${errors}`,
      );
    }
    const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    report(
      `server CPU per debate / floor, ${concurrency} at once (means)`,
      mean(serverCpus) / mean(cpus),
      'x',
      `server ${ms(mean(serverCpus))} − floor ${ms(mean(cpus))} = ${ms(mean(serverCpus) - mean(cpus))} of Consilium's own work per debate`,
    );
    record({
      id: 'floor-cpu',
      label: `the I/O floor (\`relay.ts\`): CPU per debate, ${concurrency} at once, mean`,
      value: round(mean(cpus), 1),
      unit: 'ms',
    });
    record({
      id: 'cpu-over-floor',
      label: 'server CPU per debate / the I/O floor',
      value: round(mean(serverCpus) / mean(cpus), 2),
      unit: '×',
    });
  } finally {
    await relay.stop();
  }
}

export async function benchProviders(): Promise<void> {
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
  const repeat = Number(process.env.BENCH_REPEAT ?? 3);
  const profDir = process.env.BENCH_CPU_PROF;
  console.log(
    `providers: the bundle \`npm start\` runs, five live slots against a simulator process (Anthropic, Chat Completions and Gemini SSE, ` +
      `200 ms to first token, 600–1500 ms per call); ${ROUNDS}-round streamed debates. Shared machine: timings are noisy, CPU less so.`,
  );
  // `BENCH_BUNDLE=<path>` runs a prebuilt bundle instead (an A/B of two builds on the same machine state).
  const bundle = process.env.BENCH_BUNDLE ?? (await bundleServer());
  const sim = await startSim();
  // A server that cannot start must not leave the simulator (and so this process) running.
  // `BENCH_NODE_ARGS` passes runtime flags to the server (an A/B of V8 or Node options).
  const nodeArgs = [
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
  ];
  const server = await startServerUnderTest(bundle, sim.port, nodeArgs).catch((error: unknown) => {
    sim.child.send({ type: 'exit' });
    throw error;
  });
  try {
    auth = await signIn(server.url);
    // Warm-up: provider packages load on their slot's first call.
    // `BENCH_WARMUP` more (in batches of 10) lets the JIT settle before (1): the first debates of a process run colder code.
    const warmup = Number(process.env.BENCH_WARMUP ?? 2);
    for (let i = 0; i < warmup; i += 10)
      await Promise.all(Array.from({ length: Math.min(10, warmup - i) }, (_, j) => debate(server.url, -1 - i - j)));
    await sim.ask('log');

    // (1) One at a time.
    const single: DebateRun[] = [];
    const singleCpus: number[] = [];
    const singleThreads: Record<string, number> = {};
    for (let i = 0; i < Number(process.env.BENCH_SINGLE ?? 5); i++) {
      const cpu0 = server.cpuMs();
      const threads0 = server.threadCpuMs();
      single.push(await debate(server.url, i));
      singleCpus.push(server.cpuMs() - cpu0);
      const threads1 = server.threadCpuMs();
      for (const [kind, ms] of Object.entries(threads1))
        singleThreads[kind] = (singleThreads[kind] ?? 0) + ms - (threads0[kind] ?? 0);
    }
    const singleCpu = percentile(singleCpus, 50);
    if (process.env.BENCH_DEBUG) console.log('CPU per single debate:', singleCpus.join(' '));
    const singleMeasured = measure(single, (await sim.ask<{ calls: SimCall[] }>('log')).calls);
    const singleErrors = single.filter((r) => !r.ok);
    const overheads = singleMeasured.map((m) => m.overhead);
    const critical = percentile(
      singleMeasured.map((m) => m.critical),
      50,
    );
    report(
      '1 debate: overhead over critical path, p50',
      percentile(overheads, 50),
      'ms',
      `goal ≤ 40 ms; critical path ${ms(critical)}, ratio ${((critical + percentile(overheads, 50)) / critical).toFixed(3)}; waves ${singleMeasured[0]?.waves}`,
    );
    report(
      '1 debate: POST → first upstream call, p50',
      percentile(
        singleMeasured.map((m) => m.toFirstCall),
        50,
      ),
      'ms',
      `last upstream call → session.ended p50 ${ms(
        percentile(
          singleMeasured.map((m) => m.tail),
          50,
        ),
      )}`,
    );
    record({
      id: 'single-overhead',
      label: '1 debate: overhead over the critical path, p50',
      value: round(percentile(overheads, 50), 1),
      unit: 'ms',
      goal: { op: '≤', value: 40 },
    });
    report('1 debate: server CPU per debate, p50', singleCpu, 'ms', `(${CLOCK_TICK_MS} ms ticks); errors ${singleErrors.length}`);
    console.log(
      `  server CPU per debate by thread (ms, mean): ${Object.entries(singleThreads)
        .map(([kind, ms]) => `${kind} ${(ms / single.length).toFixed(1)}`)
        .join(', ')}`,
    );
    for (const e of singleErrors.slice(0, 3)) console.log(`  error: ${e.why}`);

    // (2) Concurrent, repeated.
    const serverCpus: number[] = [];
    const worst = { p50: 0, p99: 0, errors: 0 };
    for (let r = 0; r < repeat; r++) {
      const base = 1000 * (r + 1);
      const label = `${concurrency} at once, run ${r + 1}`;
      const before = server.cpuMs();
      const threadsBefore = server.threadCpuMs();
      const simBefore = (await sim.ask<{ cpu: NodeJS.CpuUsage }>('cpu')).cpu;
      const lines0 = server.lines();
      const started = nowMs();
      // Where this run lies in the profile, to summarize just its start (`cpu-profile.ts <file> 25 <from> <to>`).
      if (profDir) console.log(`  ${label} starts ${(started - server.spawnedAt).toFixed(0)} ms after the server was spawned`);
      const runs = await Promise.all(Array.from({ length: concurrency }, (_, i) => debate(server.url, base + i)));
      const took = nowMs() - started;
      const cpu = server.cpuMs() - before;
      const simAfter = (await sim.ask<{ cpu: NodeJS.CpuUsage }>('cpu')).cpu;
      const measured = measure(runs, (await sim.ask<{ calls: SimCall[] }>('log')).calls);
      const errors = runs.filter((x) => !x.ok);
      const o = measured.map((m) => m.overhead);
      const first = measured.map((m) => m.toFirstCall);
      worst.p50 = Math.max(worst.p50, percentile(o, 50));
      worst.p99 = Math.max(worst.p99, percentile(o, 99));
      worst.errors += errors.length;
      report(
        `${label}: overhead p50`,
        percentile(o, 50),
        'ms',
        `goal ≤ 100 ms; p99 ${ms(percentile(o, 99))} (goal ≤ 300 ms); max ${ms(Math.max(...o))}`,
      );
      report(
        `${label}: errors`,
        errors.length,
        '',
        `goal 0; wall ${ms(took)}; critical path p50 ${ms(
          percentile(
            measured.map((m) => m.critical),
            50,
          ),
        )}`,
      );
      report(`${label}: POST → first upstream call p50`, percentile(first, 50), 'ms', `p99 ${ms(percentile(first, 99))}`);
      const tails = measured.map((m) => m.tail);
      report(`${label}: last upstream call → session.ended p50`, percentile(tails, 50), 'ms', `p99 ${ms(percentile(tails, 99))}`);
      serverCpus.push(cpu / concurrency);
      report(
        `${label}: server CPU per debate`,
        cpu / concurrency,
        'ms',
        `goal ≤ 25 ms; simulator ${ms((simAfter.user + simAfter.system - simBefore.user - simBefore.system) / 1000 / concurrency)}/debate; ${((server.lines() - lines0) / concurrency).toFixed(1)} log lines/debate`,
      );
      const threadsAfter = server.threadCpuMs();
      const threads = Object.entries(threadsAfter)
        .map(([kind, ms]) => `${kind} ${((ms - (threadsBefore[kind] ?? 0)) / concurrency).toFixed(1)}`)
        .join(', ');
      console.log(`  server CPU per debate by thread (ms): ${threads}`);
      for (const e of errors.slice(0, 3)) console.log(`  error: ${e.why}`);
    }

    const batches = `${concurrency} at once, worst of ${repeat} batches`;
    record({
      id: 'overhead-p50',
      label: `${batches}: overhead p50`,
      value: round(worst.p50, 1),
      unit: 'ms',
      goal: { op: '≤', value: 100 },
    });
    record({
      id: 'overhead-p99',
      label: `${batches}: overhead p99`,
      value: round(worst.p99, 1),
      unit: 'ms',
      goal: { op: '≤', value: 300 },
    });
    record({
      id: 'errors',
      label: `${concurrency} at once, ${repeat} batches: errors`,
      value: worst.errors,
      unit: '',
      goal: { op: '=', value: 0 },
    });
    const cpuMean = serverCpus.reduce((a, b) => a + b, 0) / serverCpus.length;
    record({
      id: 'cpu',
      label: `server CPU per debate, ${concurrency} at once, mean`,
      value: round(cpuMean, 1),
      unit: 'ms',
      goal: { op: '≤', value: 25 },
    });
    // (3) The I/O floor, as (2), on the same simulator: what relaying the same calls' chunks costs.
    await floor(sim, concurrency, repeat, serverCpus);
  } finally {
    await server.stop();
    sim.child.send({ type: 'exit' });
    if (profDir) console.log(`server CPU profile written to ${profDir}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProviders();
