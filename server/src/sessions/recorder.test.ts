import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { endedBody, FakeDebate } from '../../../test/support/fake-debate.js';
import type { Logger } from '../config/log.js';
import { type EventBody, EventLog } from '../debate/events.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import { SessionCache } from './cache.js';
import { type RecorderOptions, SessionRecorder, STORE_UNAVAILABLE } from './recorder.js';
import { Sessions } from './sessions.js';
import { type SessionStore, type Step, StoreError, UNSAVED_SEQ_LIMIT } from './store.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;
/** Commits wait for this to be called, so a test can look between "raised" and "committed". */
let openGate: () => void;
let gate: Promise<void>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-recorder-'));
  db = await SqliteDatabase.open(join(dir, 'sessions.db'));
  store = db.sessions;
  gate = new Promise((resolve) => (openGate = resolve));
  const write = store.write.bind(store);
  store.write = async (step: Step) => {
    await gate;
    return write(step);
  };
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A recorder on the test store (its own cache unless given one; a 5 ms flush interval unless `options` are given)
 * hooked to a run of `debate`, with the run's cancel controller and every event its subscriber saw.
 */
function record(
  options: Omit<RecorderOptions, 'store' | 'cache'> & { cache?: SessionCache } = { flushMs: 5 },
  debate = new FakeDebate({ owner: 'local' }),
) {
  const recorder = new SessionRecorder({ store, cache: new SessionCache(), ...options });
  const log = new EventLog(debate.session.id);
  const cancel = new AbortController();
  recorder.hook(cancel)(log, () => debate.session);
  const live = recorder.live(log.sessionId)!;
  const seen: DebateEvent[] = [];
  live.subscribe((e) => seen.push(e));
  return { recorder, debate, log, live, seen, cancel };
}

const answerDelta = (seq: number) => ({ type: 'answer.delta', round: 1, slot: 1, delta: `t${seq}` }) as const;

/** Raises on `log` what `d` raised since `from` (the same bodies; the log numbers them alike). */
function pass(d: FakeDebate, log: EventLog, from: number, to = d.raised.length): number {
  for (const e of d.raised.slice(from, to)) {
    const { v: _v, sessionId: _s, seq: _q, ts: _t, ...body } = e;
    log.emit(body as EventBody);
  }
  return to;
}

it('shows nothing before the first commit; then every event but the verdict, consensus and end, which wait for theirs', async () => {
  const d = new FakeDebate({ owner: 'local', roundsRequested: 2 });
  const { log, seen, live } = record({ flushMs: 5 }, d);
  d.start();
  pass(d, log, 0);
  log.emit(answerDelta(2));
  // Not stored yet: a client given its id could not read the session back.
  expect(seen).toEqual([]);
  expect(live.released).toEqual([]);
  openGate();
  await vi.waitFor(() => expect(seen.map((e) => e.seq)).toEqual([1, 2]));
  await live.settled();

  // Writes held again: what is raised now is shown ahead of its commit, but for the verdict, consensus and end.
  gate = new Promise((resolve) => (openGate = resolve));
  let from = d.raised.length;
  d.startRound(1);
  d.answer(1, 1);
  d.endRound(1);
  d.consensus();
  from = pass(d, log, from);
  expect(seen.at(-1)?.seq).toBe(log.lastSeq - 1);
  expect(seen.some((e) => e.type === 'consensus')).toBe(false);
  d.verdict();
  pass(d, log, from);
  log.emit(endedBody());
  expect(seen.some((e) => e.type === 'verdict' || e.type === 'session.ended')).toBe(false);
  openGate();
  await live.done;
  expect(seen.map((e) => e.type).slice(-4)).toEqual(['consensus', 'synthesis.started', 'verdict', 'session.ended']);
  expect(seen.map((e) => e.seq)).toEqual((await store.events(log.sessionId, 0)).map((e) => e.seq));
});

it('keeps a run live, its `done` pending, until the step carrying its end commits', async () => {
  const { recorder, log, live } = record();
  let finished = false;
  void live.done.then(() => {
    finished = true;
  });
  openGate();
  log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
  await live.settled();
  // A step committed with nothing else pending is not the end of the run: not even once a later write, which the
  // flush timer starts, has committed too.
  log.emit(answerDelta(2));
  await expect.poll(async () => (await store.events(log.sessionId, 0)).map((e) => e.seq), { timeout: 30_000 }).toEqual([1, 2]);
  await live.settled();
  expect(finished).toBe(false);
  expect(recorder.live(log.sessionId)).toBe(live);
  expect(recorder.running).toBe(1);
  log.emit(endedBody());
  await live.done;
  expect(recorder.live(log.sessionId)).toBeUndefined();
  expect(recorder.running).toBe(0);
});

