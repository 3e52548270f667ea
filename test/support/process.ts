/** Running `npm start` as a user does, in its own process group, and stopping it (gently or not). */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const WAIT_MS = 60_000;
const STOP_MS = 10_000;
const KEY_VARS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'DEEPSEEK_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'XAI_API_KEY'];

/** Every process started here, so a test file's `afterAll` can stop whatever is left. */
export const runs: Run[] = [];

/**
 * The inherited environment with every Consilium setting pinned: `main.ts` also loads a developer's `.env`, but a
 * variable already set, even to '', wins over it, so a local `.env` cannot change what these tests see.
 */
export function envWith(dataDir: string, settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '',
    PORT: '',
    CONSILIUM_QUORUM: '',
    CONSILIUM_LOG_LEVEL: 'info',
    CONSILIUM_DATABASE: '',
    CONSILIUM_SESSION_CACHE: '',
    CONSILIUM_ADMIN_PASSWORD: '',
  };
  for (const key of KEY_VARS) env[key] = '';
  for (const n of [1, 2, 3, 4, 5]) {
    for (const key of ['PROVIDER', 'MODEL', 'STRENGTH', 'API_KEY_ENV', 'BASE_URL', 'API_KEY'])
      env[`CONSILIUM_SLOT${n}_${key}`] = '';
  }
  return { ...env, CONSILIUM_DATA_DIR: dataDir, ...settings };
}

export interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` in `cwd` (the repository by default). */
export function npmStart(env: NodeJS.ProcessEnv, { cwd = ROOT }: { cwd?: string } = {}): Run {
  const child = spawn('npm', ['start'], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    run.stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    run.stderr += chunk;
  });
  runs.push(run);
  return run;
}

/**
 * A fresh clone of this repository as its files stand (committed or not, never what git ignores: no `dist/`, no
 * `docs/api/`, no `data/`), with this repository's packages linked into its `node_modules`, as `npm install` would
 * leave it; with `prepare`, npm's `prepare` run there too (it builds the SDK, whose `consilium` bin `npx` runs).
 * Returns its folder; the caller removes it.
 */
export function freshClone({ prepare = false }: { prepare?: boolean } = {}): string {
  const clone = mkdtempSync(join(tmpdir(), 'consilium-clone-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  // A file deleted but not yet staged is still listed: what is gone is left out.
  for (const file of files.split('\0').filter((f) => f && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  // node_modules as `npm install` leaves it: every package this repository's, but the workspace's own package (and the
  // bins that run it) this clone's, so its `sdk/` is the one built and run here.
  const modules = join(ROOT, 'node_modules');
  mkdirSync(join(clone, 'node_modules/.bin'), { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name === '.bin') {
      for (const bin of readdirSync(join(modules, '.bin'))) {
        symlinkSync(readlinkSync(join(modules, '.bin', bin)), join(clone, 'node_modules/.bin', bin));
      }
    } else if (name === '@consilium') {
      mkdirSync(join(clone, 'node_modules/@consilium'));
      symlinkSync('../../sdk', join(clone, 'node_modules/@consilium/sdk'));
    } else symlinkSync(join(modules, name), join(clone, 'node_modules', name));
  }
  if (prepare) execFileSync('npm', ['run', 'prepare'], { cwd: clone, stdio: 'ignore' });
  return clone;
}

/** A loopback port free a moment ago, for a server that must bind it itself (so a test can ask before the banner). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export const captured = (run: Run) => `\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
export const running = (run: Run) => run.child.exitCode === null && run.child.signalCode === null;

/** Waits until `pattern` appears on stdout; fails early if the process exits, and after `ms` with everything it printed. */
export async function waitForStdout(run: Run, pattern: RegExp, ms = WAIT_MS): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = run.stdout.match(pattern);
    if (match) return match;
    if (!running(run))
      throw new Error(
        `npm start exited (${run.child.exitCode ?? run.child.signalCode}) before printing ${pattern}${captured(run)}`,
      );
    if (Date.now() > deadline) throw new Error(`no ${pattern} on stdout within ${ms} ms${captured(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves with the exit, or fails after `ms` with everything it printed. */
export async function waitForExit(run: Run, ms = WAIT_MS) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`npm start still running after ${ms} ms${captured(run)}`)), ms);
  });
  try {
    return await Promise.race([run.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM to the whole group (npm, sh, tsx, node), then SIGKILL if it has not gone within `STOP_MS`. */
export async function stop(run: Run): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-run.child.pid!, name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };
  if (run.child.pid === undefined) return;
  signal('SIGTERM');
  try {
    if (running(run)) await waitForExit(run, STOP_MS);
  } catch {
    signal('SIGKILL');
    await run.exit;
  }
  // The leader may be gone while its group lives on; make sure nothing of it does.
  signal('SIGKILL');
}

/** SIGKILL to the whole group: a crash, with no chance to clean up. */
export async function kill(run: Run): Promise<void> {
  if (run.child.pid === undefined) return;
  try {
    process.kill(-run.child.pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
  await run.exit;
}

/** An API token's holder on a running server: `fetch(path)` sends the token. */
export interface SignedIn {
  token: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Signs in as a browser would (`POST /auth/login`, then the cookie, from the server's own origin),
 * creates an API token with the cookie, and returns a `fetch` that sends the token.
 */
export async function signIn(baseUrl: string, username: string, password: string): Promise<SignedIn> {
  const login = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`login as ${username} answered ${login.status}: ${await login.text()}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const created = await fetch(`${baseUrl}/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: baseUrl },
    body: JSON.stringify({ name: 'tests' }),
  });
  if (created.status !== 201) throw new Error(`creating a token answered ${created.status}: ${await created.text()}`);
  const { token } = (await created.json()) as { token: string };
  return {
    token,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(`${baseUrl}${path}`, { ...init, headers });
    },
  };
}
