/**
 * A flood of wrong sign-ins from one address while another user reads `GET /sessions`:
 * the reader's latencies idle and during the flood, and every attempt's status and time. Shared by the test
 * (`test/auth/sign-in-flood.test.ts`) and the bench (`bench/flood.ts`).
 */
import { DEFAULT_SCRYPT, hashPassword } from '../../server/src/accounts/passwords.js';
import { rawRequest } from './raw-http.js';
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

export interface ManyAddressOptions {
  /** Addresses flooding at once (127.0.1.1 …), one attempt in flight each. */
  addresses?: number;
  /** The owner's sign-ins with the right password during the flood, one after another. */
  tries?: number;
  /** Idle measurements (the owner's sign-ins and another user's reads) before the flood. */
  idle?: number;
}

export interface ManyAddressResult {
  /** The owner's sign-ins from their known address: idle, then during the flood. */
  ownerIdle: Attempt[];
  owner: Attempt[];
  /** Another user's `GET /sessions` (ms): idle, and while the flood ran. */
  readerIdle: number[];
  readerDuring: number[];
  /** Every flood attempt. */
  flood: Attempt[];
}

/** A sign-in through node:http from `localAddress`, so the server sees another client. */
async function signInFrom(baseUrl: string, localAddress: string, username: string, password: string): Promise<Attempt> {
  const start = performance.now();
  const res = await rawRequest(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
    localAddress,
  });
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.status,
    ms: performance.now() - start,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
    contentType: res.headers['content-type'] ?? null,
    code: (JSON.parse(res.body || '{}') as { code?: string }).code,
  };
}

/**
 * The owner (hashed at production cost) signs in once from 127.0.0.2, which makes that address theirs; then
 * `addresses` loopback addresses send wrong sign-ins without pause (for the owner's account and for names that do not
 * exist, one attempt in flight each) while the owner signs in `tries` times from 127.0.0.2 and another user reads
 * `GET /sessions`. The owner's attempts and the reader's times are measured idle first, in the same run.
 */
export async function manyAddressFlood(server: RunningServer, options: ManyAddressOptions = {}): Promise<ManyAddressResult> {
  const { addresses = 30, tries = 20, idle = 10 } = options;
  const owner = await server.newUser();
  await server.database.accounts.updateUser(owner.user.id, {
    passwordHash: await hashPassword(owner.password, DEFAULT_SCRYPT),
    updatedAt: new Date().toISOString(),
  });
  const reader = await server.newUser();
  const home = '127.0.0.2';
  const signIn = () => signInFrom(server.baseUrl, home, owner.user.username, owner.password);
  const first = await signIn();
  if (first.status !== 200) throw new Error(`the owner's first sign-in answered ${first.status}`);

  const ownerIdle: Attempt[] = [];
  const readerIdle: number[] = [];
  for (let i = 0; i < idle; i++) {
    ownerIdle.push(await signIn());
    readerIdle.push(await timedRead(reader));
  }

  const flood: Attempt[] = [];
  let flooding = true;
  const floods = Array.from({ length: addresses }, async (_, a) => {
    const from = `127.0.1.${a + 1}`;
    for (let i = 0; flooding; i++) {
      const name = i % 2 === 0 ? owner.user.username : `nobody-${a}-${i}`;
      flood.push(await signInFrom(server.baseUrl, from, name, `wrong-password-${i}`));
    }
  });
  const readerDuring: number[] = [];
  const reading = (async () => {
    while (flooding) readerDuring.push(await timedRead(reader));
  })();
  // The flood is under way (its first attempts answered) before the owner tries.
  while (flood.length < addresses) await new Promise((resolve) => setImmediate(resolve));
  const ownerDuring: Attempt[] = [];
  try {
    for (let i = 0; i < tries; i++) ownerDuring.push(await signIn());
  } finally {
    flooding = false;
  }
  await Promise.all([...floods, reading]);
  return { ownerIdle, owner: ownerDuring, readerIdle, readerDuring, flood };
}