it('writes a session one step at a time: nothing starts while a write is in flight, even on `settled()`', async () => {
  // A fake clock, so every flush timer the recorder sets while the write is held has fired before the check.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const { recorder, log, live } = record();
  let inFlight = 0;
  let most = 0;
  const write = store.write.bind(store);
  store.write = async (step: Step) => {
    most = Math.max(most, ++inFlight);
    try {
      return await write(step);
    } finally {
      inFlight--;
    }
  };
  log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
  log.emit(answerDelta(2));
  log.emit({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true });
  void recorder.settled();
  await vi.advanceTimersByTimeAsync(1000);
  expect(inFlight).toBe(1);
  log.emit(endedBody());
  openGate();
  await vi.advanceTimersByTimeAsync(1000);
  await live.done;
  expect(most).toBe(1);
  expect((await store.events(log.sessionId, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
});

it('writes deltas raised while a step is being written after it, with no further event to carry them', async () => {
  // A fake clock run past the delta's flush timer (5 ms) while the first write is still held: it has fired.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  const { log, live } = record();
  log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
  log.emit(answerDelta(2));
  await vi.advanceTimersByTimeAsync(1000);
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
  openGate();
  await expect.poll(async () => (await store.events(log.sessionId, 0)).map((e) => e.seq), { timeout: 30_000 }).toEqual([1, 2]);
  log.emit(endedBody());
  await live.done;
});

it(`shows events up to ${UNSAVED_SEQ_LIMIT} above the last commit, and holds the rest until commits catch up`, async () => {
  const { log, seen, live } = record();
  log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
  openGate();
  await vi.waitFor(() => expect(seen.map((e) => e.seq)).toEqual([1]));
  await live.settled();
  // Held again, so only seq 1 is committed while seq 2 … UNSAVED_SEQ_LIMIT + 2 are raised.
  gate = new Promise((resolve) => (openGate = resolve));
  for (let seq = 2; seq <= UNSAVED_SEQ_LIMIT + 2; seq++) log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'x' });
  expect(seen).toHaveLength(UNSAVED_SEQ_LIMIT + 1);
  expect(seen.at(-1)?.seq).toBe(UNSAVED_SEQ_LIMIT + 1);
  expect(live.released.at(-1)?.seq).toBe(UNSAVED_SEQ_LIMIT + 1);
  expect(live.released[0]?.seq).toBe(2);
  openGate();
  log.emit(endedBody());
  await live.done;
  // Every commit released what it allowed, in order, with nothing skipped or repeated, the end last.
  expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: UNSAVED_SEQ_LIMIT + 3 }, (_, i) => i + 1));
  expect(seen.at(-1)?.type).toBe('session.ended');
});

it('shows nothing of a continued run (numbered after an interrupted end) before its first commit', async () => {
  // So a stop before that commit leaves nothing shown above the end recovery numbers again (see `Resumed.afterSeq`).
  const recorder = new SessionRecorder({ store, cache: new SessionCache(), flushMs: 5 });
  const debate = new FakeDebate({ owner: 'local' });
  const log = new EventLog(debate.session.id, { afterSeq: 40 + UNSAVED_SEQ_LIMIT + 1 });
  recorder.hook(new AbortController())(log, () => debate.session);
  const live = recorder.live(log.sessionId)!;
  const seen: DebateEvent[] = [];
  live.subscribe((e) => seen.push(e));
  log.emit({ type: 'round.started', round: 2, kind: 'critique', slots: [4, 5] });
  log.emit({ type: 'answer.delta', round: 2, slot: 4, delta: 'x' });
  expect(seen).toEqual([]);
  openGate();
  await vi.waitFor(() => expect(seen.map((e) => e.seq)).toEqual([UNSAVED_SEQ_LIMIT + 42, UNSAVED_SEQ_LIMIT + 43]));
  log.emit(endedBody());
  await live.done;
});

it('holds the end while its write fails, until a retry commits it', async () => {
  const { log, seen, live } = record();
  let fail = true;
  const write = store.write.bind(store);
  store.write = async (step: Step) => {
    if (fail) throw new Error('disk full');
    return write(step);
  };
  openGate();
  log.emit(endedBody());
  await live.settled();
  expect(seen).toEqual([]);
  fail = false;
  await expect.poll(() => seen.map((e) => e.type), { timeout: 30_000 }).toEqual(['session.ended']);
  expect((await store.events(log.sessionId, 0)).map((e) => e.seq)).toEqual([1]);
});

