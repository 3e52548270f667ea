import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { FakeDebate } from '../../../test/sessions/store-contract.js';
import { type EventBody, EventLog } from '../debate/events.js';
import { SessionCache } from './cache.js';
import { SessionRecorder } from './recorder.js';
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
