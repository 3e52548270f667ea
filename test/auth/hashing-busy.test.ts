/**
 * Every operation that hashes a password answers 503 `hashing_busy` with `Retry-After`, and changes nothing, while
 * the hash pool is full: here one worker and no queue, held by one sign-in for a user hashed at a high cost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/src/accounts/passwords.js';
import { PROBLEM_MEDIA_TYPE } from '../../server/src/http/problem.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';

/** 64 MiB a hash: long enough (hundreds of ms) for a few requests to be answered while it runs. */
const SLOW = { N: 2 ** 16, r: 8, p: 1 };

let server: RunningServer;
let slow: Caller;
let admin: Caller;
beforeAll(async () => {
  server = await startServer({ CONSILIUM_HASH_WORKERS: '1', CONSILIUM_HASH_QUEUE: '0' });
  slow = await server.newUser();
  admin = await server.admin();
  await server.database.accounts.updateUser(slow.user.id, {
    passwordHash: await hashPassword(slow.password, SLOW),
    updatedAt: new Date().toISOString(),
  });
});
afterAll(() => server?.close());

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const login = (username: string, password: string) => fetch(`${server.baseUrl}/auth/login`, json({ username, password }));

/** Runs `during` while a sign-in for `slow` holds the only worker; fails if the hash ended before `during` did. */
async function whileFull(during: () => Promise<void>): Promise<void> {
  const holding = login(slow.user.username, slow.password);
  // The pool's own state, not a sleep: the sign-in has reached its hash.
  while (server.accounts.hashLoad.running === 0) await new Promise((resolve) => setImmediate(resolve));
  await during();
  expect(server.accounts.hashLoad.running, 'the slow hash ended before the requests did: inconclusive').toBe(1);
  expect((await holding).status).toBe(200);
}

async function expectBusy(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toBe(PROBLEM_MEDIA_TYPE);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await res.json()).toMatchObject({ status: 503, code: 'hashing_busy' });
}

describe('while every password-hash worker is busy and the queue is full', () => {
  it('POST /auth/login is refused with 503 hashing_busy and Retry-After; once the hash is done it signs in', async () => {
    await whileFull(async () => {
      await expectBusy(await login(server.user.username, server.password));
      await expectBusy(await login('nobody-at-all', 'whatever-password'));
    });
    expect((await login(server.user.username, server.password)).status).toBe(200);
  });

  it('a password change, a new user and a reset are refused alike, and change nothing', async () => {
    const other = await server.newUser();
    await whileFull(async () => {
      await expectBusy(
        await other.fetch('/auth/password', json({ currentPassword: other.password, newPassword: 'a-new-password-1' })),
      );
      await expectBusy(await admin.fetch('/users', json({ username: 'not-created', password: 'a-new-password-2' })));
      await expectBusy(await admin.fetch(`/users/${other.user.id}/password`, json({ password: 'a-new-password-3' })));
    });
    expect(await server.accounts.findUser('not-created')).toBeUndefined();
    expect((await login(other.user.username, other.password)).status).toBe(200);
  });
});
