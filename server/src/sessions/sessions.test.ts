/**
 * The sessions layer keeps owners apart, without HTTP: one owner's session reads as absent to
 * another — by id (from the store and from the cache), in lists and searches, for replay and
 * export (which start from that read), and for cancel and delete, which stop and remove nothing of it.
 * Real SQLite, cache and recorder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import { debateSteps, endedBody, FakeDebate, storeInterrupted, storeWith } from '../../../test/support/fake-debate.js';
import { type EventBody, EventLog } from '../debate/events.js';
import { threadContext } from '../debate/thread.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import { SessionCache } from './cache.js';
import { sessionMarkdown } from './markdown.js';
import { SessionRecorder } from './recorder.js';
import { ALL_OWNERS, BadCursorError, decodeCursor, encodeCursor, Sessions } from './sessions.js';
import { type SessionStore, type Step, StoreError, summaryOf } from './store.js';

const ALICE = 'usr_alice';
const BOB = 'usr_bob';

let dir: string;
let sessions: Sessions;
let db: SqliteDatabase;
let store: SessionStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-sessions-'));
  db = await SqliteDatabase.open(join(dir, 'sessions.db'));
  store = db.sessions;
  const cache = new SessionCache(50);
  sessions = new Sessions({ store, cache, recorder: new SessionRecorder({ store, cache, flushMs: 5 }) });
});
/** Lets writes a test held go through. */
let unhold = () => {};
afterEach(async () => {
  unhold();
  await sessions.close(100);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A finished debate of `owner`'s, stored step by step as the recorder would. */
async function stored(owner: string, question: string, createdAt: string): Promise<Session> {
  const d = new FakeDebate({ owner, question, createdAt });
  for (const step of debateSteps(d, 2, 1)) await store.write(step);
  return d.session;
}

/** Every event `follow` sends for a session read by `owner` (as a replay starts: read, then follow). */
async function replay(id: string, owner: string): Promise<DebateEvent[] | undefined> {
  const session = await sessions.get(id, owner);
  if (!session) return undefined;
  const sent: DebateEvent[] = [];
  await sessions.follow(
    session,
    0,
    async (e) => {
      sent.push(e);
    },
    new AbortController().signal,
  );
  return sent;
}

describe('owners are isolated in the sessions layer', () => {
  let a1: Session;
  let a2: Session;
  let b1: Session;
  beforeEach(async () => {
    a1 = await stored(ALICE, 'Shared words: should Alice shard?', '2026-01-01T10:00:00.000Z');
    b1 = await stored(BOB, 'Shared words: should Bob shard?', '2026-01-01T11:00:00.000Z');
    a2 = await stored(ALICE, "Alice's second question", '2026-01-01T12:00:00.000Z');
  });

  it('read: the owner gets the session; anyone else gets nothing, from the store or from the cache', async () => {
    // Cold: nothing cached yet, so the read goes to the store.
    expect(await sessions.get(a1.id, BOB)).toBeUndefined();
    expect(await sessions.get(a1.id, '')).toBeUndefined();
    expect(await sessions.get(a1.id, ALICE)).toEqual(a1);
    // Warm: Alice's read cached it; Bob's read of the cached copy is still refused.
    expect(sessions.cache.get(a1.id)).toEqual(a1);
    expect(await sessions.get(a1.id, BOB)).toBeUndefined();
    expect(await sessions.get(b1.id, ALICE)).toBeUndefined();
    expect(await sessions.get(b1.id, BOB)).toEqual(b1);
  });

  it("list and search: each owner sees only their own, newest first; nobody sees another's", async () => {
    expect((await sessions.list(ALICE, {})).items.map((s) => s.id)).toEqual([a2.id, a1.id]);
    expect((await sessions.list(BOB, {})).items.map((s) => s.id)).toEqual([b1.id]);
    expect((await sessions.list('usr_nobody', {})).items).toEqual([]);
    // Both owners have a question with these words: the search stays within the owner's.
    expect((await sessions.list(ALICE, { q: 'shared words' })).items.map((s) => s.id)).toEqual([a1.id]);
    expect((await sessions.list(BOB, { q: 'shared words' })).items.map((s) => s.id)).toEqual([b1.id]);
    // A cursor from Alice's pages walks only Alice's sessions.
    const first = await sessions.list(ALICE, { limit: 1 });
    expect(first.items.map((s) => s.id)).toEqual([a2.id]);
    const second = await sessions.list(ALICE, { limit: 1, cursor: first.nextCursor! });
    expect(second.items.map((s) => s.id)).toEqual([a1.id]);
    expect(second.nextCursor).toBeUndefined();
    // A cursor is only a position: Bob using Alice's still gets Bob's sessions older than it, nothing of Alice's.
    expect((await sessions.list(BOB, { limit: 5, cursor: first.nextCursor! })).items.map((s) => s.id)).toEqual([b1.id]);
  });

  it('every owner only when asked for explicitly (ALL_OWNERS, for admins); no string stands for it', async () => {
    expect((await sessions.list(ALL_OWNERS, {})).items.map((s) => s.id)).toEqual([a2.id, b1.id, a1.id]);
    expect(await sessions.get(b1.id, ALL_OWNERS)).toEqual(b1);
    for (const pretender of ['all', '*', 'ALL_OWNERS']) {
      expect((await sessions.list(pretender, {})).items).toEqual([]);
      expect(await sessions.get(b1.id, pretender)).toBeUndefined();
    }
  });

  it('events: a replay starts only for the owner, and carries only that session', async () => {
    expect(await replay(a1.id, BOB)).toBeUndefined();
    const events = await replay(a1.id, ALICE);
    expect(events).toEqual(await store.events(a1.id, 0));
    expect(events!.length).toBeGreaterThan(5);
    expect(new Set(events!.map((e) => e.sessionId))).toEqual(new Set([a1.id]));
    expect(events!.at(-1)).toMatchObject({ type: 'session.ended' });
  });

  it('export: only the owner gets a document to export', async () => {
    expect(await sessions.get(b1.id, ALICE)).toBeUndefined();
    const mine = await sessions.get(b1.id, BOB);
    expect(sessionMarkdown(mine!)).toContain('Shared words: should Bob shard?');
  });

  it("delete: another owner's delete is refused and removes nothing; the owner's removes everything", async () => {
    expect(await sessions.delete(a1.id, BOB)).toBe(false);
    expect(await store.get(a1.id)).toEqual(a1);
    expect(await store.events(a1.id, 0)).not.toEqual([]);
    expect(await sessions.get(a1.id, ALICE)).toEqual(a1);

    expect(await sessions.delete(a1.id, ALICE)).toBe(true);
    expect(await store.get(a1.id)).toBeUndefined();
    expect(await store.events(a1.id, 0)).toEqual([]);
    expect(await sessions.get(a1.id, ALICE)).toBeUndefined();
    expect((await sessions.list(ALICE, {})).items.map((s) => s.id)).toEqual([a2.id]);
    // A second delete finds nothing.
    expect(await sessions.delete(a1.id, ALICE)).toBe(false);
    // Bob's session is untouched throughout.
    expect(await sessions.get(b1.id, BOB)).toEqual(b1);
  });

  it("delete of another owner's running session neither cancels it nor removes it", async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Still running' });
    const log = new EventLog(d.session.id);
    const run = new AbortController();
    sessions.recorder.hook(run)(log, () => ({ ...d.session, id: log.sessionId }));
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await sessions.recorder.live(log.sessionId)!.settled();
    expect((await sessions.get(log.sessionId, ALICE))?.status).toBe('running');

    expect(await sessions.delete(log.sessionId, BOB)).toBe(false);
    expect(run.signal.aborted).toBe(false);
    expect(await store.get(log.sessionId)).toBeDefined();

    // The owner's delete cancels the run, waits for its end, then removes it.
    const deleting = sessions.delete(log.sessionId, ALICE);
    await expect.poll(() => run.signal.aborted).toBe(true);
    expect(run.signal.reason).toEqual(new Error('The session was deleted.'));
    log.emit(endedBody('cancelled'));
    expect(await deleting).toBe(true);
    expect(await store.get(log.sessionId)).toBeUndefined();
  });

  it("cancel: another owner's is refused and stops nothing; the owner's stops the run and keeps the session", async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Stop me' });
    const log = new EventLog(d.session.id);
    const run = new AbortController();
    // The engine's session as the recorder snapshots it: running, then as it ended.
    let now: Session = { ...d.session, id: log.sessionId };
    sessions.recorder.hook(run)(log, () => now);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await sessions.recorder.live(log.sessionId)!.settled();

    expect(await sessions.cancel(log.sessionId, BOB)).toBeUndefined();
    expect(run.signal.aborted).toBe(false);

    const cancelling = sessions.cancel(log.sessionId, ALICE);
    await expect.poll(() => run.signal.aborted).toBe(true);
    expect(run.signal.reason).toEqual(new Error('The session was cancelled.'));
    now = { ...now, status: 'cancelled' };
    log.emit(endedBody('cancelled'));
    const cancelled = await cancelling;
    expect(cancelled).toMatchObject({ id: log.sessionId, status: 'cancelled' });
    expect(await store.get(log.sessionId)).toEqual(cancelled);
    // Ended: it comes back as it is, and nothing else happens.
    expect(await sessions.cancel(log.sessionId, ALICE)).toEqual(cancelled);
  });

  it('cancel: a session the store says runs, but no run of this one process holds (its end never stored), is cancelled for good', async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Its end was never stored' });
    await store.write(d.start().step());
    expect((await store.get(d.session.id))?.status).toBe('running');
    expect(await sessions.cancel(d.session.id, ALICE)).toMatchObject({ id: d.session.id, status: 'cancelled' });
    expect((await store.get(d.session.id))?.status).toBe('cancelled');
    expect((await store.events(d.session.id, 0)).at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    await expect(sessions.continue(d.session.id, ALICE)).resolves.toMatchObject({
      refused: expect.stringContaining('cancelled'),
    });
    expect(await sessions.cancel(a1.id, ALICE)).toEqual(a1);
  });
});

