/**
 * A store outage longer than the recorder's retries (`CONSILIUM_STORE_RETRY_MS`), under the real server on loopback:
 * a full disk (a small tmpfs the test fills; where the machine cannot mount one, SQLITE_FULL at the store's edge) and
 * SQLite's write lock held by another process's connection. No operation answers success for work the store does
 * not hold, nothing is left `running` once the store takes writes again, and cancel and replay work, all without a
 * restart.
 */
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { StoreError } from '../../server/src/sessions/store.js';
import { type RunningServer, startServer } from '../support/server.js';
import { type SmallDisk, smallDisk } from '../support/small-disk.js';
import { readSse } from '../support/sse.js';

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

let server: RunningServer | undefined;
let disk: SmallDisk | undefined;
let unlock: (() => Promise<void>) | undefined;
afterEach(async () => {
  await unlock?.();
  await server?.close();
  disk?.unmount();
  server = disk = unlock = undefined;
});

async function expectUnavailable(res: Response): Promise<void> {
  expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toStrictEqual({ status: 503, retryAfter: '5' });
  expect(await res.json()).toMatchObject({ code: 'store_unavailable' });
}

/** Every event of a stream, to its end. */
async function events(res: Response): Promise<DebateEvent[]> {
  const all: DebateEvent[] = [];
  for await (const message of readSse(res)) all.push(JSON.parse(message.data) as DebateEvent);
  return all;
}

/** The single, parallel and deep JSON operations, the deep stream, all while the store refuses writes. */
async function duringOutage(s: RunningServer): Promise<void> {
  const [single, parallel, deep, stream] = await Promise.all([
    s.fetch('/ask/anthropic', json({ question: 'Stored?' })),
    s.fetch('/consilium', json({ question: 'Stored?' })),
    s.fetch('/consilium/deep', json({ question: 'Stored?', rounds: 2 })),
    s.fetch('/consilium/deep/stream', json({ question: 'Stored?', rounds: 2 })).then(events),
  ]);
  await expectUnavailable(single);
  await expectUnavailable(parallel);
  await expectUnavailable(deep);
  // Nothing was stored, so nothing but the end that says so was shown.
  expect(stream.map((e) => e.type)).toStrictEqual(['session.ended']);
  expect(stream[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^store_unavailable: /) });
}

/** Once the store takes writes again: no session left running, each readable, cancelled and replayed to its end. */
async function afterOutage(s: RunningServer, detached: string): Promise<void> {
  await expect
    .poll(async () => ((await (await s.fetch('/sessions?status=running')).json()) as { items: unknown[] }).items.length)
    .toBe(0);
  // Failed (its writes found no room), or finished (they fitted in space SQLite already had): whichever, as stored.
  const stored = (await (await s.fetch(`/sessions/${detached}`)).json()) as Session;
  expect(['failed', 'completed']).toContain(stored.status);
  const cancelled = await s.fetch(`/sessions/${detached}/cancel`, { method: 'POST' });
  expect(cancelled.status).toBe(200);
  expect(await cancelled.json()).toMatchObject({ id: detached, status: stored.status });
  const replay = await events(await s.fetch(`/sessions/${detached}/events`));
  expect(replay.at(-1)).toMatchObject({ type: 'session.ended', status: stored.status });
  for (const session of ((await (await s.fetch('/sessions?limit=100')).json()) as { items: Session[] }).items) {
    const ended = await events(await s.fetch(`/sessions/${session.id}/events`));
    expect(ended.at(-1)).toMatchObject({ type: 'session.ended' });
  }
}

/** A detached debate, started and stored before the outage; resolves once it has a finished answer. */
async function detachedRunning(s: RunningServer): Promise<string> {
  const res = await s.fetch('/consilium/deep', json({ question: 'Running when the store went?', rounds: 5, detach: true }));
  expect(res.status).toBe(202);
  const { sessionId } = (await res.json()) as { sessionId: string };
  for await (const message of readSse(await s.fetch(`/sessions/${sessionId}/events`))) {
    if ((JSON.parse(message.data) as DebateEvent).type === 'answer.completed') break;
  }
  return sessionId;
}

describe('a store outage longer than the retries', () => {
  it('a full disk: no success for unstored work, nothing left running, cancel and replay without a restart', async () => {
    disk = smallDisk();
    server = await startServer({
      ...(disk && { CONSILIUM_DATA_DIR: disk.dir }),
      CONSILIUM_STORE_RETRY_MS: '500',
      CONSILIUM_OFFLINE_TOKEN_MS: '20',
    });
    const s = server;
    const detached = await detachedRunning(s);
    let full = false;
    if (disk) disk.fill();
    else {
      // Where no tmpfs can be mounted: the store's writes fail as a full disk's do.
      const write = s.database.sessions.write.bind(s.database.sessions);
      s.database.sessions.write = (step) =>
        full ? Promise.reject(new StoreError('unavailable', 'SQLITE_FULL: database or disk is full')) : write(step);
    }
    full = true;
    await duringOutage(s);
    if (disk) disk.free();
    full = false;
    await afterOutage(s, detached);
  }, 120_000);

  it("SQLite's write lock held by another process: the same, once the lock is let go", async () => {
    server = await startServer({ CONSILIUM_STORE_RETRY_MS: '500', CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    const s = server;
    const detached = await detachedRunning(s);
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const d = new sqlite3.Database(s.config.database, (error) => (error ? reject(error) : resolve(d)));
    });
    const exec = (sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
    await exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE');
    unlock = async () => {
      unlock = undefined;
      await exec('ROLLBACK');
      await new Promise<void>((resolve) => db.close(() => resolve()));
    };
    await duringOutage(s);
    await unlock();
    await afterOutage(s, detached);
  }, 180_000);
});
