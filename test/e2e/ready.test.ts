/**
 * A first `npm start` is ready only once it is usable: from the moment its port answers, `/ready` is polled as fast
 * as it answers, and the first 200 must find the first admin able to sign in, on SQLite and on PostgreSQL. (The admin
 * is created after the port is bound, hashing its password with production scrypt: a `/ready` that did not wait for
 * it would answer 200 while `POST /auth/login` still answers 401.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { captured, envWith, freePort, npmStart, running, runs, stop, WAIT_MS } from '../support/process.js';

const PASSWORD = 'first-admin-ready-check';
const dirs: string[] = [];
let pg: TestPostgres | undefined;

afterAll(async () => {
  await Promise.all(runs.map(stop));
  await pg?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const login = (baseUrl: string) =>
  fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });

async function firstStart(database?: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'consilium-ready-'));
  dirs.push(dataDir);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const run = npmStart(
    envWith(dataDir, {
      PORT: String(port),
      CONSILIUM_ADMIN_PASSWORD: PASSWORD,
      ...(database !== undefined && { CONSILIUM_DATABASE: database }),
    }),
  );
  const deadline = Date.now() + WAIT_MS;
  const statuses: number[] = [];
  for (;;) {
    if (!running(run)) throw new Error(`npm start exited before /ready answered 200${captured(run)}`);
    if (Date.now() > deadline) throw new Error(`no 200 from /ready within ${WAIT_MS} ms (${statuses})${captured(run)}`);
    const status = await fetch(`${baseUrl}/ready`).then(
      (res) => res.status,
      () => undefined,
    );
    if (status === undefined) {
      // Not listening yet: the build and the store's opening come first.
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    statuses.push(status);
    if (status === 200) break;
    expect(status, captured(run)).toBe(503);
  }
  const signIn = await login(baseUrl);
  expect(signIn.status, `${await signIn.text()} after /ready answered ${statuses}${captured(run)}`).toBe(200);
  await stop(run);
}

describe('a first npm start', () => {
  it('answers /ready 200 only once the first admin can sign in (SQLite)', async () => {
    await firstStart();
  });

  it.skipIf(!postgres.available)('answers /ready 200 only once the first admin can sign in (PostgreSQL)', async () => {
    pg = await startPostgres();
    await firstStart(await pg.createDatabase());
  });
});
