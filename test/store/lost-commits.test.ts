/**
 * What a run does when its PostgreSQL store holds less than it committed (a failover to a standby that had not
 * received the last commits, here made by deleting those rows), and what instances do with sessions no run holds:
 * real PostgreSQL, real recorder and sessions layer, a debate played by `FakeDebate`. The failover itself, with a
 * real standby, is test/cluster/replication.test.ts.
 */
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../sdk/src/generated/types.gen.js';
import { type EventBody, EventLog } from '../../server/src/debate/events.js';
import { SessionCache } from '../../server/src/sessions/cache.js';
import { SessionRecorder } from '../../server/src/sessions/recorder.js';
import { Sessions } from '../../server/src/sessions/sessions.js';
import { PostgresDatabase } from '../../server/src/store/postgres/database.js';
import { FakeDebate } from '../support/fake-debate.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';

let server: TestPostgres | undefined;
beforeAll(async () => {
  if (postgres.available) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

async function sql(url: string, text: string, params?: unknown[]): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** An instance: its database and its sessions layer (recorder, checks every `checkEveryMs`). */
async function instance(url: string, options: { checkEveryMs?: number; handOverWaitMs?: number; gone?: boolean } = {}) {
  // One that will be "gone" renews no lease after its first: a test expires that one by hand.
  const database = await PostgresDatabase.open(url, {
    heartbeatMs: options.gone ? 3_600_000 : 200,
    leaseMs: 1000,
    recoverEveryMs: 0,
  });
  const cache = new SessionCache(10);
  const recorder = new SessionRecorder({ store: database.sessions, cache, flushMs: 5, retryMs: 10 });
  const { gone: _, ...timing } = options;
  const sessions = new Sessions({ store: database.sessions, cache, recorder, stopWaitMs: 100, ...timing });
  opened.push(database, { close: () => sessions.close(100) });
  return { database, sessions, recorder };
}

/** Raises on `log` what `d` raised since `from`; returns where it stopped. */
function pass(d: FakeDebate, log: EventLog, from: number): number {
  for (const e of d.raised.slice(from)) {
    const { v: _v, sessionId: _s, seq: _q, ts: _t, ...body } = e;
    log.emit(body as EventBody);
  }
  return d.raised.length;
}

/** A run of `d` recorded by `recorder`, as the engine hands it over. */
function run(recorder: SessionRecorder, d: FakeDebate, from: { afterSeq?: number; base?: number } = {}) {
  const log = new EventLog(d.session.id, from);
  const cancel = new AbortController();
  recorder.hook(cancel)(log, () => d.session);
  return { log, cancel, live: recorder.live(d.session.id)! };
}

/** What a promoted standby holds when it lacks every commit after event `seq` of `id`. */
async function loseAfter(url: string, id: string, seq: number, status = 'running'): Promise<void> {
  await sql(url, 'DELETE FROM events WHERE session_id = $1 AND seq > $2', [id, seq]);
  await sql(url, 'DELETE FROM event_archives WHERE session_id = $1', [id]);
  await sql(url, 'DELETE FROM verdicts WHERE session_id = $1', [id]);
  await sql(url, 'DELETE FROM consensus WHERE session_id = $1', [id]);
  await sql(url, 'DELETE FROM rounds WHERE session_id = $1 AND number > 1', [id]);
  await sql(url, 'UPDATE sessions SET status = $2, completed_at = NULL WHERE id = $1', [id, status]);
}

describe.skipIf(!postgres.available)('PostgreSQL: a store that lost commits', () => {
  it('a running run finds the hole at its next step and writes the whole session again: nothing lost, no gap', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const d = new FakeDebate({ owner: 'usr_lost', roundsRequested: 2 });
    const { log, live } = run(a.recorder, d);
    d.start().startRound(1);
    d.answer(1, 1);
    d.answer(1, 2);
    let from = pass(d, log, 0);
    await live.settled();
    await loseAfter(url, d.session.id, 2);
    for (const slot of [3, 4, 5]) d.answer(1, slot);
    d.endRound(1);
    for (let round = 2; round <= 2; round++) {
      d.startRound(round);
      for (const slot of [1, 2, 3, 4, 5]) d.answer(round, slot);
      d.endRound(round);
    }
    d.consensus();
    d.verdict();
    d.end('completed');
    from = pass(d, log, from);
    await live.done;
    const stored = await a.database.sessions.events(d.session.id, 0);
    expect(stored.map((e) => e.seq)).toStrictEqual(d.raised.map((e) => e.seq));
    expect(await a.database.sessions.get(d.session.id)).toStrictEqual(d.session);
  });

  it('an ended run is checked against the store a while: a lost tail is written again (verify), the session completed whole', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const d = new FakeDebate({ owner: 'usr_lost', roundsRequested: 2 });
    const { log, live } = run(a.recorder, d);
    d.start();
    let from = pass(d, log, 0);
    await live.settled();
    for (const round of [1, 2]) {
      d.startRound(round);
      for (const slot of [1, 2, 3, 4, 5]) d.answer(round, slot);
      d.endRound(round);
    }
    d.consensus();
    d.verdict();
    from = pass(d, log, from);
    d.end('completed');
    pass(d, log, from);
    await live.done;
    await a.database.sessions.archivesDone();
    await loseAfter(url, d.session.id, 3);
    expect(await a.recorder.verify()).toBe(1);
    await a.recorder.live(d.session.id)?.done;
    await expect.poll(async () => (await a.database.sessions.get(d.session.id))?.status).toBe('completed');
    expect((await a.database.sessions.events(d.session.id, 0)).map((e) => e.seq)).toStrictEqual(d.raised.map((e) => e.seq));
    expect(await a.database.sessions.get(d.session.id)).toStrictEqual(d.session);
    // Once whole, there is nothing to write again.
    expect(await a.recorder.verify()).toBe(0);
  });

  it('a session the store says runs here but no run holds (beyond what can be written again) is ended interrupted and handed over', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const offered: string[] = [];
    b.database.sessions.onHandOver((id) => offered.push(id));
    // A's run, its end lost and no longer held by any run here (a restart of the recorder, say).
    const d = new FakeDebate({ owner: 'usr_stale' });
    await a.database.sessions.write({ ...d.start().step(), run: 'first' });
    d.startRound(1).answer(1, 1);
    await a.database.sessions.write({ ...d.step({ rounds: [1] }), run: 'later', after: 1 });
    // B's run elsewhere is left alone: only A's own, and only those no run of A holds.
    const other = new FakeDebate({ owner: 'usr_stale' });
    await b.database.sessions.write({ ...other.start().step(), run: 'first' });
    const live = new FakeDebate({ owner: 'usr_stale' });
    const held = run(a.recorder, live);
    live.start();
    pass(live, held.log, 0);
    await held.live.settled();

    const ended = await a.sessions.checkRuns();
    expect(ended.map((s) => [s.id, s.status, s.missingSlots])).toStrictEqual([[d.session.id, 'interrupted', [2, 3, 4, 5]]]);
    await expect.poll(() => offered).toStrictEqual([d.session.id]);
    expect((await a.database.sessions.get(other.session.id))?.status).toBe('running');
    expect((await a.database.sessions.get(live.session.id))?.status).toBe('running');
    held.log.emit({ type: 'session.ended', status: 'cancelled', missingSlots: [], usage: d.session.usage, cost: d.session.cost });
    await held.live.done;
  });

  it('a follower on B keeps one stream across a hand-over: no interrupted end, the continued run, the real end', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url, { gone: true });
    const b = await instance(url, { checkEveryMs: 50 });
    const d = new FakeDebate({ owner: 'usr_handover' });
    await a.database.sessions.write({ ...d.start().step(), run: 'first' });
    d.startRound(1).answer(1, 1);
    await a.database.sessions.write({ ...d.step({ rounds: [1] }), run: 'later', after: 1 });
    const sent: DebateEvent[] = [];
    const following = b.sessions.follow(
      (await b.sessions.get(d.session.id, 'usr_handover'))!,
      0,
      async (e) => {
        sent.push(e);
      },
      new AbortController().signal,
    );
    await expect.poll(() => sent.length).toBe(d.raised.length);
    // A is gone: B's follower, hearing nothing, ends the session as recovery does (its end appended, and held);
    // then C continues it, as a hand-over does.
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      a.database.sessions.instanceId,
    ]);
    await expect.poll(async () => (await b.database.sessions.get(d.session.id))?.status).toBe('interrupted');
    const c = await instance(url);
    const resumed = (await c.database.sessions.resumeInterrupted(d.session.id, new Date()))!;
    const continued = new FakeDebate({ owner: 'usr_handover', id: d.session.id, firstSeq: resumed.afterSeq + 1 });
    Object.assign(continued.session, { ...resumed.session, rounds: structuredClone(resumed.session.rounds) });
    const { log, live } = run(c.recorder, continued, { afterSeq: resumed.afterSeq, base: resumed.storedTop });
    continued.startRound(2);
    for (const slot of [1, 2, 3, 4, 5]) continued.answer(2, slot);
    continued.endRound(2);
    const from = pass(continued, log, 0);
    await live.settled();
    continued.end('completed');
    pass(continued, log, from);
    await live.done;
    await following;
    const types = sent.map((e) => [e.type, (e as { status?: string }).status]);
    expect(types.filter(([type]) => type === 'session.ended')).toStrictEqual([['session.ended', 'completed']]);
    expect(sent.map((e) => e.seq)).toStrictEqual([...d.raised.map((e) => e.seq), ...continued.raised.map((e) => e.seq)]);
  });

  it('a record an earlier failover left with a hole is found as it is archived: interrupted, what it lacks named, offered to continue', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url);
    const offered: string[] = [];
    a.database.sessions.onHandOver((id) => offered.push(id));
    const d = new FakeDebate({ owner: 'usr_damaged', roundsRequested: 2 }).start();
    for (const round of [1, 2]) {
      d.startRound(round);
      for (const slot of [1, 2, 3, 4, 5]) d.answer(round, slot);
      d.endRound(round);
    }
    d.consensus();
    d.verdict();
    d.end('completed');
    // As a store that accepted steps after a hole left it: events 4–9 missing, the session completed.
    for (const step of [{ ...d.step({ rounds: [1, 2], consensus: true, verdict: true }), run: 'first' as const }])
      await a.database.sessions.write({ ...step, events: step.events.filter((e) => e.seq < 4 || e.seq > 9) });
    await a.database.sessions.archivesDone();
    expect((await a.database.sessions.get(d.session.id))?.status).toBe('interrupted');
    const end = (await a.database.sessions.events(d.session.id, 0)).at(-1);
    expect(end).toMatchObject({
      type: 'session.ended',
      status: 'interrupted',
      error: 'interrupted: events 4–9 of the session were lost (a database failover?)',
    });
    expect(offered).toStrictEqual([d.session.id]);
    // Continued to its end, the range it was found to lack is not found again.
    const resumed = (await a.database.sessions.resumeInterrupted(d.session.id, new Date()))!;
    await a.database.sessions.write({
      session: { ...resumed.session, status: 'completed', completedAt: new Date().toISOString() },
      events: [{ ...d.raised.at(-1)!, seq: resumed.afterSeq + 1 }],
      run: 'first',
    });
    await a.database.sessions.archivesDone();
    expect((await a.database.sessions.get(d.session.id))?.status).toBe('completed');
    expect(offered).toStrictEqual([d.session.id]);
  });

  it('a follower whose session’s instance is gone, with no notice to wake it, ends with the recovery’s end on its own', async () => {
    const url = await server!.createDatabase();
    const a = await instance(url, { gone: true });
    const b = await instance(url, { checkEveryMs: 50, handOverWaitMs: 0 });
    const d = new FakeDebate({ owner: 'usr_quiet' });
    await a.database.sessions.write({ ...d.start().step(), run: 'first' });
    await sql(url, `UPDATE instances SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      a.database.sessions.instanceId,
    ]);
    const sent: DebateEvent[] = [];
    await b.sessions.follow(
      (await b.sessions.get(d.session.id, 'usr_quiet'))!,
      0,
      async (e) => {
        sent.push(e);
      },
      new AbortController().signal,
    );
    expect(sent.at(-1)).toMatchObject({ type: 'session.ended', status: 'interrupted' });
  });
});