describe('a store that stays down', () => {
  function failingAfterFirst() {
    const write = store.write.bind(store);
    let writes = 0;
    store.write = async (step: Step) => {
      if (writes++ > 0) throw new Error('SQLITE_IOERR: disk I/O error');
      return write(step);
    };
    openGate();
  }

  it('retries for a bounded time, then stops the run and ends it failed with a stable reason, last', async () => {
    failingAfterFirst();
    const { recorder, log, live, seen, cancel } = record({ flushMs: 5, giveUpAfterMs: 100, retryMs: 10 });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] });
    await live.settled();
    log.emit({ type: 'answer.delta', round: 1, slot: 2, delta: 'half an answer' });
    const failed = await live.done;
    expect(failed).toMatchObject({ status: 'failed', missingSlots: [1, 2] });
    expect(cancel.signal.aborted).toBe(true);
    const end = seen.at(-1)!;
    expect(end).toMatchObject({ type: 'session.ended', status: 'failed', seq: 3, missingSlots: [1, 2] });
    expect(end.type === 'session.ended' && end.error?.startsWith(`${STORE_UNAVAILABLE}:`)).toBe(true);
    // The run's own end, raised as it stops, is not shown after it.
    log.emit(endedBody());
    expect(seen.at(-1)).toBe(end);
    // Live until its end is stored: a cancel or a replay here finds how it ended.
    expect(recorder.live(log.sessionId)).toBe(live);
    expect(live.released.at(-1)).toBe(end);
  });

  it('keeps a given-up run live until its end is stored, then stores it as soon as the store takes writes again', async () => {
    const write = store.write.bind(store);
    let down = false;
    store.write = async (step: Step) => {
      if (down) throw new Error('SQLITE_FULL: database or disk is full');
      return write(step);
    };
    openGate();
    const { recorder, log, live } = record({ flushMs: 5, giveUpAfterMs: 100, retryMs: 10 });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await live.settled();
    down = true;
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'x' });
    await live.done;
    log.emit(endedBody());
    expect(recorder.live(log.sessionId)).toBe(live);
    expect((await store.get(log.sessionId))?.status).toBe('running');
    down = false;
    await expect.poll(async () => (await store.get(log.sessionId))?.status).toBe('failed');
    await expect.poll(() => recorder.live(log.sessionId)).toBeUndefined();
    expect((await store.events(log.sessionId, 0)).at(-1)).toMatchObject({ type: 'session.ended', status: 'failed' });
  });

  it('stores the failed session whole on giving up (rounds, consensus, verdict) in the store and the cache, once', async () => {
    openGate();
    // Down for every write but the one carrying the end, which the give-up raises.
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      if (!step.events.some((e) => e.type === 'session.ended')) throw new Error('SQLITE_IOERR: disk I/O error');
      return write(step);
    };
    const cache = new SessionCache();
    const {
      recorder,
      debate: d,
      log,
      live,
      seen,
    } = record({ cache, flushMs: 5, giveUpAfterMs: 100, retryMs: 10 }, new FakeDebate({ owner: 'local', roundsRequested: 2 }));
    d.start();
    for (const n of [1, 2]) {
      d.startRound(n);
      d.answer(n, 1);
      d.fail(n, 2);
      d.endRound(n);
    }
    d.consensus();
    d.verdict();
    pass(d, log, 0);
    const failed = (await live.done)!;
    await live.settled();
    expect(failed).toMatchObject({
      status: 'failed',
      rounds: d.session.rounds,
      consensus: d.session.consensus,
      verdict: d.session.verdict,
    });
    expect(failed.rounds).toHaveLength(2);
    expect(await store.get(d.session.id)).toEqual(failed);
    expect(cache.get(d.session.id)).toEqual(failed);
    const end = d.raised.length + 1;
    expect((await store.events(d.session.id, 0)).map((e) => e.seq)).toEqual([...d.raised.map((e) => e.seq), end]);
    // Settling again (as a shutdown would, before the run's own end) writes nothing more and ends nothing twice.
    await recorder.settled();
    expect(seen.filter((e) => e.type === 'session.ended')).toHaveLength(1);
    expect((await store.events(d.session.id, 0)).at(-1)?.seq).toBe(end);
  });

  it('lets a delete of the session finish instead of waiting for writes that will not come', async () => {
    failingAfterFirst();
    const cache = new SessionCache();
    const recorder = new SessionRecorder({ store, cache, flushMs: 5, giveUpAfterMs: 100, retryMs: 10 });
    const sessions = new Sessions({ store, cache, recorder });
    const debate = new FakeDebate({ owner: 'local' });
    const log = new EventLog(debate.session.id);
    const cancel = new AbortController();
    recorder.hook(cancel)(log, () => debate.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await recorder.live(log.sessionId)!.settled();
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'x' });
    // The run stops when cancelled, as the engine's does.
    cancel.signal.addEventListener('abort', () => log.emit(endedBody()));
    expect(await sessions.delete(log.sessionId, 'local')).toBe(true);
    expect(await store.get(log.sessionId)).toBeUndefined();
  });
});