describe('cursors', () => {
  const position = { createdAt: '2026-01-01T10:00:00.000Z', id: 'ses_01ABCdef' };

  it('a cursor is the position, opaque, and reads back as it was given', () => {
    const cursor = encodeCursor(position);
    expect(cursor).toBe(Buffer.from('2026-01-01T10:00:00.000Z|ses_01ABCdef').toString('base64url'));
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it('refuses anything this server did not give out, with one stable message', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const refused = [
      '',
      'not a cursor',
      b64('2026-01-01T10:00:00.000Z'), // no separator
      b64('yesterday|ses_01ABCdef'), // not a time
      b64('2026-01-01T10:00:00.000Z|'), // no id
      b64('2026-01-01T10:00:00.000Z|usr_01ABCdef'), // not a session id
      b64('2026-01-01T10:00:00.000Z|ses_01ABC-def'), // not an id of ours
      b64('2026-01-01T10:00:00.000Z|xses_01ABCdef'), // nor is this
      b64('2026-01-01T10:00:00.000Z|ses_01ABCdef\n'), // something after the id
      `${encodeCursor(position)}=`, // the same bytes, spelled otherwise
      Buffer.from('2026-01-01T10:00:00.000Z|ses_01ABCdef').toString('base64'),
    ];
    for (const cursor of refused) {
      expect(() => decodeCursor(cursor), JSON.stringify(cursor)).toThrow(
        new BadCursorError('`cursor` is not a cursor this server gave out; start again without one.'),
      );
    }
    expect(new BadCursorError('x').name).toBe('BadCursorError');
  });

  it('a list refuses a bad cursor and reads nothing', async () => {
    await expect(sessions.list(ALICE, { cursor: 'bogus' })).rejects.toBeInstanceOf(BadCursorError);
  });
});

describe('pages', () => {
  it('a page holds 20 sessions unless asked otherwise; the cursor continues where it ended', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      const d = new FakeDebate({ owner: ALICE, createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() });
      await store.write(d.start().end().step());
      ids.unshift(d.session.id);
    }
    const first = await sessions.list(ALICE, {});
    expect(first.items.map((s) => s.id)).toEqual(ids.slice(0, 20));
    expect(first.nextCursor).toBe(encodeCursor({ createdAt: first.items[19]!.createdAt, id: ids[19]! }));
    const rest = await sessions.list(ALICE, { cursor: first.nextCursor! });
    expect(rest.items.map((s) => s.id)).toEqual(ids.slice(20));
    expect(rest).not.toHaveProperty('nextCursor');
    expect((await sessions.list(ALICE, { limit: 3, q: '' })).items).toHaveLength(3);
  });
});

describe('threads', () => {
  /** A finished session of Alice's, written whole; `link` puts it in a thread after `parent`. */
  async function write(question: string, minute: number, link?: { threadId: string; parentId: string }): Promise<Session> {
    const d = new FakeDebate({ owner: ALICE, question, createdAt: new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString() });
    if (link) Object.assign(d.session, link);
    for (const step of debateSteps(d, 1, 1)) await store.write(step);
    return d.session;
  }

  it('a session without follow-ups is a thread of one; the owner alone may read a thread', async () => {
    const alone = await write('Alone?', 0);
    expect(await sessions.thread(alone.id, ALICE)).toEqual({ threadId: alone.id, sessions: [summaryOf(alone)] });
    expect(await sessions.threadUpTo(alone)).toEqual([alone]);
    expect(await sessions.thread(alone.id, BOB)).toBeUndefined();
    expect(await sessions.thread('ses_00000000000000000000000000', ALICE)).toBeUndefined();
  });

  it('the first follow-up makes its parent the start of the thread; later ones join it, each seeing the thread so far', async () => {
    const root = await write('First question?', 0);
    const link = await sessions.followUp(root);
    const marked = { ...root, threadId: root.id };
    expect(link).toEqual({ threadId: root.id, parentId: root.id, context: threadContext([marked]) });
    // Marked in the store and in the cache alike.
    expect(await store.get(root.id)).toEqual(marked);
    expect(sessions.cache.get(root.id)).toEqual(marked);

    const second = await write('Second question?', 1, { threadId: root.id, parentId: root.id });
    const third = await write('Third question?', 2, { threadId: root.id, parentId: second.id });
    expect(await sessions.thread(third.id, ALICE)).toEqual({
      threadId: root.id,
      sessions: [marked, second, third].map(summaryOf),
    });
    expect(await sessions.thread(root.id, BOB)).toBeUndefined();
    // Up to a session: the ones before it and itself, whole, oldest first.
    expect(await sessions.threadUpTo(second)).toEqual([marked, second]);
    expect(await sessions.threadUpTo(third)).toEqual([marked, second, third]);

    // The session itself as given (a running follow-up is newer than its stored copy), the rest read.
    const newer = { ...third, question: 'Third question, as it stands now?' };
    expect(await sessions.threadUpTo(newer)).toEqual([marked, second, newer]);
    // A follow-up to a session already in a thread joins that thread and leaves its parent as it was.
    const next = await sessions.followUp(second);
    expect(next).toEqual({ threadId: root.id, parentId: second.id, context: threadContext([marked, second]) });
    expect(await store.get(second.id)).toEqual(second);
  });
});

