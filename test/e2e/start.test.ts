import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/src/contract.js';
import { listOperations } from '../../generator/src/routes.js';
import {
  captured,
  envWith,
  npmStart,
  ROOT,
  type Run,
  running,
  runs,
  type SignedIn,
  signIn,
  stop,
  WAIT_MS,
  waitForExit,
  waitForStdout,
} from '../support/process.js';

/** `npm start` exactly as a user runs it: the real package script, from the repository root, in its own process group. */

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const BANNER = /Consilium (\S+) is serving (http:\/\/127\.0\.0\.1:(\d+))\n/;
const SECRET = 'sk-ant-e2e-secret-do-not-print';
const FIRST_RUN = /First run: created the account "admin"\.\n {2}username: admin\n {2}password: (\S+)\n/;

let dataDir: string;

/** Every line of stdout that is a JSON object: the log. */
const logRecords = (run: Run) =>
  run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'consilium-e2e-'));
});

afterAll(async () => {
  await Promise.all(runs.map(stop));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  let run: Run;
  let startedAt = 0;
  let baseUrl: string;
  let admin: SignedIn;
  let password: string;
  const requestIds: string[] = [];

  const get = async (path: string) => {
    const res = await admin.fetch(path);
    requestIds.push(res.headers.get('x-request-id') ?? '');
    return res;
  };

  beforeAll(async () => {
    startedAt = Date.now();
    run = npmStart(envWith(dataDir, { PORT: '0', ANTHROPIC_API_KEY: SECRET }));
    const [, bannerVersion, url, port] = await waitForStdout(run, BANNER);
    expect(bannerVersion).toBe(version);
    expect(Number(port)).toBeGreaterThan(0);
    baseUrl = url!;
    password = FIRST_RUN.exec(run.stdout)?.[1] ?? '';
    // The first-run credentials work: a cookie sign-in, and an API token made with it.
    admin = await signIn(baseUrl, 'admin', password);
  });

  it("prints the first admin's one-time password once, when its port is bound, before the banner", () => {
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(run.stdout.indexOf('First run')).toBeLessThan(run.stdout.search(BANNER));
    expect(run.stdout.split(password)).toHaveLength(2);
  });

  afterAll(() => (run ? stop(run) : undefined));

  it('prints the banner with the web UI, docs, health, providers and contract URLs, and the accounts command', () => {
    for (const path of ['/', '/docs/', '/health', '/providers', '/openapi.json'])
      expect(run.stdout).toContain(`${baseUrl}${path}\n`);
    // How to manage accounts, a lost admin password included, on every start (the password is shown only on the first).
    expect(run.stdout).toContain('npm run users -- list | add NAME | reset-password NAME');
  });

  it('says in the banner which slots are offline and how to make each live', () => {
    expect(run.stdout).toContain('Slots 2, 3, 4, 5 are OFFLINE');
    expect(run.stdout).toContain('slot 2 (openai): OPENAI_API_KEY=...');
    expect(run.stdout).not.toContain('ANTHROPIC_API_KEY=');
    expect(run.stdout).toMatch(/CONSILIUM_SLOT2_BASE_URL=http:\/\/127\.0\.0\.1:11434\/v1/);
  });

  it('serves /health', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string; uptimeSeconds: number };
    expect(body).toEqual({ status: 'ok', version, uptimeSeconds: expect.any(Number) });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
    // No longer than since `npm start` was run (whole seconds, rounded either way).
    expect(body.uptimeSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - startedAt) / 1000) + 1);
  });

  it('serves /providers: the keyed slot live, the rest offline, no key anywhere', async () => {
    const res = await get('/providers');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('ANTHROPIC_API_KEY');
    const body = JSON.parse(text) as {
      synthesizerSlot: number;
      quorum: number;
      slots: { slot: number; provider: string; status: string }[];
    };
    expect(body).toMatchObject({ synthesizerSlot: 1, quorum: 3 });
    expect(body.slots.map((s) => [s.slot, s.provider, s.status])).toEqual([
      [1, 'anthropic', 'live'],
      [2, 'openai', 'offline'],
      [3, 'deepseek', 'offline'],
      [4, 'google', 'offline'],
      [5, 'xai', 'offline'],
    ]);
  });

  it('serves /openapi.json: the contract, every operation', async () => {
    const res = await get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(version);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/health', '/providers', '/consilium', '/consilium/deep', '/synthesize', '/sessions/{sessionId}']),
    );
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as { operationId: string }).operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(['getHealth', 'listProviders', 'runDeepDebate', 'streamSessionEvents']));
    expect(operationIds.sort()).toEqual(
      listOperations(loadContract())
        .map((op) => op.operationId)
        .sort(),
    );
  });

  it('streams a debate from the offline models as it happens', async () => {
    const cancel = new AbortController();
    const res = await admin.fetch('/consilium/deep/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Is this running?', rounds: 2 }),
      signal: cancel.signal,
    });
    requestIds.push(res.headers.get('x-request-id') ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Read until the first model's first token, then hang up (which cancels the debate).
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: answer.delta')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    cancel.abort();
    expect(text).toMatch(/^event: session\.started\n/);
    const delta = /event: answer\.delta\ndata: (.*)\n/.exec(text)![1]!;
    expect(JSON.parse(delta)).toMatchObject({ type: 'answer.delta', round: 1, delta: expect.any(String) });
  });

  it('keeps the streamed debate in the history, stored in the default SQLite file', async () => {
    let items: { question: string; status: string }[] = [];
    // The hang-up cancels the debate; its end is written as soon as its calls have stopped.
    for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
      const res = await admin.fetch('/sessions?q=is%20this%20running');
      requestIds.push(res.headers.get('x-request-id') ?? '');
      expect(res.status).toBe(200);
      items = ((await res.json()) as { items: typeof items }).items;
      if (items[0]?.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(items).toMatchObject([{ question: 'Is this running?', status: 'cancelled' }]);
    expect(existsSync(join(dataDir, 'consilium.db'))).toBe(true);
  });

  it('knows the signed-in admin, and refuses a request without credentials', async () => {
    const me = await get('/auth/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: 'admin', role: 'admin', disabled: false });
    const res = await fetch(`${baseUrl}/auth/me`);
    requestIds.push(res.headers.get('x-request-id') ?? '');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'unauthorized', instance: '/auth/me' });
  });

  it('logs JSON lines: the start, then one line per request with its requestId', async () => {
    await waitForStdout(run, /"path":"\/auth\/me","status":401/);
    const records = logRecords(run);
    expect(records[0]).toMatchObject({
      level: 'info',
      msg: 'listening',
      url: baseUrl,
      version,
      slots: ['1:anthropic:live', '2:openai:offline', '3:deepseek:offline', '4:google:offline', '5:xai:offline'],
    });
    // The sign-in's two requests first (the test's own, not counted in requestIds).
    const requests = records.filter((r) => r.msg === 'request').slice(2);
    expect(
      records
        .filter((r) => r.msg === 'request')
        .slice(0, 2)
        .map((r) => [r.method, r.path, r.status]),
    ).toEqual([
      ['POST', '/auth/login', 200],
      ['POST', '/auth/tokens', 201],
    ]);
    expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/health', 200],
      ['GET', '/providers', 200],
      ['GET', '/openapi.json', 200],
      ['POST', '/consilium/deep/stream', 200],
      ...requestIds.slice(4, -2).map(() => ['GET', '/sessions', 200]),
      ['GET', '/auth/me', 200],
      ['GET', '/auth/me', 401],
    ]);
    expect(requests.map((r) => r.requestId)).toEqual(requestIds);
    for (const r of records) expect(new Date(r.time as string).toISOString()).toBe(r.time);
  });

  it('never prints the key', () => {
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
  });

  it('stops on SIGTERM', async () => {
    await stop(run);
    expect(running(run)).toBe(false);
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  });
});

