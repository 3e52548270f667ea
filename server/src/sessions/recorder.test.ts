import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { FakeDebate } from '../../../test/sessions/store-contract.js';
import { type EventBody, EventLog } from '../debate/events.js';
import { SessionCache } from './cache.js';
import { SessionRecorder, STORE_UNAVAILABLE } from './recorder.js';
import { Sessions } from './sessions.js';
import { SqliteSessionStore } from './sqlite/store.js';
import type { Step } from './store.js';

let dir: string;
let store: SqliteSessionStore;
/** Commits wait for this to be called, so a test can look between "raised" and "committed". */
let openGate: () => void;
let gate: Promise<void>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-recorder-'));
  store = await SqliteSessionStore.open(join(dir, 'sessions.db'));
  gate = new Promise((resolve) => (openGate = resolve));
  const write = store.write.bind(store);
  store.write = async (step: Step) => {
    await gate;
    return write(step);
  };
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function record() {
  const recorder = new SessionRecorder({ store, cache: new SessionCache(), flushMs: 5 });
  const debate = new FakeDebate({ owner: 'local' });
  const log = new EventLog(debate.session.id);
  recorder.hook(new AbortController())(log, () => debate.session);
  const seen: DebateEvent[] = [];
  recorder.live(log.sessionId)!.subscribe((e) => seen.push(e));
  return { recorder, log, seen, live: recorder.live(log.sessionId)! };
}

const ended = (): EventBody => ({
  type: 'session.ended',
  status: 'completed',
  missingSlots: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: { usd: 0, priced: true },
});
const answerDelta = (seq: number) => ({ type: 'answer.delta', round: 1, slot: 1, delta: `t${seq}` }) as const;

it('shows every event at once but the end, which waits for its commit', async () => {
  const { log, seen, live } = record();
  log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
  log.emit(answerDelta(2));
  expect(seen.map((e) => e.seq)).toEqual([1, 2]);
  expect(live.released.map((e) => e.seq)).toEqual([1, 2]);

  log.emit(ended());
  // Not committed yet: a client that saw the end could not read the session back.
  expect(seen.map((e) => e.seq)).toEqual([1, 2]);
  expect(live.released.map((e) => e.seq)).toEqual([1, 2]);

  openGate();
  await live.done;
  expect(seen.map((e) => e.seq)).toEqual([1, 2, 3]);
  expect((await store.events(log.sessionId, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
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
  log.emit(ended());
  await live.settled();
  expect(seen).toEqual([]);
  fail = false;
  await expect.poll(() => seen.map((e) => e.type), { timeout: 5000 }).toEqual(['session.ended']);
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
    const recorder = new SessionRecorder({ store, cache: new SessionCache(), flushMs: 5, giveUpAfterMs: 100, retryMs: 10 });
    const debate = new FakeDebate({ owner: 'local' });
    const log = new EventLog(debate.session.id);
    const cancel = new AbortController();
    recorder.hook(cancel)(log, () => debate.session);
    const live = recorder.live(log.sessionId)!;
    const seen: DebateEvent[] = [];
    live.subscribe((e) => seen.push(e));
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
    log.emit(ended());
    expect(seen.at(-1)).toBe(end);
    expect(recorder.live(log.sessionId)).toBeUndefined();
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
    cancel.signal.addEventListener('abort', () => log.emit(ended()));
    expect(await sessions.delete(log.sessionId, 'local')).toBe(true);
    expect(await store.get(log.sessionId)).toBeUndefined();
  });
});

describe('what the store holds as a run is recorded', () => {
  /** Raises on `log` what `d` raised since `from` (the same bodies; the log numbers them alike). */
  function pass(d: FakeDebate, log: EventLog, from: number): number {
    for (const e of d.raised.slice(from)) {
      const { v: _v, sessionId: _s, seq: _q, ts: _t, ...body } = e;
      log.emit(body as EventBody);
    }
    return d.raised.length;
  }

  it('after each step commits, the session reads back as the run had it then: rounds, answers, failures, consensus, verdict, end', async () => {
    openGate();
    const cache = new SessionCache();
    const recorder = new SessionRecorder({ store, cache, flushMs: 5 });
    const d = new FakeDebate({ owner: 'local', roundsRequested: 2 });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    const live = recorder.live(log.sessionId)!;
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
      await check(`round ${n}: slot 2 failed`);
      d.answer(n, 3);
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
    const recorder = new SessionRecorder({ store, cache, flushMs: 5 });
    const d = new FakeDebate({ owner: 'local', roundsRequested: 2 });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    const live = recorder.live(log.sessionId)!;
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

  it('a step whose write failed is written whole by the retry: its rounds, consensus and verdict too', async () => {
    openGate();
    const cache = new SessionCache();
    const recorder = new SessionRecorder({ store, cache, flushMs: 5, retryMs: 10 });
    const d = new FakeDebate({ owner: 'local', roundsRequested: 1 });
    const log = new EventLog(d.session.id);
    recorder.hook(new AbortController())(log, () => d.session);
    const live = recorder.live(log.sessionId)!;
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
    log.emit(answerDelta(1));
    expect(seen.map((e) => e.seq)).toEqual([1]);
    expect(late.map((e) => e.seq)).toEqual([1]);
    const unsubscribe = live.subscribe((e) => late.push(e));
    unsubscribe();
    log.emit(answerDelta(2));
    expect(late.map((e) => e.seq)).toEqual([1, 2]);
    openGate();
  });
});
