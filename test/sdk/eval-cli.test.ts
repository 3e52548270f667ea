/**
 * `consilium eval` end to end: the real bin as a process against the real server on loopback, on scripted models;
 * piped, interrupted with Ctrl-C (SIGINT) mid-session and resumed without asking again what it had, and under a
 * pseudo-terminal (util-linux `script`), where its progress line is redrawn in place.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../support/lazy.js';
import { type ScriptedModels, scriptedPanel, startScriptedModels, sumQuestions } from '../support/scripted-models.js';
import { type RunningServer, startServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'sdk/src/cli/bin.ts');
/** tsx's loader by path: the bin runs in the output's folder, where `--import tsx` would not resolve. */
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs');
const QUESTIONS = sumQuestions(8, 9);

let models: ScriptedModels;
let server: RunningServer;
let dir: string;
/** Calls for these questions wait until `release()`. */
const held = new Set<string>();
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));
/** Resolved when a held call arrives: the run is then mid-session. */
let holding!: () => void;
const heldOne = new Promise<void>((resolve) => (holding = resolve));

beforeFirstTest(async () => {
  models = await startScriptedModels({
    seed: 9,
    hold: (call) => {
      if (!held.has(call.question)) return undefined;
      holding();
      return released;
    },
  });
  server = await startServer(
    scriptedPanel(models.baseUrl, ['accurate-0.8', 'conformist-0.5', 'stubborn-0.6', 'qwen2.5:7b', 'qwen2.5:14b']),
  );
  dir = mkdtempSync(join(tmpdir(), 'consilium-eval-'));
  writeFileSync(join(dir, 'sums.jsonl'), `${QUESTIONS.map((q) => JSON.stringify({ ...q, grader: 'number' })).join('\n')}\n`);
});
afterAll(async () => {
  release();
  await server?.close();
  await models?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => ({
  PATH: process.env.PATH,
  HOME: dir,
  CONSILIUM_CONFIG: join(dir, 'config.json'),
  CONSILIUM_URL: server.baseUrl,
  CONSILIUM_TOKEN: server.token,
});

function start(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', TSX, BIN, ...args], {
    cwd: dir,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/** Resolves once `check` holds, looking each time the file changes or 20 ms pass; fails after 60 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const records = (out: string) => {
  const file = join(dir, out, 'state.jsonl');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"record"')).length
    : 0;
};
const callsFor = (question: string) => models.calls.filter((c) => c.question === question).length;

describe('consilium eval', () => {
  it('is interrupted by Ctrl-C mid-session, keeping what ended, and goes on where it stopped without asking again', async () => {
    const args = ['eval', 'sums.jsonl', '--strategies', 'solo,vote,debate', '--concurrency', '1', '--out', 'piped'];
    // The third question's calls wait: two sessions end, the third is under way when Ctrl-C comes.
    held.add(QUESTIONS[2]!.question);
    const first = start(args);
    await until(() => records('piped') === 2, 'two sessions kept');
    await heldOne;
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/eval sums-\S+: 8 sessions for 8 questions; state in piped\/state\.jsonl/);
    expect(stopped.stderr).toContain(
      'consilium: eval interrupted: 2 of 8 sessions kept in piped/state.jsonl; run the same command again to go on',
    );
    // Piped, one line per session that ended, none redrawn.
    expect(stopped.stderr).toMatch(new RegExp(`eval: 1/8 · ${QUESTIONS[0]!.id} debate completed\\n`));
    expect(stopped.stderr).not.toContain('\r');
    expect(records('piped')).toBe(2);
    // The stopped session is cancelled on the server, not left running (its end is recorded as the request closes).
    let cancelled: string[] = [];
    for (let i = 0; i < 500 && cancelled.length === 0; i++) {
      const page = await server.sessions.store.list({ limit: 100, tag: 'eval', status: 'cancelled' });
      cancelled = page.items.map((s) => s.question);
      if (cancelled.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(cancelled).toEqual([QUESTIONS[2]!.question]);

    held.clear();
    release();
    const asked = QUESTIONS.slice(0, 2).map((q) => callsFor(q.question));
    expect(asked.every((n) => n === 16)).toBe(true);
    const second = await start(args).done;
    expect(second.stderr).toContain('2 kept from before');
    expect(second.code).toBe(0);
    // Nothing it had was asked again; the rest was.
    expect(QUESTIONS.slice(0, 2).map((q) => callsFor(q.question))).toEqual(asked);
    for (const q of QUESTIONS.slice(2)) expect(callsFor(q.question), q.id).toBeGreaterThanOrEqual(16);
    expect(records('piped')).toBe(8);
    expect(second.stdout).toMatch(/^# Evaluation sums-/);
    expect(second.stdout).toContain('| round-1 vote |');
    expect(second.stdout).toMatch(/\| slot 1 alone \(scripted-1 accurate-0\.8\) \| [\d.]+ % \| [\d.]+ %–[\d.]+ % \| \d\/8 \|/);
    expect(readFileSync(join(dir, 'piped/report.md'), 'utf8')).toBe(second.stdout);
    const html = readFileSync(join(dir, 'piped/report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(second.stderr).toContain('eval: wrote piped/report.md and piped/report.html');
  });

  it('refuses to resume a run made with other settings or a set it cannot read, and starts over with --fresh', async () => {
    const other = await start(['eval', 'sums.jsonl', '--strategies', 'vote', '--out', 'piped']).done;
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('piped/state.jsonl holds a run with other settings or questions; give --fresh to start over');
    const bad = await start(['eval', 'missing.jsonl']).done;
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toMatch(/cannot read missing\.jsonl/);
    writeFileSync(join(dir, 'broken.jsonl'), '{"question": "Q?"}\n');
    expect((await start(['eval', 'broken.jsonl']).done).stderr).toContain(
      'broken.jsonl: line 1: "reference" must be a non-empty string',
    );
    const fresh = await start(['eval', 'sums.jsonl', '--strategies', 'vote', '--out', 'piped', '--fresh', '--json']).done;
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).not.toContain('kept from before');
    const summary = JSON.parse(fresh.stdout) as { strategies: { strategy: string; n: number }[] };
    expect(summary.strategies.map((x) => [x.strategy, x.n])).toEqual([['vote', 8]]);
    expect(records('piped')).toBe(8);
  });

  it('redraws its progress in place under a terminal', async () => {
    writeFileSync(
      join(dir, 'three.jsonl'),
      `${QUESTIONS.slice(0, 3)
        .map((q) => JSON.stringify(q))
        .join('\n')}\n`,
    );
    const output = await new Promise<string>((resolve, reject) => {
      const command = `${process.execPath} --import ${TSX} ${BIN} eval three.jsonl --strategies vote,adaptive --out tty`;
      execFile(
        'script',
        ['-qec', command, '/dev/null'],
        { cwd: dir, env: { ...env(), TERM: 'xterm-256color' } },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(output).toContain('\r\u001b[2Keval: 1/6 · ');
    expect(output).toContain('\r\u001b[2Keval: 6/6 · ');
    expect(output).toContain('| adaptive |');
    expect(existsSync(join(dir, 'tty/report.html'))).toBe(true);
  });
});

describe('consilium debate: the integrity report and the estimate', () => {
  it('prints the report after the verdict, and in sessions show', async () => {
    const run = await start(['debate', 'What is 20 + 22?', '--rounds', '2']).done;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nIntegrity\n(The verdict (agrees with|differs from) the round-1 vote|Round 1 has no majority)/);
    // The accurate model never moves: its round-1 answer, as its script gives it, both times.
    const first = models.firstAnswer('accurate-0.8', 'What is 20 + 22?');
    expect(run.stdout).toContain(`  1 scripted-1: “${first}” → “${first}” held`);
    expect(run.stdout).toContain('⚑ same family Slots 4 and 5 are the same model family (qwen)');
    const id = /session (ses_\w+)/.exec(run.stdout)![1]!;
    const show = await start(['sessions', 'show', id]).done;
    expect(show.stdout).toContain('Integrity');
    expect(show.stdout).toContain('⚑ same family');
  });

  it('estimates without running, and warns before a run its budget may not cover', async () => {
    const before = models.calls.length;
    const estimate = await start(['debate', 'What is 1 + 1?', '--estimate', '--strategy', 'adaptive']).done;
    expect(estimate.code).toBe(0);
    expect(estimate.stdout).toMatch(/^Estimate \(deep\)\n/);
    expect(estimate.stdout).toMatch(/ {2}1 scripted-1 accurate-0\.8: \d+–\d+ calls · in /);
    expect(estimate.stdout).toContain('Low is round 1 alone');
    expect(models.calls.length).toBe(before);
    const over = await start(['debate', 'What is 2 + 2?', '--rounds', '2', '--max-cost', '0.000001']).done;
    expect(over.stderr).toMatch(
      /^consilium: The estimate exceeds the budget \(\$[\d.]+–\$[\d.]+ against a budget of \$0\.0000\)/,
    );
    expect(over.stdout).toContain('budget_exceeded');
    const usage = await start(['debate', 'Q?', '--agreement', '0.8']).done;
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toContain('--agreement is for --strategy adaptive');
  });
});
