/**
 * The PostgreSQL database against a real server (a throwaway cluster, or CONSILIUM_TEST_DATABASE_URL):
 * the shared session and account store contracts, then what only a shared database has — several instances on one
 * database seeing each other's writes live, migrating once when they start together, and
 * recovering only the sessions of instances that are gone. Each test has its own database.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DebateEvent } from '../../sdk/src/generated/types.gen.js';
import { openSessions } from '../../server/src/sessions/open.js';
import { INTERRUPTED_ERROR, type Step, StoreError, UNSAVED_SEQ_LIMIT } from '../../server/src/sessions/store.js';
import { PostgresDatabase, type PostgresStoreOptions } from '../../server/src/store/postgres/database.js';
import { migrations } from '../../server/src/store/postgres/migrations.js';
import { CHANNEL, MAX_PAYLOAD_BYTES } from '../../server/src/store/postgres/notify.js';
import { poolAccess } from '../../server/src/store/postgres/pool.js';
import { debateSteps, FakeDebate } from '../support/fake-debate.js';
import { findPostgresBin, postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type Caller, caller, startServer } from '../support/server.js';
import { readSse } from '../support/sse.js';
import { describeAccountStoreContract } from './accounts-contract.js';
import { describeLimitStoreContract } from './limits-contract.js';
import { describeSessionStoreContract } from './sessions-contract.js';

let server: TestPostgres | undefined;
beforeAll(async () => {
  if (postgres.available) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** The contract's stores all open one database. */
let contractDb: Promise<string> | undefined;
function contractUrl(): Promise<string> {
  contractDb ??= server!.createDatabase();
  return contractDb;
}
describeSessionStoreContract(
  'postgres',
  async () => PostgresDatabase.open(await contractUrl()),
  postgres.available ? undefined : { skip: postgres.reason },
);
/** The accounts contract needs a database with no users yet: one of its own. */
let accountsDb: Promise<string> | undefined;
function accountsUrl(): Promise<string> {
  accountsDb ??= server!.createDatabase();
  return accountsDb;
}
describeAccountStoreContract(
  'postgres',
  async () => PostgresDatabase.open(await accountsUrl()),
  postgres.available ? undefined : { skip: postgres.reason },
);

describeLimitStoreContract(
  'postgres',
  async () => PostgresDatabase.open(await contractUrl()),
  postgres.available ? undefined : { skip: postgres.reason },
);

/** Databases opened by a test, closed after it whatever happened. */
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function instance(url: string, options?: PostgresStoreOptions): Promise<PostgresDatabase> {
  const database = await PostgresDatabase.open(url, options);
  opened.push(database);
  return database;
}