describe('what the store holds as a run is recorded', () => {
  it('after each step commits, the session reads back as the run had it then: rounds, answers, failures, consensus, verdict, end', async () => {
    openGate();
    const cache = new SessionCache();
    const {
      recorder,
      debate: d,
      log,
      live,
    } = record({ cache, flushMs: 5 }, new FakeDebate({ owner: 'local', roundsRequested: 2 }));
    let from = 0;
    const check = async (what: string) => {
      from = pass(d, log, from);
      await recorder.settled();
      expect(await store.get(d.session.id), what).toEqual(d.session);
      expect(cache.get(d.session.id), what).toEqual(d.session);
      expect(
        (await store.events(d.session.id, 0)).map((e) => e.seq),
        what,
      ).toEqual(d.raised.map((e) => e.seq));
    };
    d.start();
    await check('started');
    for (const n of [1, 2]) {
      d.startRound(n);
      await check(`round ${n} started`);
      d.answer(n, 1);
      await check(`round ${n}: slot 1 answered`);
      d.fail(n, 2);
      // As the engine does: a round's missing slots are set when it ends.
      const missing = d.round(n).missingSlots.splice(0);
      await check(`round ${n}: slot 2 failed`);
      d.answer(n, 3);
      await check(`round ${n}: slot 3 answered`);
      d.round(n).missingSlots.push(...missing);
      d.endRound(n);
      await check(`round ${n} ended`);
    }
    d.consensus();
    await check('consensus');
    d.verdict();
    await check('verdict');
    d.end('partial');
    await check('ended');
    expect(await live.done).toBeUndefined();
    expect(recorder.live(d.session.id)).toBeUndefined();
    expect(recorder.running).toBe(0);
  });

  it('events raised while a write is in flight go in the next one, and the end waits for all of them', async () => {
    const cache = new SessionCache();
    const {
      recorder,
      debate: d,
      log,
      live,
    } = record({ cache, flushMs: 5 }, new FakeDebate({ owner: 'local', roundsRequested: 2 }));
    const writes: Step[] = [];
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      writes.push(step);
      return write(step);
    };
    // The first step is held at the gate; everything after it is raised meanwhile.
    d.start();
    let from = pass(d, log, 0);
    d.startRound(1);
    d.answer(1, 1);
    d.answer(1, 2);
    d.endRound(1);
    d.consensus();
    d.verdict();
    d.end();
    from = pass(d, log, from);
    expect(recorder.running).toBe(1);
    openGate();
    await live.done;
    expect(writes.length).toBe(2);
    expect(writes[1]).toMatchObject({ rounds: [1], consensus: true, verdict: true });
    expect(await store.get(d.session.id)).toEqual(d.session);
    expect(recorder.running).toBe(0);
    expect(from).toBe(d.raised.length);
  });

  it('a verdict and the end raised together are one write, so the end waits for one commit, not two', async () => {
    openGate();
    const { recorder, debate: d, log, live } = record({ flushMs: 1000 }, new FakeDebate({ owner: 'local' }));
    const writes: Step[] = [];
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      writes.push(step);
      return write(step);
    };
    d.start();
    let from = pass(d, log, 0);
    await recorder.settled();
    d.verdict();
    from = pass(d, log, from, from + 1); // `synthesis.started`, written on its own
    await recorder.settled();
    from = pass(d, log, from);
    // As the engine does: the end follows its verdict a few microtasks later.
    await Promise.resolve();
    d.end();
    pass(d, log, from);
    await live.done;
    expect(writes.map((w) => w.events.map((e) => e.type))).toEqual([
      ['session.started'],
      ['synthesis.started'],
      ['verdict', 'session.ended'],
    ]);
    expect(writes[2]).toMatchObject({ verdict: true });
    expect(await store.get(d.session.id)).toEqual(d.session);
  });

  it('a step whose write failed is written whole by the retry: its rounds, consensus and verdict too', async () => {
    openGate();
    const cache = new SessionCache();
    const {
      debate: d,
      log,
      live,
    } = record({ cache, flushMs: 5, retryMs: 10 }, new FakeDebate({ owner: 'local', roundsRequested: 1 }));
    d.start();
    let from = pass(d, log, 0);
    await live.settled();
    let failures = 0;
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      if (failures++ < 2) throw new Error('SQLITE_BUSY: database is locked');
      return write(step);
    };
    d.startRound(1);
    d.answer(1, 1);
    d.fail(1, 2);
    d.endRound(1);
    d.consensus();
    d.verdict();
    d.end('partial');
    from = pass(d, log, from);
    await live.done;
    expect(failures).toBeGreaterThan(2);
    expect(await store.get(d.session.id)).toEqual(d.session);
    expect((await store.events(d.session.id, 0)).map((e) => e.seq)).toEqual(d.raised.map((e) => e.seq));
  });

  it('a listener that throws does not keep the event from the others', async () => {
    const { log, seen, live } = record();
    live.subscribe(() => {
      throw new Error('closed stream');
    });
    const late: DebateEvent[] = [];
    live.subscribe((e) => late.push(e));
    openGate();
    log.emit(answerDelta(1));
    await vi.waitFor(() => expect(seen.map((e) => e.seq)).toEqual([1]));
    expect(late.map((e) => e.seq)).toEqual([1]);
    const unsubscribe = live.subscribe((e) => late.push(e));
    unsubscribe();
    log.emit(answerDelta(2));
    expect(late.map((e) => e.seq)).toEqual([1, 2]);
  });
});

