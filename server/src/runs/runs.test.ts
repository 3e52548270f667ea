/**
 * Runs without HTTP: refusals start nothing and store nothing; a start is stored before it is accepted; an
 * attached run ends with its client, a detached one does not; a run the store gave up on is never a result;
 * an interrupted session is continued, here or as a hand-over. Real SQLite, recorder and offline models.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../config/slots.js';
import { DebateEngine } from '../debate/engine.js';
import { WikiSources } from '../grounding/sources.js';
import { createSlotModel } from '../providers/models.js';
import { SessionCache } from '../sessions/cache.js';
import { SessionRecorder } from '../sessions/recorder.js';
import { ALL_OWNERS, Sessions } from '../sessions/sessions.js';
import { type SessionStore, type Step, StoreError } from '../sessions/store.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import { continueHandedOver } from './hand-over.js';
import { RunRefused } from './refused.js';
import { Runs } from './runs.js';

const ALICE = 'usr_alice';
const BOB = 'usr_bob';

let dir: string;
let db: SqliteDatabase;
/** What the runs write to: the database's store, unless a test fails or holds its writes. */
let failWrites: ((step: Step) => Error | undefined) | undefined;
/** While set, each write waits for it (and `writeCalled` hears of the write). */
let holdWrites: Promise<void> | undefined;
let writeCalled: (() => void) | undefined;
let releaseWrites = () => {};
/** How many times the store was read by id. */
let reads = 0;
let offered: ((id: string) => void) | undefined;
let sessions: Sessions;
let runs: Runs;

/** The offline panel; `tokenDelayMs` paces each stand-in's text (0: none). */
function engine(tokenDelayMs = 0): DebateEngine {
  return new DebateEngine({
    panel: slotsFromEnv({}).map((config) => ({ config, model: createSlotModel(config, {}, { offline: { tokenDelayMs } }) })),
    quorum: 3,
    callTimeoutMs: 30_000,
    maxRetries: 0,
    prices: {},
    owner: 'nobody',
  });
}

function open(tokenDelayMs = 0) {
  const real = db.sessions;
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'write') {
        return async (step: Step) => {
          writeCalled?.();
          await holdWrites;
          const error = failWrites?.(step);
          if (error) throw error;
          return real.write(step);
        };
      }
      if (key === 'get') reads++;
      // The hand-over's notice, as a shared store sends it; here the test sends it.
      if (key === 'onHandOver') {
        return (listener: (id: string) => void) => {
          offered = listener;
          return () => (offered = undefined);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as SessionStore;
  const cache = new SessionCache(50);
  const recorder = new SessionRecorder({ store, cache, flushMs: 5, retryMs: 5, giveUpAfterMs: 50 });
  sessions = new Sessions({ store, cache, recorder });
  runs = new Runs({ engine: engine(tokenDelayMs), sessions, wikis: new WikiSources([]) });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-runs-'));
  db = await SqliteDatabase.open(join(dir, 'sessions.db'));
  failWrites = undefined;
  holdWrites = undefined;
  writeCalled = undefined;
  open();
});
afterEach(async () => {
  releaseWrites();
  failWrites = undefined;
  await sessions.close(100);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = async () => (await db.sessions.list({ limit: 100 })).items;

async function refusal(start: () => unknown): Promise<RunRefused> {
  try {
    await start();
  } catch (error) {
    if (error instanceof RunRefused) return error;
    throw error;
  }
  throw new Error('the run was started');
}

describe('a refused run starts nothing and stores nothing', () => {
  it('names each refusal by its code', async () => {
    const alice = { owner: ALICE };
    expect(await refusal(() => runs.ask('nobody-here', { question: 'Q?' }, alice))).toMatchObject({
      code: 'unknown_provider',
      message: expect.stringContaining('configured: anthropic'),
    });
    expect(await refusal(() => runs.deep({ question: 'Q?', grounding: { source: 'nowiki' } }, alice))).toMatchObject({
      code: 'unknown_wiki_source',
      message: 'No wiki source is named "nowiki"; configured: none.',
    });
    expect(await refusal(() => runs.parallel({ question: 'Q?', grounding: { source: 'nowiki' } }, alice))).toMatchObject({
      code: 'unknown_wiki_source',
    });
    expect(await refusal(() => runs.deep({ question: 'Q?', slots: [2] }, alice))).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path: expect.stringContaining('slots') })],
    });
    const scoped = { owner: ALICE, scope: ALICE };
    expect(await refusal(() => runs.synthesize({ sessionId: 'ses_x', question: 'Q?' }, scoped))).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'body', message: 'sessionId excludes question and answers' }],
    });
    expect(await refusal(() => runs.synthesize({ question: 'Q?' }, scoped))).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'body', message: 'question and answers are both required without sessionId' }],
    });
    expect(await refusal(() => runs.synthesize({ sessionId: 'ses_none' }, scoped))).toMatchObject({ code: 'not_found' });
    expect(await refusal(() => runs.followUp('ses_none', { question: 'Q?' }, scoped))).toMatchObject({ code: 'not_found' });
    expect(await refusal(() => runs.continue('ses_none', alice))).toMatchObject({ code: 'not_found' });
    expect(await stored()).toEqual([]);
  });

  it('a follow-up: not while its parent runs, not in another user’s thread, not with another mode’s fields', async () => {
    const parent = await runs.ask('anthropic', { question: 'First?' }, { owner: ALICE }).done;
    expect(
      await refusal(() => runs.followUp(parent.id, { question: 'Then?', rounds: 3 }, { owner: ALICE, scope: ALICE })),
    ).toMatchObject({
      code: 'validation_failed',
      message: '`rounds` does not apply to a single follow-up.',
      errors: [{ path: 'body.rounds', code: 'unrecognized_keys' }],
    });
    // An admin reads it, but may not add to it; anyone else does not see it.
    expect(await refusal(() => runs.followUp(parent.id, { question: 'Then?' }, { owner: BOB, scope: ALL_OWNERS }))).toMatchObject(
      { code: 'forbidden' },
    );
    expect(await refusal(() => runs.followUp(parent.id, { question: 'Then?' }, { owner: BOB, scope: BOB }))).toMatchObject({
      code: 'not_found',
    });
    expect(await refusal(() => runs.continue(parent.id, { owner: ALICE }))).toMatchObject({ code: 'conflict' });

    open(20);
    const running = runs.deep({ question: 'Long?' }, { owner: ALICE, detach: true });
    const id = await running.accepted;
    expect(await refusal(() => runs.followUp(id, { question: 'Then?' }, { owner: ALICE, scope: ALICE }))).toMatchObject({
      code: 'conflict',
    });
    await sessions.cancel(id, ALICE);
    expect((await stored()).map((s) => s.id).sort()).toEqual([parent.id, id].sort());
  });
});

