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