/** A logger that keeps what it is given. */
function keptLog() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, msg, ...(fields && { fields }) });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

describe('timing and what the operator is told', () => {
  it('deltas wait for the flush interval (200 ms by default) when no step comes', async () => {
    openGate();
    const recorder = new SessionRecorder({ store, cache: new SessionCache() });
    const d = new FakeDebate({ owner: 'local' });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await recorder.live(log.sessionId)!.settled();
    let written: number | undefined;
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      written ??= Date.now();
      return write(step);
    };
    const raised = Date.now();
    log.emit(answerDelta(2));
    await expect.poll(async () => (await store.events(log.sessionId, 0)).map((e) => e.seq), { timeout: 30_000 }).toEqual([1, 2]);
    // Written by the timer, no sooner than 200 ms after it was raised (a lower bound holds however slow the machine).
    expect(written! - raised).toBeGreaterThanOrEqual(195);
    log.emit(endedBody());
    await recorder.live(log.sessionId)!.done;
  });

  it('deltas (answer or verdict) raised while a step is written still wait the flush interval, not just the commit', async () => {
    const recorder = new SessionRecorder({ store, cache: new SessionCache(), flushMs: 200 });
    const d = new FakeDebate({ owner: 'local' });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    const writes: { at: number; seqs: number[] }[] = [];
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      writes.push({ at: Date.now(), seqs: step.events.map((e) => e.seq) });
      return write(step);
    };
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    // Raised while that step is held at the gate; then it commits at once.
    const raised = Date.now();
    log.emit(answerDelta(2));
    log.emit({ type: 'verdict.delta', slot: 1, attempt: 1, field: 'summary', delta: 'Shard' });
    openGate();
    await expect.poll(() => writes.length, { timeout: 30_000 }).toBe(2);
    expect(writes[1]!.seqs).toEqual([2, 3]);
    // A lower bound, so it holds however slow the machine.
    expect(writes[1]!.at - raised).toBeGreaterThanOrEqual(195);
    log.emit(endedBody());
    await recorder.live(log.sessionId)!.done;
  });

  it('a failed write is logged and retried no sooner than the flush interval, even when the retry wait is shorter', async () => {
    openGate();
    const { lines, logger } = keptLog();
    const recorder = new SessionRecorder({ store, cache: new SessionCache(), logger, flushMs: 150, retryMs: 1 });
    const d = new FakeDebate({ owner: 'local' });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    const attempts: number[] = [];
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      attempts.push(Date.now());
      if (attempts.length === 1) throw new Error('SQLITE_BUSY: database is locked');
      return write(step);
    };
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    log.emit(endedBody());
    await recorder.live(log.sessionId)!.done;
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(140);
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'session write failed; retrying',
        fields: { sessionId: log.sessionId, events: 1, error: 'SQLITE_BUSY: database is locked' },
      },
    ]);
  });

  it('gives up after 30 s of failing writes by default (retrying each second), naming how long and why', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      openGate();
      const { lines, logger } = keptLog();
      const { log, live, seen, cancel } = record({ logger });
      // Down for every write but the one carrying the end, which the give-up raises.
      const write = store.write.bind(store);
      store.write = async (step: Step) => {
        if (!step.events.some((e) => e.type === 'session.ended')) throw 'disk gone';
        return write(step);
      };
      log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] });
      await vi.advanceTimersByTimeAsync(29_500);
      expect(cancel.signal.aborted).toBe(false);
      const retries = lines.filter((l) => l.msg === 'session write failed; retrying');
      expect(retries.length).toBeGreaterThanOrEqual(29);
      expect(retries.length).toBeLessThanOrEqual(30);
      expect(retries[0]?.fields).toEqual({ sessionId: log.sessionId, events: 1, error: 'disk gone' });
      await vi.advanceTimersByTimeAsync(1000);
      expect(cancel.signal.aborted).toBe(true);
      const error = 'store_unavailable: the session store failed for 30 s (disk gone); the run was stopped';
      expect(cancel.signal.reason).toEqual(new Error(error));
      expect(lines.at(-1)).toEqual({
        level: 'error',
        msg: 'session store unavailable; run stopped',
        fields: { sessionId: log.sessionId, error },
      });
      expect(await live.done).toMatchObject({ status: 'failed', missingSlots: [1, 2] });
      expect(seen.at(-1)).toMatchObject({ type: 'session.ended', seq: 2, status: 'failed', error });
      await live.settled();
      vi.useRealTimers();
      // That last write stored the run's events and its end, and the failed session whole.
      const stored = await store.get(log.sessionId);
      expect(stored).toMatchObject({ status: 'failed', missingSlots: [1, 2] });
      expect(stored?.completedAt).toBe(stored?.updatedAt);
      expect((await store.events(log.sessionId, 0)).map((e) => [e.seq, e.type])).toEqual([
        [1, 'round.started'],
        [2, 'session.ended'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the first write (what a detached start waits on)', () => {
  it('firstWrite resolves once the first step commits, and stays resolved when a later write fails', async () => {
    const { log, live } = record();
    let settled = false;
    void live.firstWrite.then(() => (settled = true));
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const held = store.write.bind(store);
    store.write = (step: Step) => {
      reached();
      return held(step);
    };
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    // Not before the commit: the write has reached the gate, which holds it, and what it started has run
    // (a turn of the event loop runs every callback already queued).
    await atGate;
    await new Promise(setImmediate);
    expect(settled).toBe(false);
    openGate();
    await live.firstWrite;
    expect((await store.get(log.sessionId))?.status).toBe('running');
    store.write = async () => {
      throw new Error('SQLITE_IOERR: disk I/O error');
    };
    log.emit({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true });
    await live.settled();
    await expect(live.firstWrite).resolves.toBeUndefined();
  });

  it('firstWrite rejects with the store error; discard stops the run and nothing of it is written, even once the store is back', async () => {
    // A fake clock, so every flush and retry the recorder could have set has fired before the check.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const write = store.write.bind(store);
    let writes = 0;
    let failing = true;
    store.write = async (step: Step) => {
      writes++;
      if (failing) throw new Error('SQLITE_BUSY: database is locked');
      return write(step);
    };
    openGate();
    const { recorder, log, live, seen, cancel } = record({ flushMs: 5, retryMs: 10, giveUpAfterMs: 60_000 });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await expect(live.firstWrite).rejects.toThrow('SQLITE_BUSY');
    live.discard(new Error(`${STORE_UNAVAILABLE}: refused`));
    expect(cancel.signal.aborted).toBe(true);
    await expect(live.done).resolves.toBeUndefined();
    failing = false;
    // What the run raises as it stops (its end) is neither shown nor written, and no retry comes.
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'late' });
    log.emit(endedBody());
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes).toBe(1);
    expect(await store.get(log.sessionId)).toBeUndefined();
    // Never stored, so never shown.
    expect(seen).toEqual([]);
    expect(recorder.live(log.sessionId)).toBeUndefined();
  });
});