describe("another owner's session in a thread", () => {
  it('is left out of what the owner sees of the thread up to their session', async () => {
    const write = async (owner: string, question: string, minute: number, link?: object) => {
      const d = new FakeDebate({ owner, question, createdAt: new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString() });
      if (link) Object.assign(d.session, link);
      for (const step of debateSteps(d, 1, 1)) await store.write(step);
      return d.session;
    };
    const root = await write(ALICE, 'Mine?', 0);
    await sessions.followUp(root);
    // An admin followed up in Alice's thread: that session is the admin's.
    const admins = await write(BOB, 'Theirs?', 1, { threadId: root.id, parentId: root.id });
    const mine = await write(ALICE, 'Mine again?', 2, { threadId: root.id, parentId: admins.id });
    expect((await sessions.threadUpTo(mine)).map((x) => x.id)).toEqual([root.id, mine.id]);
    // Nor is it named among what came after.
    expect((await sessions.threadAround({ ...root, threadId: root.id })).later).toEqual([mine.id]);
    expect((await sessions.threadAround(mine)).later).toEqual([]);
  });
});

/** The test's SQLite store with what a store shared by several instances adds (PostgreSQL's `onChange`, `watch`). */
function alongside(extra: Pick<SessionStore, 'onChange' | 'watch' | 'hearsChanges'>): SessionStore {
  return storeWith(store, extra);
}

/** Sessions on a store that watches another instance's run: `push` is that run's event (live or committed) arriving. */
function watchedSessions(): { mine: Sessions; push: (e: DebateEvent, committed: boolean) => void } {
  let listener: ((e: DebateEvent, committed: boolean) => void) | undefined;
  const watching = alongside({
    watch: async (_id: string, heard: (e: DebateEvent, committed: boolean) => void) => {
      listener = heard;
      return async () => {};
    },
  });
  const cache = new SessionCache(50);
  const mine = new Sessions({ store: watching, cache, recorder: new SessionRecorder({ store: watching, cache }) });
  return { mine, push: (e, committed) => listener!(e, committed) };
}

describe('a store that reports changes made by other instances', () => {
  it("drops the changed session from this instance's cache", async () => {
    let changed: ((id: string) => void) | undefined;
    const watching = alongside({
      onChange: (listener: (id: string) => void) => {
        changed = listener;
        return () => undefined;
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: watching, cache, recorder: new SessionRecorder({ store: watching, cache }) });
    const a = await stored(ALICE, 'Cached?', '2026-01-01T10:00:00.000Z');
    await mine.get(a.id, ALICE);
    expect(cache.get(a.id)).toEqual(a);
    changed!(a.id);
    expect(cache.get(a.id)).toBeUndefined();
  });

  it("follows a session running on another instance through the store's watch, until it ends", async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Elsewhere?' });
    await store.write(d.start().step());
    let push: ((e: DebateEvent, committed: boolean) => void) | undefined;
    let stopped = false;
    const watching = alongside({
      watch: async (id: string, listener: (e: DebateEvent, committed: boolean) => void) => {
        expect(id).toBe(d.session.id);
        push = listener;
        return async () => {
          stopped = true;
        };
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: watching, cache, recorder: new SessionRecorder({ store: watching, cache }) });
    const sent: DebateEvent[] = [];
    const following = mine.follow(
      (await mine.get(d.session.id, ALICE))!,
      0,
      async (e) => {
        sent.push(e);
      },
      new AbortController().signal,
    );
    await expect.poll(() => sent.length).toBe(1);
    d.startRound(1);
    d.end();
    for (const e of d.raised.slice(1)) push!(e, true);
    await following;
    expect(sent.map((e) => e.type)).toEqual(['session.started', 'round.started', 'session.ended']);
    expect(stopped).toBe(true);
    // A finished session is not watched.
    push = undefined;
    await mine.follow({ ...d.session, status: 'completed' }, 0, async () => {}, new AbortController().signal);
    expect(push).toBeUndefined();
  });

  it('from another instance: a live event is sent in order, held across a gap until committed events fill it', async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Live ahead of commits?' });
    await store.write(d.start().step());
    const { mine, push } = watchedSessions();
    const sent: number[] = [];
    const following = mine.follow(
      (await mine.get(d.session.id, ALICE))!,
      0,
      async (e) => {
        sent.push(e.seq);
      },
      new AbortController().signal,
    );
    await expect.poll(() => sent.length).toBe(1);
    d.startRound(1);
    for (const text of ['a', 'b', 'c', 'd']) d.raise({ type: 'answer.delta', round: 1, slot: 1, delta: text });
    d.end();
    const [round, a, b, c, dd, end] = d.raised.slice(1);
    // Live: 2 follows 1 and goes at once; 4 and 5 wait for 3.
    push(round!, false);
    await expect.poll(() => sent).toEqual([1, 2]);
    push(b!, false);
    push(c!, false);
    // A committed batch fills the gap; what it repeats goes once.
    push(a!, true);
    push(b!, true);
    await expect.poll(() => sent).toEqual([1, 2, 3, 4, 5]);
    // Committed events are the record, even across a jump (a recovery's end numbered far above).
    const jumped = { ...end!, seq: end!.seq + 1000 };
    push(dd!, true);
    push(jumped, true);
    await following;
    expect(sent).toEqual([1, 2, 3, 4, 5, 6, jumped.seq]);
  });
});