describe('stopping npm start', () => {
  /** Whether any process of the run's group (npm, its shell, the server) is alive. */
  const groupAlive = (run: Run) => {
    try {
      process.kill(-run.child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  /** Until every process of the group is gone: the event that proves the stop reached the server. */
  const groupGone = async (run: Run) => {
    const deadline = Date.now() + WAIT_MS;
    while (groupAlive(run)) {
      if (Date.now() > deadline) throw new Error(`npm start's processes still run ${WAIT_MS} ms after the stop${captured(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it.each([
    ["a kill of npm's own PID", (run: Run) => process.kill(run.child.pid!, 'SIGTERM')],
    ['Ctrl-C (SIGINT to the terminal’s process group)', (run: Run) => process.kill(-run.child.pid!, 'SIGINT')],
  ])('%s stops the server', async (_, signal) => {
    const run = npmStart(envWith(dataDir, { PORT: '0' }));
    const [, , url] = await waitForStdout(run, BANNER);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    signal(run);
    await groupGone(run);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});

describe('npm start with a bad setting', () => {
  it.each([
    ['PORT=abc', { PORT: 'abc' }, 'PORT must be an integer from 0 to 65535, got "abc"'],
    ['CONSILIUM_QUORUM=9', { PORT: '0', CONSILIUM_QUORUM: '9' }, 'CONSILIUM_QUORUM must be an integer from 1 to 5, got "9"'],
    [
      'an OpenAI-compatible slot without a base URL',
      { PORT: '0', CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen' },
      'Slot 5 uses provider "ollama-qwen", which needs CONSILIUM_SLOT5_BASE_URL',
    ],
    [
      'a sixth slot',
      { PORT: '0', CONSILIUM_SLOT6_PROVIDER: 'mistral' },
      'CONSILIUM_SLOT6_PROVIDER is set, but there are five slots',
    ],
    [
      'a key variable that holds no key',
      { PORT: '0', CONSILIUM_SLOT3_API_KEY_ENV: 'PATH' },
      'CONSILIUM_SLOT3_API_KEY_ENV names "PATH", which is no key\'s variable',
    ],
    [
      'a price for no configured model',
      { PORT: '0', CONSILIUM_PRICES: '{"openai/gpt-4o": {"inputPerMTok": 2, "outputPerMTok": 8}}' },
      'CONSILIUM_PRICES["openai/gpt-4o"] prices no configured model',
    ],
    [
      'every address a trusted proxy',
      { PORT: '0', CONSILIUM_TRUSTED_PROXIES: '0.0.0.0/0' },
      'CONSILIUM_TRUSTED_PROXIES: "0.0.0.0/0" trusts every address',
    ],
  ])('%s: exits 78 with a configuration error on stderr, serving nothing', async (_, settings, message) => {
    const run = npmStart(envWith(dataDir, settings));
    try {
      const { code } = await waitForExit(run);
      expect(code, captured(run)).not.toBe(0);
      expect(code, captured(run)).toBe(78); // EX_CONFIG, as server/README.md documents
      expect(run.stderr).toContain(`consilium: configuration error: ${message}`);
      // One line, naming the setting.
      expect(run.stderr.split('\n').filter((line) => line.startsWith('consilium:'))).toHaveLength(1);
      expect(run.stdout).not.toMatch(BANNER);
      expect(logRecords(run)).toEqual([]);
    } finally {
      await stop(run);
    }
  });
});