describe('a started run', () => {
  it('is accepted once its session is stored, and done once all of it is', async () => {
    open(5);
    holdWrites = new Promise((resolve) => (releaseWrites = resolve));
    const writing = new Promise<void>((resolve) => (writeCalled = resolve));
    const run = runs.deep({ question: 'Monolith or services?', rounds: 2 }, { owner: ALICE, detach: true });
    let accepted = false;
    void run.accepted.then(() => (accepted = true));
    await writing;
    // Every promise callback queued so far has run by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(accepted).toBe(false);
    holdWrites = undefined;
    releaseWrites();
    const id = await run.accepted;
    // Readable the moment it is accepted, not merely named.
    expect(await db.sessions.get(id)).toMatchObject({ id, status: 'running', owner: ALICE });
    const session = await run.done;
    expect(session).toMatchObject({ id, status: 'completed' });
    expect(await db.sessions.get(id)).toEqual(session);
  });

  it('attached, ends with its client; detached, does not', async () => {
    open(5);
    const client = new AbortController();
    const attached = runs.deep({ question: 'Q?', rounds: 2 }, { owner: ALICE, client: [client.signal] });
    const detached = runs.deep({ question: 'Q?', rounds: 2 }, { owner: ALICE, client: [client.signal], detach: true });
    await Promise.all([attached.accepted, detached.accepted]);
    client.abort();
    expect((await attached.done).status).toBe('cancelled');
    expect((await detached.done).status).toBe('completed');
  });

  it('hands its events to `onEvent` from the first, ending with the stored end', async () => {
    const events: DebateEvent[] = [];
    const run = runs.parallel({ question: 'Q?' }, { owner: ALICE, onEvent: (e) => events.push(e) });
    const session = await run.done;
    expect(events[0]).toMatchObject({ type: 'session.started', sessionId: session.id, seq: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(events.map((e) => e.seq)).toEqual((await db.sessions.events(session.id, 0)).map((e) => e.seq));
  });

  it('is never a result when the store gave up on it; detached, its failed first write rejects its acceptance', async () => {
    failWrites = (step) => (step.run === 'later' ? new StoreError('unavailable', 'disk full') : undefined);
    open(5);
    const attached = runs.ask('anthropic', { question: 'Q?' }, { owner: ALICE });
    await expect(attached.done).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });

    failWrites = () => new StoreError('unavailable', 'disk full');
    const detached = runs.parallel({ question: 'Q?' }, { owner: ALICE, detach: true });
    await expect(detached.accepted).rejects.toMatchObject({ code: 'unavailable', message: 'disk full' });
  });
});

describe('an interrupted session', () => {
  /** A detached deep debate stopped as a shutdown stops it, then marked `interrupted` as the next start does. */
  async function interrupted(): Promise<Session> {
    open(20);
    const run = runs.deep({ question: 'Interrupted?', rounds: 2 }, { owner: ALICE, detach: true });
    const id = await run.accepted;
    await sessions.recorder.stopAll(new Error('stopping'));
    const [session] = await db.sessions.recoverInterrupted(new Date());
    expect(session).toMatchObject({ id, status: 'interrupted' });
    open(0);
    return session!;
  }

  it('is continued in the same session, to its verdict', async () => {
    const session = await interrupted();
    const run = await runs.continue(session.id, { owner: ALICE });
    expect(await run.done).toMatchObject({ id: session.id, status: 'completed', verdict: expect.anything() });
    expect(await refusal(() => runs.continue(session.id, { owner: ALICE }))).toMatchObject({ code: 'conflict' });
  });

  it('handed over, is continued detached for its owner, but not by an instance that is draining', async () => {
    const session = await interrupted();
    let draining = true;
    const stop = continueHandedOver({ runs, draining: () => draining });
    // A draining instance turns the offer down before it reads anything.
    reads = 0;
    offered!(session.id);
    expect(reads).toBe(0);
    expect(sessions.recorder.live(session.id)).toBeUndefined();
    expect((await db.sessions.get(session.id))?.status).toBe('interrupted');
    draining = false;
    offered!(session.id);
    await expect.poll(async () => (await db.sessions.get(session.id))?.status).toBe('completed');
    expect(await db.sessions.get(session.id)).toMatchObject({ owner: ALICE, verdict: expect.anything() });
    stop();
  });
});