describe('follow: stored events, then live ones, each once and in order', () => {
  const delta = (text: string): EventBody => ({ type: 'answer.delta', round: 1, slot: 1, delta: text });

  /** A run of Alice's being recorded; its writes wait while `hold()` is in force. */
  function running() {
    const d = new FakeDebate({ owner: ALICE, question: 'Live?' });
    const log = new EventLog(d.session.id);
    const run = new AbortController();
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    // Whatever a test leaves held is written before the store closes.
    unhold = () => open();
    const write = store.write.bind(store);
    store.write = async (step: Step) => {
      await gate;
      return write(step);
    };
    sessions.recorder.hook(run)(log, () => d.session);
    return {
      log,
      run,
      live: sessions.recorder.live(log.sessionId)!,
      hold: () => {
        gate = new Promise((resolve) => (open = resolve));
      },
      release: () => open(),
    };
  }

  async function follow(session: Session, afterSeq: number, signal = new AbortController().signal) {
    const sent: DebateEvent[] = [];
    const following = sessions.follow(
      session,
      afterSeq,
      async (e) => {
        sent.push(e);
      },
      signal,
    );
    return { sent, following };
  }

  it('from a seq: what is stored after it, what is shown but not yet stored, then what comes, up to the end', async () => {
    const r = running();
    r.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await r.live.settled();
    r.log.emit(delta('a'));
    // Written now rather than at the next flush.
    await sessions.recorder.settled();
    // Shown to subscribers but held from the store.
    r.hold();
    r.log.emit(delta('b'));
    r.log.emit(delta('c'));
    expect(r.live.released.map((e) => e.seq)).toEqual([3, 4]);

    const session = (await sessions.get(r.log.sessionId, ALICE))!;
    expect(session.status).toBe('running');
    const f = await follow(session, 1);
    await expect.poll(() => f.sent.map((e) => e.seq)).toEqual([2, 3, 4]);
    r.log.emit(delta('d'));
    await expect.poll(() => f.sent.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    r.release();
    r.log.emit(endedBody());
    await f.following;
    expect(f.sent.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(f.sent.at(-1)?.type).toBe('session.ended');
    // Replayed afterwards from the store: the same events.
    const again = await follow((await sessions.get(r.log.sessionId, ALICE))!, 0);
    await again.following;
    expect(again.sent.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('from a seq among those shown but not yet stored: only the ones after it', async () => {
    const r = running();
    r.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await r.live.settled();
    r.hold();
    r.log.emit(delta('a'));
    r.log.emit(delta('b'));
    r.log.emit(delta('c'));
    expect(r.live.released.map((e) => e.seq)).toEqual([2, 3, 4]);
    const f = await follow((await sessions.get(r.log.sessionId, ALICE))!, 3);
    r.release();
    r.log.emit(endedBody());
    await f.following;
    expect(f.sent.map((e) => e.seq)).toEqual([4, 5]);
  });

  it('a slow client still gets everything that arrived while it was being sent to, up to the end', async () => {
    const r = running();
    r.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await r.live.settled();
    const sent: DebateEvent[] = [];
    const following = sessions.follow(
      (await sessions.get(r.log.sessionId, ALICE))!,
      0,
      async (e) => {
        sent.push(e);
        // While the first live event is being sent, the rest of the run arrives.
        if (e.seq === 2) {
          r.log.emit(delta('y'));
          r.log.emit(endedBody());
          await r.live.done;
        }
      },
      new AbortController().signal,
    );
    await expect.poll(() => sent.length).toBe(1);
    r.log.emit(delta('x'));
    await following;
    expect(sent.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('stops when its signal aborts, before the session ends, and stops listening', async () => {
    const r = running();
    r.log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await r.live.settled();
    const stop = new AbortController();
    const f = await follow((await sessions.get(r.log.sessionId, ALICE))!, 0, stop.signal);
    await expect.poll(() => f.sent.length).toBe(1);
    stop.abort();
    await f.following;
    r.log.emit(delta('after'));
    expect(f.sent.map((e) => e.seq)).toEqual([1]);
    r.log.emit(endedBody());
    await r.live.done;
  });

  it('a finished session is replayed from the store and the follow ends', async () => {
    const a = await stored(ALICE, 'Done?', '2026-01-01T10:00:00.000Z');
    const all = await store.events(a.id, 0);
    const f = await follow(a, 3);
    await f.following;
    expect(f.sent).toEqual(all.filter((e) => e.seq > 3));
  });
});

describe('close', () => {
  it('past the grace period, writes what a running debate raised so far before closing the store', async () => {
    // Deltas wait up to a minute for a step here: only the close writes them.
    const cache = new SessionCache(50);
    const mine = new Sessions({ store, cache, recorder: new SessionRecorder({ store, cache, flushMs: 60_000 }) });
    const d = new FakeDebate({ owner: ALICE });
    const log = new EventLog(d.session.id);
    mine.recorder.hook(new AbortController())(log, () => d.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await mine.recorder.live(log.sessionId)!.settled();
    log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'half an answer' });
    await mine.close(0);
    await db.close();
    const reopened = await SqliteDatabase.open(db.file);
    expect((await reopened.sessions.get(log.sessionId))?.status).toBe('running');
    expect((await reopened.sessions.events(log.sessionId, 0)).map((e) => e.type)).toEqual(['round.started', 'answer.delta']);
    await reopened.close();
  });

  it('waits for a running debate to record its end, within the grace period', async () => {
    const d = new FakeDebate({ owner: ALICE });
    const log = new EventLog(d.session.id);
    sessions.recorder.hook(new AbortController())(log, () => d.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    setTimeout(() => {
      d.session.status = 'completed';
      log.emit(endedBody());
    }, 50);
    await sessions.close(5000);
    await db.close();
    const reopened = await SqliteDatabase.open(db.file);
    expect((await reopened.sessions.get(log.sessionId))?.status).toBe('completed');
    expect((await reopened.sessions.events(log.sessionId, 0)).map((e) => e.type)).toEqual(['round.started', 'session.ended']);
    await reopened.close();
  });
});

describe('drain', () => {
  it('lets a debate that ends within the grace end as it would, and interrupts the rest, keeping what they raised', async () => {
    const cache = new SessionCache(50);
    const mine = new Sessions({ store, cache, recorder: new SessionRecorder({ store, cache, flushMs: 60_000 }) });
    const run = (question: string) => {
      const d = new FakeDebate({ owner: ALICE, question });
      const log = new EventLog(d.session.id);
      const controller = new AbortController();
      mine.recorder.hook(controller)(log, () => d.session);
      log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] });
      return { d, log, controller };
    };
    const finishing = run('Ends within the grace?');
    const stuck = run('Still running at the end of the grace?');
    stuck.log.emit({ type: 'answer.delta', round: 1, slot: 2, delta: 'half an answer' });
    const draining = mine.drain(200);
    finishing.d.session.status = 'completed';
    finishing.log.emit(endedBody());
    const interrupted = await draining;

    expect(interrupted.map((s) => [s.id, s.status, s.missingSlots])).toStrictEqual([
      [stuck.log.sessionId, 'interrupted', [1, 2]],
    ]);
    // Stopped, and no `cancelled` end of its own was written over the recovery's.
    expect(stuck.controller.signal.aborted).toBe(true);
    expect(mine.recorder.running).toBe(0);
    expect((await store.events(stuck.log.sessionId, 0)).map((e) => e.type)).toStrictEqual([
      'round.started',
      'answer.delta',
      'session.ended',
    ]);
    expect((await store.get(finishing.log.sessionId))?.status).toBe('completed');
  });
});

describe('a store whose change notices are down', () => {
  it('reads every session from the store, not the cache, until they are back', async () => {
    let hears = true;
    const deaf = alongside({ hearsChanges: () => hears });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: deaf, cache, recorder: new SessionRecorder({ store: deaf, cache }) });
    const d = new FakeDebate({ owner: ALICE, question: 'Cached?' });
    await store.write(d.start().step());
    expect((await mine.get(d.session.id, ALICE))?.question).toBe('Cached?');
    // Another instance changes it unheard: the cached copy is stale.
    await store.write({ ...d.step(), session: { ...d.session, question: 'Changed elsewhere?' } });
    expect((await mine.get(d.session.id, ALICE))?.question).toBe('Cached?');
    hears = false;
    expect((await mine.get(d.session.id, ALICE))?.question).toBe('Changed elsewhere?');
  });
});

describe('continue', () => {
  it("takes an owner's interrupted session back to running once; anything else is refused, or absent", async () => {
    const d = await storeInterrupted(store, ALICE);
    expect(await sessions.continue(d.session.id, BOB)).toBeUndefined();
    const continuation = await sessions.continue(d.session.id, ALICE);
    if (!continuation || 'refused' in continuation) throw new Error(`not continued: ${JSON.stringify(continuation)}`);
    expect(continuation.stored.session).toMatchObject({ id: d.session.id, status: 'running' });
    expect(continuation.stored.afterSeq).toBeGreaterThan(d.lastSeq);
    expect(continuation.options).toStrictEqual({});
    // Running now: a second continue is refused, saying why.
    expect(await sessions.continue(d.session.id, ALICE)).toStrictEqual({
      refused: `Session ${d.session.id} is running: only an interrupted session can be continued.`,
    });
    const done = await stored(ALICE, 'Done?', '2026-11-20T10:00:00.000Z');
    expect(await sessions.continue(done.id, ALICE)).toMatchObject({
      refused: expect.stringContaining(`is ${done.status}: only an interrupted session`),
    });
  });

  it("refuses when another continue took it between the read and the store's take-over", async () => {
    const d = await storeInterrupted(store, ALICE);
    await sessions.get(d.session.id, ALICE);
    // Taken behind the cache's back, as another instance would.
    await store.resumeInterrupted(d.session.id, new Date());
    const cached = { ...(await store.get(d.session.id))!, status: 'interrupted' as const };
    sessions.cache.set(cached);
    expect(await sessions.continue(d.session.id, ALICE)).toMatchObject({ refused: expect.stringContaining('running') });
  });

  it("a follow-up's continuation carries its thread; a synthesis's, its source's answers, or a refusal without them", async () => {
    const parent = await stored(ALICE, 'Parent?', '2026-11-20T10:00:00.000Z');
    const link = await sessions.followUp(parent);
    const child = new FakeDebate({ owner: ALICE, question: 'Child?', createdAt: '2026-11-21T10:00:00.000Z' });
    child.session.threadId = link.threadId;
    child.session.parentId = link.parentId;
    await store.write(child.start().step());
    await store.recoverInterrupted(new Date());
    const continued = await sessions.continue(child.session.id, ALICE);
    expect(continued).toMatchObject({ options: { thread: { threadId: parent.id, parentId: parent.id, context: link.context } } });

    const synthesis = new FakeDebate({ owner: ALICE, question: 'Synthesized?', mode: 'synthesis' });
    synthesis.session.sourceSessionId = parent.id;
    await store.write(synthesis.start().step());
    const orphan = new FakeDebate({ owner: ALICE, question: 'Of nothing?', mode: 'synthesis' });
    orphan.session.sourceSessionId = 'ses_GONE';
    await store.write(orphan.start().step());
    await store.recoverInterrupted(new Date());
    const withAnswers = await sessions.continue(synthesis.session.id, ALICE);
    if (!withAnswers || 'refused' in withAnswers) throw new Error('refused');
    expect(withAnswers.options.answers).toStrictEqual(
      parent.rounds.flatMap((r) =>
        r.answers.filter((a) => !a.error && a.text).map((a) => ({ slot: a.slot, round: a.round, text: a.text })),
      ),
    );
    expect(await sessions.continue(orphan.session.id, ALICE)).toMatchObject({
      refused: expect.stringContaining('cannot be continued'),
    });
  });
});

describe('cancel and delete of a run on another instance (a shared store)', () => {
  /** A store shared with "another instance": stop requests are recorded, and the test plays that instance. */
  function shared(options: { orphan?: boolean; stopWaitMs?: number } = {}) {
    const requests: [string, string][] = [];
    let watcher: ((event: DebateEvent, committed: boolean) => void) | undefined;
    let onStop: ((id: string, reason: 'cancel' | 'delete') => void) | undefined;
    const other = alongside({
      watch: async (_id, listener) => {
        watcher = listener;
        return async () => {
          watcher = undefined;
        };
      },
    });
    Object.assign(other, {
      requestStop: async (id: string, reason: string) => {
        requests.push([id, reason]);
      },
      onStopRequest: (listener: typeof onStop) => {
        onStop = listener;
        return () => undefined;
      },
      // As a shared store's recovery ends a session whose cancel was kept with it.
      recoverOrphan: async (id: string) => (options.orphan ? { ...(await store.get(id))!, status: 'cancelled' } : undefined),
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({
      store: other,
      cache,
      recorder: new SessionRecorder({ store: other, cache }),
      stopWaitMs: options.stopWaitMs ?? 5000,
    });
    return { mine, requests, end: (event: DebateEvent) => watcher?.(event, true), stopHere: () => onStop };
  }
  async function runningElsewhere(): Promise<FakeDebate> {
    const d = new FakeDebate({ owner: ALICE, question: 'Elsewhere?' });
    await store.write(d.start().step());
    return d;
  }

  it('cancel asks the running instance, waits for its end, and answers with the session as stored then', async () => {
    const { mine, requests, end } = shared();
    const d = await runningElsewhere();
    const cancelling = mine.cancel(d.session.id, ALICE);
    await expect.poll(() => requests).toStrictEqual([[d.session.id, 'cancel']]);
    d.session.status = 'cancelled';
    d.end('cancelled');
    await store.write(d.step());
    end(d.raised.at(-1)!);
    expect(await cancelling).toMatchObject({ id: d.session.id, status: 'cancelled' });
  });

  it('a run that does not stop within the wait is `requested` (the cancel kept with it); one whose instance is gone ends cancelled at once', async () => {
    const waiting = shared({ stopWaitMs: 50 });
    const d = await runningElsewhere();
    expect(await waiting.mine.cancel(d.session.id, ALICE)).toMatchObject({ requested: { id: d.session.id, status: 'running' } });
    expect(waiting.requests).toStrictEqual([[d.session.id, 'cancel']]);
    const gone = shared({ orphan: true, stopWaitMs: 50 });
    expect(await gone.mine.cancel(d.session.id, ALICE)).toMatchObject({ status: 'cancelled' });
    // Asked first, so a recovery by any instance ends it as asked.
    expect(gone.requests).toStrictEqual([[d.session.id, 'cancel']]);
  });

  it('delete asks the running instance to stop, then deletes, even when it does not answer', async () => {
    const { mine, requests } = shared({ stopWaitMs: 50 });
    const d = await runningElsewhere();
    expect(await mine.delete(d.session.id, ALICE)).toBe(true);
    expect(requests).toStrictEqual([[d.session.id, 'delete']]);
    expect(await store.get(d.session.id)).toBeUndefined();
  });

  it("another instance's stop request cancels the run here, saying why", async () => {
    const { mine, stopHere } = shared();
    const controller = new AbortController();
    const log = new EventLog('ses_STOPPEDHERE');
    mine.recorder.hook(controller)(log, () => new FakeDebate({ owner: ALICE }).session);
    stopHere()!('ses_STOPPEDHERE', 'delete');
    expect((controller.signal.reason as Error).message).toBe('The session was deleted.');
    stopHere()!('ses_UNKNOWN', 'cancel');
  });
});

describe('change notices: which cached copies they drop', () => {
  it('a notice for one session drops only its copy; one that names none (changes went unheard) drops them all', async () => {
    let changed: ((id?: string) => void) | undefined;
    const watching = alongside({
      onChange: (listener: (id?: string) => void) => {
        changed = listener;
        return () => undefined;
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: watching, cache, recorder: new SessionRecorder({ store: watching, cache }) });
    const a = await stored(ALICE, 'First?', '2026-01-01T10:00:00.000Z');
    const b = await stored(ALICE, 'Second?', '2026-01-01T11:00:00.000Z');
    await mine.get(a.id, ALICE);
    await mine.get(b.id, ALICE);
    changed!(a.id);
    expect(cache.get(a.id)).toBeUndefined();
    expect(cache.get(b.id)).toEqual(b);
    await mine.get(a.id, ALICE);
    changed!(undefined);
    expect(cache.get(a.id)).toBeUndefined();
    expect(cache.get(b.id)).toBeUndefined();
  });
});

describe('drain: what it stops, why, and what it hands over', () => {
  it('aborting `now` ends the grace at once; the run stops saying the server is stopping; the rest are handed over', async () => {
    const handedOver: [readonly string[], { here: boolean }][] = [];
    const sharing = storeWith(store, {
      handOver: async (ids: readonly string[], options: { here: boolean }) => {
        handedOver.push([ids, options]);
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: sharing, cache, recorder: new SessionRecorder({ store: sharing, cache, flushMs: 5 }) });
    const d = new FakeDebate({ owner: ALICE, question: 'Stopped at once?' });
    const log = new EventLog(d.session.id);
    const controller = new AbortController();
    mine.recorder.hook(controller)(log, () => d.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] });
    const now = new AbortController();
    // An hour's grace: only the abort can end it within the test's time.
    const draining = mine.drain(3_600_000, { now: now.signal });
    now.abort();
    const interrupted = await draining;
    expect(interrupted.map((s) => [s.id, s.status])).toStrictEqual([[d.session.id, 'interrupted']]);
    expect((controller.signal.reason as Error).message).toBe('The server is stopping.');
    expect(handedOver).toStrictEqual([[[d.session.id], { here: false }]]);
  });

  it('with no run here, interrupts nothing: a session another instance runs stays running, and nothing is handed over', async () => {
    const handedOver: unknown[] = [];
    const sharing = storeWith(store, {
      handOver: async (ids: readonly string[]) => {
        handedOver.push(ids);
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: sharing, cache, recorder: new SessionRecorder({ store: sharing, cache }) });
    const elsewhere = new FakeDebate({ owner: ALICE, question: 'Running elsewhere?' });
    await store.write(elsewhere.start().step());
    expect(await mine.drain(0)).toStrictEqual([]);
    expect((await store.get(elsewhere.session.id))?.status).toBe('running');
    expect(handedOver).toStrictEqual([]);
  });
});

describe('threadAround: the sessions after', () => {
  it('none for a session without a thread, and none when they are not asked for', async () => {
    const alone = await stored(ALICE, 'Alone?', '2026-11-20T10:00:00.000Z');
    expect(await sessions.threadAround(alone)).toStrictEqual({ upTo: [alone], later: [] });
    const link = await sessions.followUp(alone);
    const child = new FakeDebate({ owner: ALICE, question: 'After?', createdAt: '2026-11-21T10:00:00.000Z' });
    child.session.threadId = link.threadId;
    child.session.parentId = link.parentId;
    for (const step of debateSteps(child, 1, 1)) await store.write(step);
    const root = (await sessions.get(alone.id, ALICE))!;
    expect((await sessions.threadAround(root)).later).toStrictEqual([child.session.id]);
    expect((await sessions.threadAround(root, false)).later).toStrictEqual([]);
  });
});

describe('continue: what it carries and what it refuses', () => {
  it('refuses a running synthesis as running, before looking for its source', async () => {
    const synthesis = new FakeDebate({ owner: ALICE, question: 'Still synthesizing?', mode: 'synthesis' });
    synthesis.session.sourceSessionId = 'ses_GONE';
    await store.write(synthesis.start().step());
    expect(await sessions.continue(synthesis.session.id, ALICE)).toStrictEqual({
      refused: `Session ${synthesis.session.id} is running: only an interrupted session can be continued.`,
    });
  });

  it("a synthesis without a source is refused; one with a source carries only its source's whole answers", async () => {
    const source = new FakeDebate({ owner: ALICE, question: 'Source?', createdAt: '2026-11-20T10:00:00.000Z' });
    await store.write(source.start().step());
    source.startRound(1);
    source.answer(1, 1);
    // A failed answer that streamed some text before failing, and an answer that said nothing.
    source.fail(1, 2).text = 'half an';
    source.answer(1, 3, '', 0);
    source.endRound(1);
    source.end('partial');
    await store.write(source.step({ rounds: [1] }));
    const withSource = new FakeDebate({ owner: ALICE, question: 'Of the source?', mode: 'synthesis' });
    withSource.session.sourceSessionId = source.session.id;
    await store.write(withSource.start().step());
    const sourceless = new FakeDebate({ owner: ALICE, question: 'Of what?', mode: 'synthesis' });
    await store.write(sourceless.start().step());
    await store.recoverInterrupted(new Date());

    expect(await sessions.continue(sourceless.session.id, ALICE)).toMatchObject({
      refused: expect.stringContaining('cannot be continued'),
    });
    const continued = await sessions.continue(withSource.session.id, ALICE);
    if (!continued || 'refused' in continued) throw new Error(`refused: ${JSON.stringify(continued)}`);
    expect(continued.options.answers).toStrictEqual([{ slot: 1, round: 1, text: source.round(1).answers[0]!.text }]);
  });

  it("a thread continues with its thread only when its parent is there: not the thread's first session, nor one whose parent was deleted", async () => {
    const parent = await stored(ALICE, 'Parent?', '2026-11-20T10:00:00.000Z');
    const link = await sessions.followUp(parent);
    const child = new FakeDebate({ owner: ALICE, question: 'Child?', createdAt: '2026-11-21T10:00:00.000Z' });
    child.session.threadId = link.threadId;
    child.session.parentId = link.parentId;
    await store.write(child.start().step());
    // The thread's first session, interrupted: it has a thread but no parent.
    const first = new FakeDebate({ owner: ALICE, question: 'First of a thread?', createdAt: '2026-11-22T10:00:00.000Z' });
    first.session.threadId = first.session.id;
    await store.write(first.start().step());
    await store.recoverInterrupted(new Date());

    expect(await sessions.continue(first.session.id, ALICE)).toMatchObject({ options: {} });
    expect(((await sessions.continue(first.session.id, ALICE)) as { refused: string }).refused).toContain('running');
    expect(await sessions.delete(parent.id, ALICE)).toBe(true);
    const continued = await sessions.continue(child.session.id, ALICE);
    if (!continued || 'refused' in continued) throw new Error(`refused: ${JSON.stringify(continued)}`);
    expect(continued.options).toStrictEqual({});
  });

  it("a store failure other than another continue's take-over is thrown, not refused; the cache never keeps the interrupted copy", async () => {
    const d = await storeInterrupted(store, ALICE);
    let failWith: unknown;
    const failing = storeWith(store, {
      resumeInterrupted: async (id: string, now: Date) => {
        // A read while the take-over is under way caches what it sees: the session still interrupted.
        await mine.get(id, ALICE);
        if (failWith !== undefined) throw failWith;
        return store.resumeInterrupted(id, now);
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: failing, cache, recorder: new SessionRecorder({ store: failing, cache }) });
    failWith = new StoreError('unavailable', 'the database is down');
    await expect(mine.continue(d.session.id, ALICE)).rejects.toThrow('the database is down');
    failWith = Object.assign(new Error('a driver error'), { code: 'conflict' });
    await expect(mine.continue(d.session.id, ALICE)).rejects.toThrow('a driver error');
    failWith = undefined;
    expect(await mine.continue(d.session.id, ALICE)).toMatchObject({ stored: { session: { status: 'running' } } });
    expect((await mine.get(d.session.id, ALICE))?.status).toBe('running');
  });
});

describe('cancel of a run on another instance: what it waits for', () => {
  /** A store shared with "another instance" (the test plays it), with an hour's wait for a stopped run's end. */
  function shared(options: { recoverOrphan?: boolean } = {}) {
    const requests: [string, string][] = [];
    let watcher: ((event: DebateEvent, committed: boolean) => void) | undefined;
    const other = storeWith(store, {
      watch: async (_id: string, listener: (event: DebateEvent, committed: boolean) => void) => {
        watcher = listener;
        return async () => {
          watcher = undefined;
        };
      },
      requestStop: async (id: string, reason: string) => {
        requests.push([id, reason]);
      },
      ...(options.recoverOrphan !== false && { recoverOrphan: async () => undefined }),
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({
      store: other,
      cache,
      recorder: new SessionRecorder({ store: other, cache }),
      stopWaitMs: 3_600_000,
    });
    return {
      mine,
      cache,
      requests,
      push: (event: DebateEvent, committed: boolean) => watcher?.(event, committed),
      watching: () => watcher !== undefined,
    };
  }

  it("waits through the run's other events for its end, answers at once with the session as stored then, and stops watching", async () => {
    for (const recoverOrphan of [true, false]) {
      const { mine, requests, push, watching } = shared({ recoverOrphan });
      const d = new FakeDebate({ owner: ALICE, question: `Elsewhere (${recoverOrphan})?` });
      await store.write(d.start().step());
      let answered = false;
      const cancelling = mine.cancel(d.session.id, ALICE).finally(() => {
        answered = true;
      });
      await expect.poll(() => requests).toStrictEqual([[d.session.id, 'cancel']]);
      d.startRound(1);
      push(d.raised.at(-1)!, false);
      push(d.raised.at(-1)!, true);
      // Every promise the event could have settled has: still waiting.
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      d.end('cancelled');
      await store.write(d.step());
      push(d.raised.at(-1)!, true);
      expect(await cancelling).toMatchObject({ id: d.session.id, status: 'cancelled' });
      expect(watching()).toBe(false);
    }
  });

  it('a copy cached as running that has ended or gone since is answered from the store, asking nobody to stop', async () => {
    const { mine, cache, requests } = shared();
    const ended = await stored(ALICE, 'Ended elsewhere?', '2026-11-20T10:00:00.000Z');
    cache.set({ ...ended, status: 'running' });
    expect(await mine.cancel(ended.id, ALICE)).toMatchObject({ id: ended.id, status: ended.status });
    const gone = new FakeDebate({ owner: ALICE, question: 'Deleted elsewhere?' });
    cache.set({ ...gone.session, status: 'running' });
    expect(await mine.cancel(gone.session.id, ALICE)).toBeUndefined();
    expect(requests).toStrictEqual([]);
  });

  it('a store that cannot ask another instance to stop is one process’s: a running session no run here holds ends cancelled', async () => {
    const watchOnly = storeWith(store, { watch: async () => async () => {} });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: watchOnly, cache, recorder: new SessionRecorder({ store: watchOnly, cache }) });
    const d = new FakeDebate({ owner: ALICE, question: 'Unstoppable?' });
    await store.write(d.start().step());
    expect(await mine.cancel(d.session.id, ALICE)).toMatchObject({ status: 'cancelled' });
  });
});

describe('follow: held live events', () => {
  it('a live event held across a gap goes as soon as live events fill it, whatever order they came in', async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Out of order?' });
    await store.write(d.start().step());
    const { mine, push } = watchedSessions();
    const sent: number[] = [];
    const signal = new AbortController();
    const following = mine.follow(
      (await mine.get(d.session.id, ALICE))!,
      0,
      async (e) => {
        sent.push(e.seq);
      },
      signal.signal,
    );
    await expect.poll(() => sent).toEqual([1]);
    d.startRound(1);
    for (const text of ['a', 'b']) d.raise({ type: 'answer.delta', round: 1, slot: 1, delta: text });
    const [round, a, b] = d.raised.slice(1);
    push(b!, false);
    // Every promise the event could have settled has: it is held.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([1]);
    push(a!, false);
    await new Promise((resolve) => setImmediate(resolve));
    push(round!, false);
    await expect.poll(() => sent).toEqual([1, 2, 3, 4]);
    signal.abort();
    await following;
  });

  it('a follower of a run taken from it (deleted elsewhere) gets an end numbered just above what it was shown', async () => {
    let gone = false;
    const taken = storeWith(store, {
      write: async (step: Step) => {
        if (gone) throw new StoreError('gone', 'Session was deleted.');
        return store.write(step);
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: taken, cache, recorder: new SessionRecorder({ store: taken, cache, flushMs: 5 }) });
    const d = new FakeDebate({ owner: ALICE, question: 'Taken?' });
    const log = new EventLog(d.session.id);
    mine.recorder.hook(new AbortController())(log, () => d.session);
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await mine.recorder.live(d.session.id)!.settled();
    const sent: DebateEvent[] = [];
    const following = mine.follow(
      (await mine.get(d.session.id, ALICE))!,
      0,
      async (e) => {
        sent.push(e);
      },
      new AbortController().signal,
    );
    await expect.poll(() => sent.length).toBe(1);
    gone = true;
    // The run's own end is held until it commits, which it never does; the end the recorder shows instead takes its
    // number: above all that was shown, and no higher than a peer's recovery would number its own.
    log.emit(endedBody());
    await following;
    expect(sent.map((e) => [e.seq, e.type, (e as { status?: string }).status])).toStrictEqual([
      [1, 'round.started', undefined],
      [2, 'session.ended', 'cancelled'],
    ]);
  });
});

describe("another instance's stop request", () => {
  it('to cancel says the session was cancelled; to delete, deleted', async () => {
    let onStop: ((id: string, reason: 'cancel' | 'delete') => void) | undefined;
    const other = storeWith(store, {
      onStopRequest: (listener: typeof onStop) => {
        onStop = listener;
        return () => undefined;
      },
    });
    const cache = new SessionCache(50);
    const mine = new Sessions({ store: other, cache, recorder: new SessionRecorder({ store: other, cache }) });
    const reasons: string[] = [];
    for (const reason of ['cancel', 'delete'] as const) {
      const controller = new AbortController();
      const log = new EventLog(`ses_STOPPED${reason}`);
      mine.recorder.hook(controller)(log, () => new FakeDebate({ owner: ALICE }).session);
      onStop!(log.sessionId, reason);
      reasons.push((controller.signal.reason as Error).message);
    }
    expect(reasons).toStrictEqual(['The session was cancelled.', 'The session was deleted.']);
  });
});

/** Makes `ids` users of the test database: a share names a user. */
async function users(...ids: string[]): Promise<void> {
  const at = new Date().toISOString();
  for (const id of ids) {
    await db.accounts.createUser({
      id,
      username: id,
      role: 'user',
      passwordHash: 'scrypt$x',
      disabled: false,
      epoch: 0,
      createdAt: at,
      updatedAt: at,
    });
  }
}

describe('read-only shares in the sessions layer', () => {
  it('only the owner shares, unshares and lists shares; a user it is shared with reads it, and nobody else', async () => {
    const a = await stored(ALICE, 'Shared?', '2026-11-20T10:00:00.000Z');
    const CAROL = 'usr_carol';
    await users(BOB, CAROL);
    expect(await sessions.share(a.id, BOB, CAROL)).toBeUndefined();
    expect(await sessions.shares(a.id, BOB)).toBeUndefined();
    expect(await sessions.read(a.id, BOB, BOB)).toBeUndefined();
    expect(await sessions.share(a.id, ALICE, BOB, new Date('2026-11-21T10:00:00.000Z'))).toStrictEqual({
      userId: BOB,
      createdAt: '2026-11-21T10:00:00.000Z',
    });
    expect((await sessions.read(a.id, BOB, BOB))?.id).toBe(a.id);
    expect((await sessions.read(a.id, ALICE, ALICE))?.id).toBe(a.id);
    expect(await sessions.read(a.id, CAROL, CAROL)).toBeUndefined();
    // Read-only: a share is no ownership.
    expect(await sessions.get(a.id, BOB)).toBeUndefined();
    expect(await sessions.shares(a.id, ALICE)).toStrictEqual([{ userId: BOB, createdAt: '2026-11-21T10:00:00.000Z' }]);
    expect(await sessions.unshare(a.id, BOB, BOB)).toBe(false);
    expect(await sessions.unshare(a.id, ALICE, BOB)).toBe(true);
    expect(await sessions.unshare(a.id, ALICE, BOB)).toBe(false);
    expect(await sessions.read(a.id, BOB, BOB)).toBeUndefined();
    expect(await sessions.shares(a.id, ALICE)).toStrictEqual([]);
  });

  it('a thread read through a share holds only the sessions shared with the reader; its owner, and an admin, see it all', async () => {
    const root = await stored(ALICE, 'Root?', '2026-11-20T10:00:00.000Z');
    const link = await sessions.followUp(root);
    const child = new FakeDebate({ owner: ALICE, question: 'Child?', createdAt: '2026-11-21T10:00:00.000Z' });
    child.session.threadId = link.threadId;
    child.session.parentId = link.parentId;
    for (const step of debateSteps(child, 1, 1)) await store.write(step);
    const later = new FakeDebate({ owner: ALICE, question: 'Later?', createdAt: '2026-11-22T10:00:00.000Z' });
    later.session.threadId = link.threadId;
    later.session.parentId = child.session.id;
    for (const step of debateSteps(later, 1, 1)) await store.write(step);
    await users(BOB);
    await sessions.share(child.session.id, ALICE, BOB);
    await sessions.share(later.session.id, ALICE, BOB);
    const all = [root.id, child.session.id, later.session.id];
    const ids = (thread: { sessions: { id: string }[] } | undefined) => thread?.sessions.map((s) => s.id);

    expect(ids(await sessions.thread(child.session.id, BOB, BOB))).toStrictEqual([child.session.id, later.session.id]);
    expect(await sessions.thread(root.id, BOB, BOB)).toBeUndefined();
    expect(ids(await sessions.thread(child.session.id, ALICE, ALICE))).toStrictEqual(all);
    expect(ids(await sessions.thread(child.session.id, ALICE))).toStrictEqual(all);
    expect(ids(await sessions.thread(child.session.id, ALL_OWNERS))).toStrictEqual(all);
    expect(ids(await sessions.thread(child.session.id, ALL_OWNERS, BOB))).toStrictEqual(all);

    const childSession = (await sessions.get(child.session.id, ALICE))!;
    const around = await sessions.threadAround(childSession, true, BOB);
    expect([around.upTo.map((s) => s.id), around.later]).toStrictEqual([[child.session.id], [later.session.id]]);
    await sessions.unshare(later.session.id, ALICE, BOB);
    expect(await sessions.threadAround(childSession, true, BOB)).toMatchObject({ later: [] });
    expect((await sessions.threadAround(childSession, true)).upTo.map((s) => s.id)).toStrictEqual([root.id, child.session.id]);
  });
});

describe('archive in the sessions layer', () => {
  it("archives the owner's session once (the first time kept) and brings it back; another owner's is left alone", async () => {
    const a = await stored(ALICE, 'Archive me?', '2026-11-20T10:00:00.000Z');
    await sessions.get(a.id, ALICE);
    expect(await sessions.setArchived(a.id, BOB, true)).toBeUndefined();
    expect((await sessions.get(a.id, ALICE))?.archivedAt).toBeUndefined();
    const first = new Date('2026-11-21T10:00:00.000Z');
    expect((await sessions.setArchived(a.id, ALICE, true, first))?.archivedAt).toBe(first.toISOString());
    expect((await sessions.get(a.id, ALICE))?.archivedAt).toBe(first.toISOString());
    expect((await sessions.setArchived(a.id, ALICE, true, new Date('2026-11-22T10:00:00.000Z')))?.archivedAt).toBe(
      first.toISOString(),
    );
    const back = await sessions.setArchived(a.id, ALICE, false);
    expect(back?.id).toBe(a.id);
    expect(back?.archivedAt).toBeUndefined();
    expect((await sessions.get(a.id, ALICE))?.archivedAt).toBeUndefined();
    expect(await sessions.setArchived('ses_NONE', ALICE, true)).toBeUndefined();
  });
});

describe('list filters in the sessions layer', () => {
  it('each filter reaches the store: shared, text, archived, mode, status, dates; a shared list is one user’s', async () => {
    const deep = await stored(ALICE, 'Deep about sharding?', '2026-11-20T10:00:00.000Z');
    const quick = new FakeDebate({
      owner: ALICE,
      question: 'Quick about caching?',
      mode: 'single',
      createdAt: '2026-11-21T10:00:00.000Z',
    });
    await store.write(quick.start().step());
    const old = await stored(ALICE, 'Old about sharding?', '2026-10-01T10:00:00.000Z');
    const bobs = await stored(BOB, "Bob's about sharding?", '2026-11-20T12:00:00.000Z');
    await sessions.setArchived(old.id, ALICE, true);
    await users(ALICE);
    await sessions.share(bobs.id, BOB, ALICE);
    const ids = async (query: Parameters<Sessions['list']>[1]) => (await sessions.list(ALICE, query)).items.map((s) => s.id);

    expect(await ids({})).toStrictEqual([quick.session.id, deep.id]);
    expect(await ids({ shared: true })).toStrictEqual([bobs.id]);
    expect(await ids({ text: 'caching' })).toStrictEqual([quick.session.id]);
    expect(await ids({ archived: true })).toStrictEqual([old.id]);
    expect(await ids({ mode: 'single' })).toStrictEqual([quick.session.id]);
    expect(await ids({ status: 'running' })).toStrictEqual([quick.session.id]);
    expect(await ids({ from: '2026-11-21T00:00:00.000Z' })).toStrictEqual([quick.session.id]);
    expect(await ids({ to: '2026-11-21T00:00:00.000Z' })).toStrictEqual([deep.id]);
    expect((await sessions.list(ALL_OWNERS, {})).items.map((s) => s.id)).toStrictEqual([quick.session.id, bobs.id, deep.id]);
    await expect(sessions.list(ALL_OWNERS, { shared: true })).rejects.toThrow('a shared list is one user’s');
  });
});

describe('replay of an interrupted session', () => {
  it("ends with the recovery's end, though it is numbered above the last event the run raised", async () => {
    const d = await storeInterrupted(store, ALICE);
    const events = await replay(d.session.id, ALICE);
    expect(events?.at(-1)).toMatchObject({ type: 'session.ended', status: 'interrupted' });
    expect(events!.at(-1)!.seq).toBeGreaterThan(d.lastSeq + 1);
  });
});
