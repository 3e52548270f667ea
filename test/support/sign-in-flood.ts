/**
 * A flood of wrong sign-ins from one address while another user reads `GET /sessions`:
 * the reader's latencies idle and during the flood, and every attempt's status and time. Shared by the test
 * (`test/auth/sign-in-flood.test.ts`) and the bench (`bench/flood.ts`).
 */
import { DEFAULT_SCRYPT, hashPassword } from '../../server/src/accounts/passwords.js';
import type { RunningServer } from './server.js';

export interface FloodOptions {
  /** Wrong sign-ins in all (120) and at once (20). */
  attempts?: number;
  concurrency?: number;
  /** Reads for the idle baseline, after `warmup` unmeasured ones. */
  idleReads?: number;
  warmup?: number;
}

export interface Attempt {
  status: number;
  ms: number;
  retryAfter: string | null;
  contentType: string | null;
  code: string | undefined;
}

export interface FloodResult {
  /** The reader's `GET /sessions` times (ms), idle and while the flood ran. */
  idle: number[];
  during: number[];
  attempts: Attempt[];
  floodMs: number;
}

async function timedRead(reader: { fetch(path: string): Promise<Response> }): Promise<number> {
  const start = performance.now();
  const res = await reader.fetch('/sessions?limit=20');
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET /sessions answered ${res.status}`);
  return performance.now() - start;
}

async function attempt(baseUrl: string, username: string, i: number): Promise<Attempt> {
  const start = performance.now();
  const res = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: `wrong-password-${i}` }),
  });
  const body = (await res.json()) as { code?: string };
  return {
    status: res.status,
    ms: performance.now() - start,
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type'),
    code: body.code,
  };
}

/** `attempts` wrong sign-ins for `username`, `concurrency` at a time. */
async function flood(baseUrl: string, username: string, attempts: number, concurrency: number) {
  const results: Attempt[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < attempts) results.push(await attempt(baseUrl, username, next++));
    }),
  );
  return { results, floodMs: performance.now() - start };
}

/**
 * Makes a victim whose password is hashed at production cost (32 MiB), so each wrong guess costs what it does in
 * production whatever the server's own parameters, and a reader with a few sessions; measures the reader idle,
 * then while `attempts` wrong sign-ins for the victim run `concurrency` at a time.
 */
export async function signInFlood(server: RunningServer, options: FloodOptions = {}): Promise<FloodResult> {
  const { attempts = 120, concurrency = 20, idleReads = 200, warmup = 50 } = options;
  const victim = await server.newUser();
  await server.database.accounts.updateUser(victim.user.id, {
    passwordHash: await hashPassword(victim.password, DEFAULT_SCRYPT),
    updatedAt: new Date().toISOString(),
  });
  const reader = await server.newUser();
  for (let i = 0; i < 3; i++) {
    const res = await reader.fetch('/consilium', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: `Question ${i}?` }),
    });
    await res.arrayBuffer();
  }

  for (let i = 0; i < warmup; i++) await timedRead(reader);
  const idle: number[] = [];
  for (let i = 0; i < idleReads; i++) idle.push(await timedRead(reader));

  const during: number[] = [];
  let flooding = true;
  const reading = (async () => {
    while (flooding) during.push(await timedRead(reader));
  })();
  const { results, floodMs } = await flood(server.baseUrl, victim.user.username, attempts, concurrency).finally(() => {
    flooding = false;
  });
  await reading;
  return { idle, during, attempts: results, floodMs };
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