async function sql<R extends object = Record<string, unknown>>(url: string, text: string, params?: unknown[]): Promise<R[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Collects what a listener gets; `until` resolves once `done` holds (no sleeping: the test timeout bounds it). */
function collector<T>() {
  const got: T[] = [];
  let check: (() => void) | undefined;
  return {
    got,
    push: (item: T) => {
      got.push(item);
      check?.();
    },
    until(done: (got: T[]) => boolean): Promise<void> {
      return new Promise((resolve) => {
        check = () => done(got) && resolve();
        check();
      });
    },
  };
}

const ended = (events: DebateEvent[]) => events.some((e) => e.type === 'session.ended');

describe.skipIf(!postgres.available)('PostgreSQL: several instances on one database', () => {
  it("B's watch gets A's events live, in seq order, none twice, big ones (> 8000 bytes) read back", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const tap = new Client({ connectionString: url });
    await tap.connect();
    const payloads: string[] = [];
    tap.on('notification', (n) => payloads.push(n.payload ?? ''));
    await tap.query(`LISTEN ${CHANNEL}`);

    const d = new FakeDebate({ owner: 'usr_live' });
    const atB = collector<DebateEvent>();
    const stopB = await b.sessions.watch(d.session.id, atB.push);
    const atA = collector<DebateEvent>();
    await a.sessions.watch(d.session.id, atA.push);

    const steps: Step[] = [];
    const write = async (step: Step) => {
      steps.push(step);
      await a.sessions.write(step);
    };
    await write(d.start().step());
    d.startRound(1);
    await write(d.step({ rounds: [1] }));
    d.answer(1, 1);
    await write(d.step({ rounds: [1] }));
    // One answer far over a notification's 8000 bytes, and a step of many small deltas over it together.
    d.answer(1, 2, `Long: ${'€ and more '.repeat(2500)}`, 1);
    await write(d.step({ rounds: [1] }));
    d.answer(1, 3, 'y'.repeat(9000), 300);
    await write(d.step({ rounds: [1] }));
    d.answer(1, 4);
    await write(d.step({ rounds: [1] }));
    d.endRound(1);
    d.end('completed');
    await write(d.step({ rounds: [1] }));

    await atB.until(ended);
    expect(atB.got.map((e) => e.seq)).toStrictEqual(d.raised.map((e) => e.seq));
    expect(atB.got).toStrictEqual(d.raised);
    expect(Math.max(...atB.got.map((e) => Buffer.byteLength(JSON.stringify(e))))).toBeGreaterThan(20_000);

    // Notifications stayed under the limit: the two big steps went as seq ranges, the rest inline.
    while (payloads.length < steps.length) await once(tap, 'notification');
    expect(Math.max(...payloads.map((p) => Buffer.byteLength(p)))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(payloads.filter((p) => JSON.parse(p).r).length).toBe(2);
    await tap.end();

    // A's own writes reach A's followers through its recorder, not the database: its watch saw none.
    // B writes another session A watches; its notice reaches A after every one of A's own.
    const other = new FakeDebate({ owner: 'usr_live' });
    const otherAtA = collector<DebateEvent>();
    await a.sessions.watch(other.session.id, otherAtA.push);
    await b.sessions.write(other.start().step());
    await otherAtA.until((got) => got.length === 1);
    expect(atA.got).toStrictEqual([]);

    // Unwatched, B hears nothing more of the session.
    await stopB();
    const before = atB.got.length;
    await a.sessions.write({ session: d.session, events: [] });
    await b.sessions.write(other.step());
    expect(atB.got.length).toBe(before);
  });

  it('a follower misses nothing written while its LISTEN connection was down', async () => {
    const url = await server!.createDatabase();
    const name = new URL(url).pathname.slice(1);
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const d = new FakeDebate({ owner: 'usr_cut' });
    const atB = collector<DebateEvent>();
    await b.sessions.watch(d.session.id, atB.push);
    const steps = debateSteps(d, 2);
    const half = Math.floor(steps.length / 2);
    for (const step of steps.slice(0, half)) await a.sessions.write(step);
    const heard = steps.slice(0, half).reduce((n, s) => n + s.events.length, 0);
    await atB.until((got) => got.length === heard);

    // Cut the LISTEN connections and keep them from coming back while A (on its pooled connection) writes the rest.
    await sql(server!.url, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    const cut = await sql(
      server!.url,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'consilium-listen %'`,
      [name],
    );
    expect(cut.length).toBe(2);
    for (const step of steps.slice(half)) await a.sessions.write(step);
    expect(atB.got.length).toBe(heard);
    await sql(server!.url, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);

    await atB.until(ended);
    expect(atB.got).toStrictEqual(d.raised);
  });

  it("B's onChange hears each of A's writes and deletes; A's own changes are not news to A", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const atB = collector<string | undefined>();
    const atA = collector<string | undefined>();
    b.sessions.onChange(atB.push);
    a.sessions.onChange(atA.push);

    const d = new FakeDebate({ owner: 'usr_change' });
    await a.sessions.write(d.start().step());
    d.end('completed');
    await a.sessions.write(d.step());
    expect(await a.sessions.delete(d.session.id)).toBe(true);
    expect(await a.sessions.delete(d.session.id)).toBe(false);
    await atB.until((got) => got.length === 3);
    expect(atB.got).toStrictEqual([d.session.id, d.session.id, d.session.id]);

    const mine = new FakeDebate({ owner: 'usr_change' });
    await b.sessions.write(mine.start().step());
    await atA.until((got) => got.length === 1);
    expect(atA.got).toStrictEqual([mine.session.id]);
  });

  it('instances starting together on an empty database migrate once', async () => {
    const url = await server!.createDatabase();
    const stores = await Promise.all(Array.from({ length: 6 }, () => instance(url)));
    const applied = await sql<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map((r) => r.version)).toStrictEqual(migrations.map((m) => m.version));
    // Every instance works on the one schema.
    const d = new FakeDebate({ owner: 'usr_migrate' });
    for (const step of debateSteps(d, 1)) await stores[0]!.sessions.write(step);
    for (const store of stores) expect(await store.sessions.get(d.session.id)).toStrictEqual(d.session);
    // A later start finds nothing to do.
    await instance(url);
    expect(await sql(url, 'SELECT version FROM schema_migrations')).toHaveLength(migrations.length);
  });

  it("stores a grounded session's page texts once, in session_sources, never in the links lists read; migration 10 moves older ones", async () => {
    const url = await server!.createDatabase();
    const database = await instance(url);
    const d = new FakeDebate({ owner: 'usr_sources' });
    await database.sessions.write(d.start().step({ run: 'first' }));
    d.readPage('Deploy policy', 'Deploys on Tuesdays.');
    d.readPage('Rollback runbook', "Rollbacks take 'four' minutes.");
    await database.sessions.write(d.step({ run: 'later' }));
    await database.sessions.write(d.end('completed').step({ run: 'later' }));
    const links = async () =>
      (await sql<{ links: string }>(url, 'SELECT links::text AS links FROM sessions WHERE id = $1', [d.session.id]))[0]!.links;
    expect(await links()).not.toContain('Tuesdays');
    expect(
      await sql(url, 'SELECT n, sha256, text FROM session_sources WHERE session_id = $1 ORDER BY n', [d.session.id]),
    ).toEqual(d.session.grounding!.pages.map(({ n, sha256, text }) => ({ n, sha256, text })));
    await database.close();

    // As a database before migration 10 held it: the texts in links, no session_sources.
    await sql(url, 'DROP TABLE session_sources; DELETE FROM schema_migrations WHERE version = 10');
    await sql(url, 'UPDATE sessions SET links = $2::jsonb WHERE id = $1', [
      d.session.id,
      JSON.stringify({ grounding: d.session.grounding }),
    ]);
    const again = await instance(url);
    expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
    expect(await links()).not.toContain('Tuesdays');
    expect(await sql(url, 'SELECT count(*)::integer AS n FROM session_sources WHERE session_id = $1', [d.session.id])).toEqual([
      { n: 2 },
    ]);
  });

  it('opens a database as earlier builds recorded it, the numbering it shares with SQLite unchanged, applying nothing again', async () => {
    const url = await server!.createDatabase();
    const database = await instance(url);
    const d = new FakeDebate({ owner: 'usr_earlier' });
    for (const step of debateSteps(d, 1)) await database.sessions.write(step);
    await database.close();
    // Migration 1 was recorded under a shorter name.
    await sql(url, `UPDATE schema_migrations SET name = 'sessions' WHERE version = 1`);
    const before = await sql(url, 'SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
    const again = await instance(url);
    expect(await again.sessions.get(d.session.id)).toStrictEqual(d.session);
    expect(await sql(url, 'SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).toStrictEqual(before);
    expect(before.map((r) => (r as { version: number }).version)).toStrictEqual(migrations.map((m) => m.version));
  });

  it('refuses a database migrated by a newer server', async () => {
    const url = await server!.createDatabase();
    await (await PostgresDatabase.open(url)).close();
    await sql(url, `INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')`);
    await expect(PostgresDatabase.open(url)).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });
  });

  it('recovers the sessions of instances that are gone (stopped, or lease expired), never a live instance’s', async () => {
    const url = await server!.createDatabase();
    // `hung` renews no lease in this test: its lease is then expired by hand, as if it had stopped 30 s ago.
    const [live, stopped, hung] = await Promise.all([instance(url), instance(url), instance(url, { heartbeatMs: 3_600_000 })]);
    const running = async (database: PostgresDatabase, label: string) => {
      const d = new FakeDebate({ owner: `usr_${label}` });
      await database.sessions.write(d.start().step());
      d.startRound(1);
      d.answer(1, 1);
      await database.sessions.write(d.step({ rounds: [1] }));
      return d;
    };
    const [ofLive, ofStopped, ofHung] = await Promise.all([
      running(live, 'live'),
      running(stopped, 'stopped'),
      running(hung, 'hung'),
    ]);
    await stopped.close();
    await sql(url, `UPDATE instances SET expires_at = now() - interval '30 seconds' WHERE id = $1`, [hung.sessions.instanceId]);

    // A follower on the live instance of a session that will be recovered elsewhere.
    const follower = collector<DebateEvent>();
    await live.sessions.watch(ofHung.session.id, follower.push);

    // A new instance starting, as the app does.
    const starting = await instance(url);
    const now = new Date(Date.UTC(2025, 8, 1, 12));
    const recovered = await starting.sessions.recoverInterrupted(now);
    expect(recovered.map((s) => s.id).sort()).toStrictEqual([ofStopped.session.id, ofHung.session.id].sort());
    for (const d of [ofStopped, ofHung]) {
      // Round 1 had not ended: slots 2-5 had not answered.
      const missingSlots = [2, 3, 4, 5];
      const expected = {
        ...d.session,
        status: 'interrupted',
        missingSlots,
        updatedAt: now.toISOString(),
        completedAt: now.toISOString(),
        endReason: INTERRUPTED_ERROR,
      };
      expect(await live.sessions.get(d.session.id)).toStrictEqual(expected);
      expect((await live.sessions.events(d.session.id, 0)).at(-1)).toStrictEqual({
        v: 1,
        type: 'session.ended',
        sessionId: d.session.id,
        seq: d.lastSeq + UNSAVED_SEQ_LIMIT + 1,
        ts: now.toISOString(),
        status: 'interrupted',
        missingSlots,
        usage: d.session.usage,
        cost: d.session.cost,
        error: INTERRUPTED_ERROR,
      });
    }
    expect(await live.sessions.get(ofLive.session.id)).toStrictEqual(ofLive.session);
    await follower.until(ended);
    // Notices of its earlier writes go out after their commits, gathered, and may come after the watch began.
    expect(follower.got.filter((e) => e.type === 'session.ended').map((e) => e.seq)).toStrictEqual([
      ofHung.lastSeq + UNSAVED_SEQ_LIMIT + 1,
    ]);
    expect(follower.got.at(-1)?.type).toBe('session.ended');

    // Once is enough: a second sweep finds nothing.
    expect(await starting.sessions.recoverInterrupted(new Date())).toStrictEqual([]);
  });

  it('a restarted instance (the same id) ends its own runs at start, though its lease has not expired', async () => {
    const url = await server!.createDatabase();
    const crashed = await instance(url, { instanceId: 'web-1:8787', heartbeatMs: 3_600_000, leaseMs: 3_600_000 });
    const d = new FakeDebate({ owner: 'usr_restart' });
    await crashed.sessions.write({ ...d.start().step(), run: 'first' });
    const other = await instance(url);
    // Another instance leaves it alone: the lease is live.
    expect(await other.sessions.recoverInterrupted(new Date())).toStrictEqual([]);
    const restarted = await instance(url, { instanceId: 'web-1:8787' });
    expect((await restarted.sessions.recoverInterrupted(new Date())).map((s) => [s.id, s.status])).toStrictEqual([
      [d.session.id, 'interrupted'],
    ]);
  });

  it('sweeps periodically: a live instance marks a crashed peer’s session, and tells its own listeners', async () => {
    const url = await server!.createDatabase();
    const sweeper = await instance(url, { recoverEveryMs: 50 });
    const crashed = await instance(url, { heartbeatMs: 3_600_000 });
    const own = new FakeDebate({ owner: 'usr_sweep' });
    await sweeper.sessions.write(own.start().step());
    const changes = collector<string | undefined>();
    sweeper.sessions.onChange(changes.push);

    const lost = new FakeDebate({ owner: 'usr_sweep' });
    await crashed.sessions.write(lost.start().step());
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [crashed.sessions.instanceId]);

    // Heard twice: the crashed instance's write, then the sweeper's own recovery.
    await changes.until((got) => got.filter((id) => id === lost.session.id).length === 2);
    expect((await sweeper.sessions.get(lost.session.id))?.status).toBe('interrupted');
    // The sweep leaves the sweeper's own running sessions alone.
    expect(await sweeper.sessions.get(own.session.id)).toStrictEqual(own.session);
  });

  it("a run's later step writes only a session still running and its own: deleted or ended elsewhere, it is gone", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const running = async () => {
      const d = new FakeDebate({ owner: 'usr_fence' });
      await a.sessions.write({ ...d.start().step(), run: 'first' });
      d.startRound(1);
      return d;
    };
    // Deleted by B while A runs it: A's next step does not bring it back.
    const deleted = await running();
    expect(await b.sessions.delete(deleted.session.id)).toBe(true);
    await expect(a.sessions.write({ ...deleted.step({ rounds: [1] }), run: 'later' })).rejects.toMatchObject({ code: 'gone' });
    // A first step's retry is a later step too once the session exists.
    await expect(a.sessions.write({ ...deleted.step(), run: 'first' })).rejects.toMatchObject({ code: 'gone' });
    expect(await b.sessions.get(deleted.session.id)).toBeUndefined();

    // Ended by B's recovery (A's lease lapsed): A's next step leaves B's end in place.
    const orphaned = await running();
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [a.sessions.instanceId]);
    expect((await b.sessions.recoverOrphan(orphaned.session.id, new Date()))?.status).toBe('interrupted');
    orphaned.answer(1, 1);
    await expect(a.sessions.write({ ...orphaned.step({ rounds: [1] }), run: 'later' })).rejects.toMatchObject({ code: 'gone' });
    expect((await b.sessions.get(orphaned.session.id))?.status).toBe('interrupted');
    expect((await b.sessions.events(orphaned.session.id, 0)).at(-1)).toMatchObject({
      type: 'session.ended',
      status: 'interrupted',
    });
  });

  it("fencing: B recovers and continues A's session before A's stale step arrives; A's later step and first-step retry are gone", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const d = new FakeDebate({ owner: 'usr_fence_continue' });
    const first = { ...d.start().step(), run: 'first' as const };
    await a.sessions.write(first);
    d.startRound(1);
    d.answer(1, 1);
    const stale = { ...d.step({ rounds: [1] }), run: 'later' as const, after: first.events.at(-1)!.seq };
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [a.sessions.instanceId]);
    expect((await b.sessions.recoverOrphan(d.session.id, new Date()))?.status).toBe('interrupted');
    const resumed = (await b.sessions.resumeInterrupted(d.session.id, new Date()))!;
    // B's continued run: running again, and B's now.
    const bStep = {
      session: { ...resumed.session, updatedAt: new Date().toISOString() },
      events: [{ ...d.raised.at(-1)!, seq: resumed.afterSeq + 1 }],
      run: 'first' as const,
    };
    await b.sessions.write(bStep);
    // The session is running and its status alone would let A's steps through: the writer decides.
    expect((await b.sessions.get(d.session.id))?.status).toBe('running');
    await expect(a.sessions.write(stale)).rejects.toMatchObject({ code: 'gone' });
    await expect(a.sessions.write(first)).rejects.toMatchObject({ code: 'gone' });
    expect((await b.sessions.events(d.session.id, 0)).map((e) => e.seq)).toStrictEqual([
      ...first.events.map((e) => e.seq),
      resumed.afterSeq + 1,
    ]);
  });

  it('a later step that does not follow what is stored (commits lost in a failover) is refused as a hole, writing nothing', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const d = new FakeDebate({ owner: 'usr_hole' });
    const first = { ...d.start().step(), run: 'first' as const };
    await a.sessions.write(first);
    d.startRound(1);
    const second = { ...d.step({ rounds: [1] }), run: 'later' as const, after: first.events.at(-1)!.seq };
    await a.sessions.write(second);
    d.answer(1, 1);
    const third = { ...d.step({ rounds: [1] }), run: 'later' as const, after: second.events.at(-1)!.seq };
    // A standby promoted without the second step's commit.
    await sql(url, 'DELETE FROM events WHERE session_id = $1 AND seq > $2', [d.session.id, first.events.at(-1)!.seq]);
    const refused = await a.sessions.write(third).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({ code: 'hole', storedTop: first.events.at(-1)!.seq });
    expect((await a.sessions.events(d.session.id, 0)).map((e) => e.seq)).toStrictEqual(first.events.map((e) => e.seq));
    // The whole session written again from what the runner holds follows on.
    await a.sessions.write({
      session: d.session,
      rounds: [1],
      consensus: true,
      verdict: true,
      events: d.raised.filter((e) => e.seq > first.events.at(-1)!.seq),
      run: 'later',
      after: first.events.at(-1)!.seq,
    });
    expect(await a.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
    expect(await a.sessions.get(d.session.id)).toStrictEqual(d.session);
    // Its first step lost too (no row, no delete): a hole at 0, and a first step creates it again.
    const lost = new FakeDebate({ owner: 'usr_hole' });
    const lostFirst = { ...lost.start().step(), run: 'first' as const };
    await a.sessions.write(lostFirst);
    await sql(url, 'DELETE FROM sessions WHERE id = $1', [lost.session.id]);
    lost.startRound(1);
    await expect(
      a.sessions.write({ ...lost.step({ rounds: [1] }), run: 'later', after: lostFirst.events.at(-1)!.seq }),
    ).rejects.toMatchObject({ code: 'hole', storedTop: 0 });
    // A deleted one is gone, not a hole.
    await a.sessions.delete(d.session.id);
    d.endRound(1);
    await expect(
      a.sessions.write({ ...d.step({ rounds: [1] }), run: 'later', after: d.raised.length - 1 }),
    ).rejects.toMatchObject({
      code: 'gone',
    });
    expect(await a.sessions.tops([d.session.id, lost.session.id, 'ses_neverwritten'])).toStrictEqual(
      new Map([
        [lost.session.id, 0],
        ['ses_neverwritten', 0],
      ]),
    );
  });

  it('a stop asked while the runner could not hear it is kept: its next step says so, and a recovery ends it as asked', async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const cancelled = new FakeDebate({ owner: 'usr_stop' });
    const first = { ...cancelled.start().step(), run: 'first' as const };
    await a.sessions.write(first);
    await b.sessions.requestStop(cancelled.session.id, 'cancel');
    cancelled.startRound(1);
    expect(
      await a.sessions.write({ ...cancelled.step({ rounds: [1] }), run: 'later', after: first.events.at(-1)!.seq }),
    ).toStrictEqual({ stopRequested: 'cancel' });
    // Its instance gone: recovered as asked, cancelled for good (nothing hands it over), or deleted.
    const deleted = new FakeDebate({ owner: 'usr_stop' });
    await a.sessions.write({ ...deleted.start().step(), run: 'first' });
    await b.sessions.requestStop(deleted.session.id, 'delete');
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [a.sessions.instanceId]);
    const offered: string[] = [];
    b.sessions.onHandOver((id) => offered.push(id));
    expect((await b.sessions.recoverOrphan(cancelled.session.id, new Date()))?.status).toBe('cancelled');
    expect(await b.sessions.recoverOrphan(deleted.session.id, new Date())).toBeUndefined();
    expect(await b.sessions.get(deleted.session.id)).toBeUndefined();
    expect((await b.sessions.events(cancelled.session.id, 0)).at(-1)).toMatchObject({
      type: 'session.ended',
      status: 'cancelled',
    });
    await expect(b.sessions.resumeInterrupted(cancelled.session.id, new Date())).rejects.toMatchObject({ code: 'conflict' });
    expect(offered).toStrictEqual([]);
  });

  it("a tombstone outlives the sweep: a deleted session's late step is still gone after a recovery ran", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const d = new FakeDebate({ owner: 'usr_tomb' });
    const first = { ...d.start().step(), run: 'first' as const };
    await a.sessions.write(first);
    await b.sessions.delete(d.session.id);
    // The sweep's recovery also clears old tombstones: this one is not old.
    await b.sessions.recoverInterrupted(new Date());
    expect((await sql<{ n: number }>(url, 'SELECT count(*)::int AS n FROM deleted_sessions'))[0]!.n).toBe(1);
    await expect(a.sessions.write(first)).rejects.toMatchObject({ code: 'gone' });
    d.startRound(1);
    await expect(a.sessions.write({ ...d.step({ rounds: [1] }), run: 'later', after: 1 })).rejects.toMatchObject({
      code: 'gone',
    });
    expect(await b.sessions.get(d.session.id)).toBeUndefined();
  });

  it('a step retried after its first attempt committed unseen is written once, not refused', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const d = new FakeDebate({ owner: 'usr_retry' });
    await a.sessions.write({ ...d.start().step(), run: 'first' });
    d.startRound(1);
    d.answer(1, 1);
    const step = { ...d.step({ rounds: [1] }), run: 'later' as const };
    await a.sessions.write(step);
    await a.sessions.write(step);
    expect(await a.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
    expect(await a.sessions.get(d.session.id)).toStrictEqual(d.session);
  });

  it("a run's events reach B live, ahead of their commit, once B follows its session; and they are not changes", async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const d = new FakeDebate({ owner: 'usr_live' });
    const got = collector<[number, boolean]>();
    const changes = collector<string | undefined>();
    b.sessions.onChange(changes.push);
    await b.sessions.watch(d.session.id, (event, committed) => got.push([event.seq, committed]));
    await a.sessions.write({ ...d.start().step(), run: 'first' });
    await changes.until((all) => all.length === 1);
    // A sends live only once B's follow notice has reached it: publish until one arrives.
    const delta = (text: string) => d.raise({ type: 'answer.delta', round: 1, slot: 1, delta: text });
    d.startRound(1);
    await vi.waitFor(
      () => {
        a.sessions.publish(delta('x'));
        expect(got.got.length).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 30 },
    );
    const big = delta('y'.repeat(MAX_PAYLOAD_BYTES));
    const after = [delta('1'), delta('2')];
    for (const event of [big, ...after]) a.sessions.publish(event);
    await got.until((all) => all.some(([seq]) => seq === after[1]!.seq));
    // Live, in order; the event too big for a notice is left to its commit.
    const live = got.got.filter(([, committed]) => !committed).map(([seq]) => seq);
    expect(live).toStrictEqual([...live].sort((x, y) => x - y));
    expect(live).not.toContain(big.seq);
    expect(live.slice(-2)).toStrictEqual(after.map((e) => e.seq));
    expect(changes.got).toStrictEqual([d.session.id]);
    // The commit brings everything, the big one included, as committed.
    await a.sessions.write({ ...d.step({ rounds: [1] }), run: 'later' });
    await got.until((all) => all.some(([seq, committed]) => committed && seq === after[1]!.seq));
    expect(got.got.filter(([, committed]) => committed).map(([seq]) => seq)).toContain(big.seq);
  });

  it('a stop request reaches only the instances listening, and names the session and why', async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const heard = collector<[string, string]>();
    a.sessions.onStopRequest((id, reason) => heard.push([id, reason]));
    const ownHeard = collector<[string, string]>();
    b.sessions.onStopRequest((id, reason) => ownHeard.push([id, reason]));
    await b.sessions.requestStop('ses_X', 'cancel');
    await b.sessions.requestStop('ses_Y', 'delete');
    await heard.until((got) => got.length === 2);
    expect(heard.got).toStrictEqual([
      ['ses_X', 'cancel'],
      ['ses_Y', 'delete'],
    ]);
    // An instance's own requests are not news to it.
    expect(ownHeard.got).toStrictEqual([]);
  });

  it('holds a lease while open and gives it up on close', async () => {
    const url = await server!.createDatabase();
    const database = await PostgresDatabase.open(url, { leaseMs: 30_000 });
    const [lease] = await sql<{ left: number }>(
      url,
      'SELECT extract(epoch FROM expires_at - now()) AS left FROM instances WHERE id = $1',
      [database.sessions.instanceId],
    );
    expect(Number(lease!.left)).toBeGreaterThan(20);
    await database.close();
    await database.close();
    expect(await sql(url, 'SELECT id FROM instances WHERE id = $1', [database.sessions.instanceId])).toStrictEqual([]);
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: continuing an interrupted session', () => {
  it('waits for an instance holding the session row, then refuses to continue what it continued', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const d = new FakeDebate({ owner: 'usr_pg_continue' });
    await a.sessions.write(d.start().step());
    await a.sessions.recoverInterrupted(new Date());
    // Another instance mid-continue: it holds the row, and will have taken it back to running.
    const other = new Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [d.session.id]);
      const attempt = a.sessions.resumeInterrupted(d.session.id, new Date());
      attempt.catch(() => undefined);
      await vi.waitFor(
        async () => {
          const waiting = await sql<{ n: number }>(
            url,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          expect(waiting[0]!.n).toBe(1);
        },
        { timeout: 30_000 },
      );
      await other.query(`UPDATE sessions SET status = 'running', completed_at = NULL WHERE id = $1`, [d.session.id]);
      await other.query('COMMIT');
      const refused = await attempt.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreError);
      expect(refused).toMatchObject({ code: 'conflict' });
    } finally {
      await other.end();
    }
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: two servers on one database', () => {
  async function sse(on: Caller, path: string, init?: RequestInit): Promise<DebateEvent[]> {
    const res = await on.fetch(path, init);
    expect(res.status).toBe(200);
    const got: DebateEvent[] = [];
    for await (const message of readSse(res)) got.push(JSON.parse(message.data) as DebateEvent);
    return got;
  }

  it("follows a debate running on A from B, and B's cached copy gives way to A's later writes", async () => {
    const database = await server!.createDatabase();
    // A's offline models are paced, so the debate is still running when B looks.
    const a = await startServer({ CONSILIUM_DATABASE: database, CONSILIUM_OFFLINE_TOKEN_MS: '1' });
    const b = await startServer({ CONSILIUM_DATABASE: database });
    // Accounts live in the shared database too: A's user, with A's token, on B.
    const bAsA = caller(b.baseUrl, a.user, a.password, a.token);
    try {
      const streaming = sse(a, '/consilium/deep/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Followed from another server?', rounds: 2 }),
      });
      let id = '';
      await vi.waitFor(
        async () => {
          const page = (await (await bAsA.fetch(`/sessions`)).json()) as { items: { id: string; status: string }[] };
          id = page.items.find((s) => s.status === 'running')?.id ?? '';
          expect(id).not.toBe('');
        },
        { timeout: 30_000, interval: 20 },
      );
      // B reads (and caches) the session while it runs, then follows it to its end.
      const running = (await (await bAsA.fetch(`/sessions/${id}`)).json()) as { status: string };
      expect(running.status).toBe('running');
      const followed = await sse(bAsA, `/sessions/${id}/events`);
      const streamed = await streaming;
      expect(streamed.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
      expect(followed).toStrictEqual(streamed);

      const atA = await (await a.fetch(`/sessions/${id}`)).json();
      const atB = await (await bAsA.fetch(`/sessions/${id}`)).json();
      expect(atB).toStrictEqual(atA);
      expect(atB).toMatchObject({ status: 'completed' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: cancel and delete from any instance', () => {
  const json = { 'content-type': 'application/json' };
  async function pair() {
    const database = await server!.createDatabase();
    // Paced offline models: a 3-round debate runs for seconds.
    const a = await startServer({ CONSILIUM_DATABASE: database, CONSILIUM_OFFLINE_TOKEN_MS: '5' });
    const b = await startServer({ CONSILIUM_DATABASE: database });
    return { a, b, bAsA: caller(b.baseUrl, a.user, a.password, a.token) };
  }
  async function startOnA(a: Caller): Promise<string> {
    const res = await a.fetch('/consilium/deep', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ question: 'Stopped from another instance?', rounds: 3, detach: true }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { sessionId: string }).sessionId;
  }

  it("B cancels A's running debate: A stops it, and B answers with the session as A stored it", async () => {
    const { a, b, bAsA } = await pair();
    try {
      const id = await startOnA(a);
      expect(a.sessions.recorder.live(id)).toBeDefined();
      const res = await bAsA.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
      expect(res.status).toBe(200);
      const cancelled = (await res.json()) as { status: string; rounds: unknown[] };
      expect(cancelled.status).toBe('cancelled');
      // A's commit of the end, and its notice to B, race: A lets go of the run as its write returns.
      await vi.waitFor(() => expect(a.sessions.recorder.live(id)).toBeUndefined(), { timeout: 30_000, interval: 5 });
      expect(await (await a.fetch(`/sessions/${id}`)).json()).toStrictEqual(cancelled);
      // Once ended, a second cancel on either instance answers the same session.
      expect(await (await bAsA.fetch(`/sessions/${id}/cancel`, { method: 'POST' })).json()).toStrictEqual(cancelled);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("B deletes A's running debate: A stops it, and the session never comes back", async () => {
    const { a, b, bAsA } = await pair();
    try {
      const id = await startOnA(a);
      const live = a.sessions.recorder.live(id)!;
      expect((await bAsA.fetch(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
      await live.done;
      for (const on of [a, bAsA]) {
        expect((await on.fetch(`/sessions/${id}`)).status).toBe(404);
        expect((await on.fetch(`/sessions/${id}/events`)).status).toBe(404);
      }
      expect(await sql(b.config.database, 'SELECT id FROM sessions WHERE id = $1', [id])).toStrictEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('cancel of a session whose instance is gone ends it cancelled at once, for good, naming what was missing', async () => {
    const database = await server!.createDatabase();
    const b = await startServer({ CONSILIUM_DATABASE: database });
    const gone = await instance(database, { heartbeatMs: 3_600_000 });
    try {
      const d = new FakeDebate({ owner: b.user.id });
      await gone.sessions.write({ ...d.start().step(), run: 'first' });
      d.startRound(1);
      d.answer(1, 2);
      await gone.sessions.write({ ...d.step({ rounds: [1] }), run: 'later' });
      await sql(database, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        gone.sessions.instanceId,
      ]);
      const res = await b.fetch(`/sessions/${d.session.id}/cancel`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'cancelled', missingSlots: [1, 3, 4, 5] });
      // Nothing takes it up again: not a continue, not a hand-over (which takes only the interrupted).
      expect((await b.fetch(`/sessions/${d.session.id}/continue`, { method: 'POST' })).status).toBe(409);
      expect((await b.sessions.store.get(d.session.id))?.status).toBe('cancelled');
    } finally {
      await b.close();
    }
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: a cache that cannot go stale', () => {
  it('B reads every session from the database, caching none: a delete on A is seen on B at once', async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const sessionsB = await openSessions(b.sessions, { cacheSize: 10 });
    const d = new FakeDebate({ owner: 'usr_cache' });
    for (const step of debateSteps(d, 2, 1)) await a.sessions.write(step);
    expect((await sessionsB.get(d.session.id, 'usr_cache'))?.id).toBe(d.session.id);
    expect(sessionsB.cache.size).toBe(0);
    expect(await a.sessions.delete(d.session.id)).toBe(true);
    // Asked in the same turn as the delete returned, whatever B has heard of it by then.
    expect(await sessionsB.get(d.session.id, 'usr_cache')).toBeUndefined();
  });

  it("B's notifications drop: it says so when they go and when they are back", async () => {
    const url = await server!.createDatabase();
    const b = await instance(url);
    const logged: string[] = [];
    const logger = {
      debug() {},
      info: (msg: string) => logged.push(`info ${msg}`),
      warn: (msg: string) => logged.push(`warn ${msg}`),
      error() {},
    };
    await openSessions(b.sessions, { cacheSize: 10, logger });
    const heard = collector<string | undefined>();
    b.sessions.onChange(heard.push);
    const states: boolean[] = [];
    b.sessions.onChange((id) => id === undefined && states.push(b.sessions.hearsChanges()));
    await sql(url, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
      `consilium-listen ${b.sessions.instanceId}`,
    ]);
    await heard.until((got) => got.filter((id) => id === undefined).length === 2);
    expect(states).toStrictEqual([false, true]);
    expect(logged).toStrictEqual([
      'warn notifications from other instances lost: session cache cleared, reading from the database',
      'info notifications from other instances back: session cache cleared',
    ]);
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: failures and backup', () => {
  it('a server whose store has gone answers 503 store_unavailable with Retry-After, not 500', async () => {
    const app = await startServer({ CONSILIUM_DATABASE: await server!.createDatabase() });
    try {
      expect((await app.fetch('/sessions')).status).toBe(200);
      // The pool ended under the server: pg says so in words, which the store maps to `unavailable`.
      await app.database.close();
      for (const res of [
        await app.fetch('/sessions'),
        await app.fetch('/consilium', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'Still there?', detach: true }),
        }),
      ]) {
        expect([res.status, res.headers.get('retry-after'), res.headers.get('content-type')]).toEqual([
          503,
          '5',
          'application/problem+json',
        ]);
        expect(await res.json()).toMatchObject({ code: 'store_unavailable', status: 503 });
      }
    } finally {
      await app.close();
    }
  });

  it('a connection lost while a transaction holds it fails that transaction as unavailable, and the process lives on', async () => {
    const url = await server!.createDatabase();
    const pool = new Pool({ connectionString: url });
    pool.on('error', () => undefined);
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const transaction = poolAccess(pool).transaction(async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const pid = rows[0]!.pid;
        // Idle in the transaction when the backend ends: pg reports it as an 'error' event, not a rejected query.
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount) {}
        await client.query('SELECT 1');
      });
      await expect(transaction).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });
      // The lost connection left the pool; the next transaction gets a working one.
      await expect(poolAccess(pool).transaction(async (client) => (await client.query('SELECT 1 AS one')).rows)).resolves.toEqual(
        [{ one: 1 }],
      );
    } finally {
      await admin.end();
      await pool.end();
    }
  });

  it('every idle connection ended before the process hears of it: the next reads and transactions still succeed', async () => {
    const url = await server!.createDatabase();
    const pool = new Pool({ connectionString: url, max: 6 });
    pool.on('error', () => undefined);
    const access = poolAccess(pool);
    try {
      // Six idle connections, so a repeat that takes the next idle one finds another that has ended.
      const held = await Promise.all(Array.from({ length: 6 }, () => pool.connect()));
      for (const client of held) client.release();
      // psql ends them while this process is blocked, so its event loop has not read a single one's end yet.
      const psql = join(findPostgresBin()!, 'psql');
      const terminate = spawnSync(
        psql,
        [
          url,
          '-Atc',
          'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        ],
        { encoding: 'utf8' },
      );
      expect(terminate.stdout.trim()).toBe('6');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      await expect(
        Promise.all([
          access.query<{ one: number }>('SELECT 1 AS one').then((r) => r.rows),
          access.transaction(async (client) => (await client.query<{ two: number }>('SELECT 2 AS two')).rows),
        ]),
      ).resolves.toStrictEqual([[{ one: 1 }], [{ two: 2 }]]);
    } finally {
      await pool.end();
    }
  });

  it('reports a server it cannot reach, or a database that does not exist, as unavailable', async () => {
    const dead = new URL(server!.url);
    dead.port = '1';
    await expect(PostgresDatabase.open(dead.toString())).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });
    const missing = new URL(server!.url);
    missing.pathname = '/no_such_database';
    await expect(PostgresDatabase.open(missing.toString())).rejects.toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
    });
  });

  it('backs up with pg_dump, to a file pg_restore reads or straight into another database', async () => {
    const url = await server!.createDatabase();
    const database = await instance(url);
    const d = new FakeDebate({ owner: 'usr_backup' });
    for (const step of debateSteps(d, 2)) await database.sessions.write(step);

    const intoDb = await server!.createDatabase();
    await database.backup(intoDb);
    expect(await (await instance(intoDb)).sessions.get(d.session.id)).toStrictEqual(d.session);

    const dir = mkdtempSync(join(tmpdir(), 'consilium-pg-backup-'));
    try {
      const file = join(dir, 'sessions.dump');
      await database.backup(file);
      expect(statSync(file).size).toBeGreaterThan(0);
      const restored = await server!.createDatabase();
      const binDir = findPostgresBin();
      const pgRestore = binDir ? join(binDir, 'pg_restore') : 'pg_restore';
      const result = spawnSync(pgRestore, ['--no-owner', '--exit-on-error', `--dbname=${restored}`, file], { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      const copy = await instance(restored);
      expect(await copy.sessions.get(d.session.id)).toStrictEqual(d.session);
      expect(await copy.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says plainly that backup needs pg_dump when there is none', async () => {
    const database = await instance(await server!.createDatabase(), { pgDump: '/nonexistent/pg_dump' });
    const error = await database.backup(join(tmpdir(), 'never.dump')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('pg_dump') });
  });
});

describe.skipIf(!postgres.available)('PostgreSQL: limits shared by the instances', () => {
  const hour = (count: number) => ({ count, periodMs: 3_600_000 });

  it('counts one bucket for all instances, taken at once from each', async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const [atA, atB] = [a.limits.buckets('starts', hour(4)), b.limits.buckets('starts', hour(4))];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? atA : atB).take('usr_1')));
    expect(results.filter((r) => r === undefined)).toHaveLength(4);
    await atA.reset('usr_1');
    expect(await atB.take('usr_1')).toBeUndefined();
  });

  it('gives the last slot to one instance only; a stopped or dead instance’s slots are freed with its lease', async () => {
    const url = await server!.createDatabase();
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    const hung = await instance(url, { heartbeatMs: 3_600_000 });
    const stopping = await PostgresDatabase.open(url);
    const slots = (database: PostgresDatabase) => database.limits.slots('running', 3);
    expect(await slots(hung).acquire('usr_1')).toBeDefined();
    expect(await slots(stopping).acquire('usr_1')).toBeDefined();
    // One slot left: instances racing for it get it once.
    const raced = await Promise.all([a, b, a, b].map((d) => slots(d).acquire('usr_1')));
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await slots(a).held('usr_1')).toBe(3);

    // Stopped: its slot goes at once.
    await stopping.close();
    expect(await slots(b).held('usr_1')).toBe(2);
    expect(await slots(b).acquire('usr_1')).toBeDefined();
    expect(await slots(a).acquire('usr_1')).toBeUndefined();
    // Dead (its lease expired, never renewed): its slot no longer counts, and its row is dropped by the next acquire.
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [hung.sessions.instanceId]);
    expect(await slots(a).held('usr_1')).toBe(2);
    expect(await slots(a).acquire('usr_1')).toBeDefined();
    const rows = await sql<{ instance: string }>(url, 'SELECT instance FROM limit_slots');
    expect(rows.map((r) => r.instance)).not.toContain(hung.sessions.instanceId);
    expect(rows).toHaveLength(3);
  });

  it('keeps its tables in migration 6, the versions before it applied whatever their numbering', async () => {
    const url = await server!.createDatabase();
    await instance(url);
    const applied = await sql<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map((r) => r.version)).toContain(6);
    expect(migrations.find((m) => m.version === 6)?.sql).toMatch(/CREATE TABLE limit_buckets[\s\S]*CREATE TABLE limit_slots/);
  });
});
