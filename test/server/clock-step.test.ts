/**
 * A wall clock that jumps locks nobody out. The server runs in this process, so the test moves the process's clock
 * (`Date`) a day ahead, uses the limits there (a debate start, sign-ins), and sets it back: the next debate start and
 * sign-in are answered as before, not refused for the day the clock went back. On PostgreSQL, where the limits live in
 * the database and its own clock counts, a bucket last touched while that clock ran a day ahead is read the same way.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../server/src/store/open.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type RunningServer, startServer } from '../support/server.js';

const DAY = 24 * 3_600_000;
const JSON_BODY = { 'content-type': 'application/json' };

describe('a wall clock stepped a day ahead and back, on one instance', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Before the server starts, so that whatever clock it keeps is the one moved here.
    vi.useFakeTimers({ toFake: ['Date'] });
    server = await startServer({
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_DEBATES_PER_USER: '2/1h',
      CONSILIUM_LIMIT_LOGIN_PER_ADDRESS: '3/15m',
      CONSILIUM_LIMIT_LOGIN_PER_ACCOUNT: '3/15m',
    });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
  });

  const ask = () =>
    server.fetch('/consilium', { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ question: 'What time is it?' }) });
  const login = (password: string) =>
    fetch(`${server.baseUrl}/auth/login`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ username: server.user.username, password }),
    });

  it('a debate start and a sign-in there, then back: answered as before, with no day-long Retry-After', async () => {
    const now = Date.now();
    vi.setSystemTime(now + DAY);
    expect((await ask()).status).toBe(200);
    expect((await login('a-wrong-password')).status).toBe(401);
    vi.setSystemTime(now);
    const second = await ask();
    expect(second.status, `Retry-After ${second.headers.get('retry-after')}`).toBe(200);
    expect((await login(server.password)).status).toBe(200);
    // The limits still hold, by the time that really passed: the third start within the hour waits about 30 minutes.
    const third = await ask();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeLessThanOrEqual(1800);
  });
});

describe.skipIf(!postgres.available)('a bucket written while PostgreSQL’s clock ran a day ahead', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());

  it('is read as no time passed since: the same wait, never a day of debt', async () => {
    const url = await pg.createDatabase();
    const database = await openDatabase(url);
    const sql = new Client({ connectionString: url });
    await sql.connect();
    try {
      const buckets = database.limits.buckets('debate-starts', { count: 2, periodMs: 3_600_000 });
      expect([await buckets.take('usr_1'), await buckets.take('usr_1')]).toEqual([undefined, undefined]);
      const wait = await buckets.take('usr_1');
      expect(wait).toBeGreaterThan(1700);
      // As though the database's clock had been a day ahead when the bucket was written, and was set back since.
      await sql.query("UPDATE limit_buckets SET at = at + interval '1 day'");
      expect(await buckets.level('usr_1')).toBeGreaterThanOrEqual(0);
      const after = await buckets.take('usr_1');
      expect(after).toBeGreaterThan(1700);
      expect(after).toBeLessThanOrEqual(wait!);
    } finally {
      await sql.end();
      await database.close();
    }
  });
});