describe('observeWrites', () => {
  it('tells each observer every write: its events, its time, and whether it committed; until stopped', async () => {
    const write = store.write.bind(store);
    let fail = false;
    store.write = async (step: Step) => {
      if (fail) throw new Error('SQLITE_BUSY: database is locked');
      return write(step);
    };
    openGate();
    const { recorder, log, live } = record({ flushMs: 5, giveUpAfterMs: 60_000, retryMs: 5 });
    const writes: { events: number; ms: number; ok: boolean }[] = [];
    const stop = recorder.observeWrites((w) => writes.push(w));
    // An observer that throws changes nothing for the run or the others.
    recorder.observeWrites(() => {
      throw new Error('a broken metric');
    });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    log.emit(answerDelta(2));
    log.emit({ type: 'round.ended', round: 1 } as EventBody);
    await live.settled();
    expect(writes.filter((w) => w.ok).reduce((n, w) => n + w.events, 0)).toBe(3);
    expect(writes.every((w) => w.ms >= 0)).toBe(true);

    fail = true;
    log.emit({ type: 'round.started', round: 2, kind: 'critique', slots: [1] });
    await vi.waitFor(() => expect(writes.some((w) => !w.ok && w.events === 1)).toBe(true));
    fail = false;
    await vi.waitFor(() => expect(writes.at(-1)).toMatchObject({ ok: true, events: 1 }));
    stop();
    const seen = writes.length;
    log.emit(endedBody());
    await live.done;
    expect(writes.length).toBe(seen);
  });
});

describe('a session taken from its run (deleted, or ended by another instance)', () => {
  it("stops the run, writes nothing more, and ends its followers' streams as cancelled, saying why", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'consilium-recorder-gone-'));
    const db = await SqliteDatabase.open(join(dir, 'gone.db'));
    onTestFinished(async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const steps: Step[] = [];
    let gone = false;
    const store: SessionStore = Object.assign(Object.create(db.sessions) as SessionStore, {
      write: async (step: Step) => {
        steps.push(step);
        if (gone) throw new StoreError('gone', 'Session was deleted.');
        return db.sessions.write(step);
      },
    });
    const cache = new SessionCache(10);
    const recorder = new SessionRecorder({ store, cache, flushMs: 1 });
    const d = new FakeDebate({ owner: 'usr_gone' });
    const log = new EventLog(d.session.id);
    const controller = new AbortController();
    recorder.hook(controller)(log, () => d.session);
    const seen: DebateEvent[] = [];
    const live = recorder.live(d.session.id)!;
    live.subscribe((e) => seen.push(e));
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] });
    await live.settled();
    expect(steps.map((s) => s.run)).toStrictEqual(['first']);
    gone = true;
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'never stored' });
    expect(await live.done).toBeUndefined();
    expect(steps.at(-1)?.run).toBe('later');
    expect((controller.signal.reason as Error).message).toBe('Session was deleted.');
    expect(recorder.live(d.session.id)).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({
      type: 'session.ended',
      status: 'cancelled',
      error: 'gone: Session was deleted.',
      missingSlots: [1, 2],
    });
    // Nothing more is written, whatever the run still raises: a fake clock run past every timer it could have set.
    const writes = steps.length;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    log.emit({ type: 'answer.delta', round: 1, slot: 2, delta: 'after the end' });
    log.emit(endedBody('cancelled'));
    await vi.runAllTimersAsync();
    expect(vi.getTimerCount()).toBe(0);
    expect(steps.length).toBe(writes);
  });
});

describe('what a failed write is taken for', () => {
  it('only a `gone` StoreError takes the session from its run: any other failure is retried, the run goes on', async () => {
    openGate();
    const write = store.write.bind(store);
    const failures: Error[] = [
      new StoreError('unavailable', 'the database is down'),
      // A driver's error that happens to carry the code is not the store saying the session is gone.
      Object.assign(new Error('connection reset'), { code: 'gone' }),
    ];
    store.write = async (step: Step) => {
      const failure = failures.shift();
      if (failure) throw failure;
      return write(step);
    };
    const { log, live, cancel } = record({ flushMs: 5, retryMs: 5, giveUpAfterMs: 60_000 });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    log.emit(endedBody());
    await live.done;
    expect(cancel.signal.aborted).toBe(false);
    expect((await store.events(log.sessionId, 0)).map((e) => e.type)).toStrictEqual(['round.started', 'session.ended']);
  });

  it('a store that fails with no error at all: the first write rejects with one that says the store failed', async () => {
    openGate();
    store.write = () => Promise.reject(undefined);
    const { log, live } = record({ flushMs: 5, retryMs: 5, giveUpAfterMs: 60_000 });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await expect(live.firstWrite).rejects.toThrow('the session store failed');
    live.discard(new Error('stopped'));
  });

  it('a session taken from its run: the end its followers get follows the last event raised, and the operator is warned', async () => {
    openGate();
    const write = store.write.bind(store);
    let gone = false;
    store.write = async (step: Step) => {
      if (gone) throw new StoreError('gone', 'Session was deleted.');
      return write(step);
    };
    const { lines, logger } = keptLog();
    const { log, live, seen } = record({ flushMs: 5, logger });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await live.settled();
    gone = true;
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'never stored' });
    log.emit({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true });
    await live.done;
    expect(seen.map((e) => [e.seq, e.type])).toStrictEqual([
      [1, 'round.started'],
      [2, 'answer.delta'],
      [3, 'round.ended'],
      [4, 'session.ended'],
    ]);
    expect(lines).toStrictEqual([
      {
        level: 'warn',
        msg: 'session taken from this run; run stopped',
        fields: { sessionId: log.sessionId, error: 'Session was deleted.' },
      },
    ]);
  });
});

describe('writes only when there is something to write', () => {
  it('settled() with nothing pending writes nothing; each write is timed from its start', async () => {
    openGate();
    const before = performance.now();
    const { recorder, log, live } = record();
    const writes: { events: number; ms: number; ok: boolean }[] = [];
    recorder.observeWrites((w) => writes.push(w));
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await live.settled();
    await recorder.settled();
    await recorder.settled();
    const elapsed = performance.now() - before;
    expect(writes.map((w) => w.events)).toStrictEqual([1]);
    expect(writes.every((w) => w.ms >= 0 && w.ms <= elapsed)).toBe(true);
  });
});

describe('stopAll: a write started while it waited for the others', () => {
  /** Two runs, B's write in flight; stopAll waits for it while A raises an event whose write is held too. */
  async function stopWithAWriteInFlight() {
    openGate();
    const write = store.write.bind(store);
    const holds = new Map<string, Promise<void>>();
    store.write = async (step: Step) => {
      await holds.get(step.session.id);
      return write(step);
    };
    const hold = (id: string) => {
      let open!: () => void;
      let fail!: (error: Error) => void;
      holds.set(
        id,
        new Promise<void>((resolve, reject) => {
          open = resolve;
          fail = reject;
        }),
      );
      return { open, fail };
    };
    const { lines, logger } = keptLog();
    const cache = new SessionCache();
    const recorder = new SessionRecorder({ store, cache, logger, flushMs: 60_000 });
    const start = () => {
      const d = new FakeDebate({ owner: 'local' });
      const log = new EventLog(d.session.id);
      const cancel = new AbortController();
      recorder.hook(cancel)(log, () => d.session);
      return { log, cancel };
    };
    const a = start();
    const b = start();
    const heldB = hold(b.log.sessionId);
    b.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    let stopped = false;
    const stopping = recorder.stopAll(new Error('The server is stopping.')).then(() => {
      stopped = true;
    });
    const heldA = hold(a.log.sessionId);
    a.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    const aStopped = new Promise((resolve) => a.cancel.signal.addEventListener('abort', resolve));
    heldB.open();
    await aStopped;
    // Every promise the stop could have settled has: it still waits for A's write.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    return { a, heldA, stopping, cache, lines };
  }

  it('returns once that write has landed; it stays stored, but this instance caches nothing of the stopped run', async () => {
    const { a, heldA, stopping, cache } = await stopWithAWriteInFlight();
    heldA.open();
    await stopping;
    expect((await store.events(a.log.sessionId, 0)).map((e) => e.type)).toStrictEqual(['round.started']);
    expect(cache.get(a.log.sessionId)).toBeUndefined();
  });

  it('when that write fails, it is not retried: the run is stopped', async () => {
    const { heldA, stopping, lines } = await stopWithAWriteInFlight();
    heldA.fail(new Error('SQLITE_BUSY: database is locked'));
    await stopping;
    expect(lines).toStrictEqual([]);
  });
});

describe('settled() while the store fails', () => {
  it('tries each run once and returns; a failing run retries on its own schedule, not in a loop', async () => {
    openGate();
    let writes = 0;
    store.write = async () => {
      writes++;
      throw new Error('SQLITE_BUSY: database is locked');
    };
    const { recorder, log, live } = record({ flushMs: 3_600_000, retryMs: 3_600_000, giveUpAfterMs: 3_600_000 });
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'x' });
    await recorder.settled();
    expect(writes).toBe(1);
    live.discard(new Error('stopped'));
  });
});
