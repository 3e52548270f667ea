/**
 * Session history over one store: reads through the cache, owner checks, cursor pages, deletes that
 * stop a running debate first, and replay that hands over to live events with no gap and no duplicate.
 */
import type { Answer, DebateEvent, Session, SessionPage, Thread } from '../../../sdk/src/generated/types.gen.js';
import type { StoredRun, ThreadLink } from '../debate/engine.js';
import { threadContext } from '../debate/thread.js';
import type { SessionCache } from './cache.js';
import { followSession } from './follow.js';
import type { SessionRecorder } from './recorder.js';
import { type ListPosition, type ListQuery, type SessionStore, type ShareRecord, StoreError, summaryOf } from './store.js';

export interface SessionsOptions {
  store: SessionStore;
  cache: SessionCache;
  recorder: SessionRecorder;
  /** How long a cancel or delete waits for another instance's run to end (shared stores). Default 10 s. */
  stopWaitMs?: number;
  /** How often runs are checked against the store (`checkRuns`), and a quiet follower reads the store itself. Default 2 s. */
  checkEveryMs?: number;
  /** How long a follower holds an `interrupted` end for another instance to continue the session. Default 10 s. */
  handOverWaitMs?: number;
}

/** Every owner's sessions: what an admin may ask for explicitly. Anyone else passes their user id. */
export const ALL_OWNERS: unique symbol = Symbol('all owners');
/** Whose sessions a read may see: one owner's, or (for an admin, explicitly) everyone's. */
export type OwnerScope = string | typeof ALL_OWNERS;

/** What continuing an interrupted session runs: the engine's `continue` with these. */
export interface Continuation {
  stored: StoredRun;
  /** The thread a follow-up belongs to (its prompts see it), and a synthesis's source answers. */
  options: { thread?: ThreadLink; answers?: { slot: Answer['slot']; round: number; text: string }[] };
}

/** What a list may ask for (the `listSessions` query, less `owner`): the store's filters, a page and `shared`. */
export type ListOptions = Pick<ListQuery, 'q' | 'text' | 'archived' | 'mode' | 'status' | 'from' | 'to' | 'tag'> & {
  limit?: number;
  cursor?: string;
  /** Sessions shared with the user rather than theirs. */
  shared?: boolean;
};

/** A session others may no longer read: shared with `userId` no more, or deleted (for everyone). */
export type SessionAccessEnded =
  | { reason: 'share_revoked'; sessionId: string; userId: string }
  | { reason: 'session_deleted'; sessionId: string };

/** A `cursor` that is not one of ours. */
export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

export class Sessions {
  readonly store: SessionStore;
  readonly cache: SessionCache;
  readonly recorder: SessionRecorder;
  readonly #stopWaitMs: number;
  readonly #checkEveryMs: number;
  readonly #handOverWaitMs: number;
  #checks: ReturnType<typeof setInterval> | undefined;
  readonly #accessEnded = new Set<(end: SessionAccessEnded) => unknown>();

  constructor(options: SessionsOptions) {
    this.store = options.store;
    this.cache = options.cache;
    this.recorder = options.recorder;
    this.#stopWaitMs = options.stopWaitMs ?? 10_000;
    this.#checkEveryMs = options.checkEveryMs ?? 2000;
    this.#handOverWaitMs = options.handOverWaitMs ?? 10_000;
    // This instance's hold on its sessions lapsed: others may run them now.
    options.store.onLeaseLost?.(() => this.recorder.loseAll('this instance lost its hold on its sessions (its lease lapsed)'));
    // Notices lost or heard again (the database may have failed over): check what it holds of the runs here, and
    // the ended sessions not yet archived (archiving checks each record whole).
    options.store.onChange?.((id) => {
      if (id !== undefined) return;
      this.recorder.verify().catch(() => undefined);
      this.store.archiveEnded(100).catch(() => undefined);
    });
    // Another instance changed a session, or changes went unheard: our copies may be stale.
    options.store.onChange?.((id) => (id === undefined ? this.cache.clear() : this.cache.delete(id)));
    // Another instance was asked to cancel or delete a session that runs here.
    options.store.onStopRequest?.((id, reason) =>
      this.recorder.live(id)?.cancel(new Error(reason === 'delete' ? 'The session was deleted.' : 'The session was cancelled.')),
    );
  }

  /**
   * Gives running debates (being cancelled by their closing connections) up to `graceMs` to record
   * their end, and writes whatever they raised; the database is closed after, by whoever opened it.
   * A run that outlives the grace is marked `interrupted` at the next start.
   */
  async close(graceMs = 2000): Promise<void> {
    clearInterval(this.#checks);
    this.#checks = undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.recorder.done(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    await this.recorder.settled();
  }

  /**
   * Stopping for good (a deploy): running debates get `graceMs` to finish; the rest stop, and the store
   * ends them `interrupted` (what they said kept, the end appended, followers told), so any instance can
   * continue them. Returns those sessions. Aborting `now` ends the grace at once.
   */
  async drain(graceMs: number, { now }: { now?: AbortSignal } = {}): Promise<Session[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // `now` cuts the grace short (a second signal).
    const cut = new Promise((resolve) => now?.addEventListener('abort', resolve, { once: true }));
    await Promise.race([this.recorder.done(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs))), cut]);
    clearTimeout(timer);
    if (this.recorder.running === 0) return [];
    await this.recorder.stopAll(
      new Error('The server is stopping.'),
      this.store.handOver ? 'This server is stopping; another instance goes on with the debate.' : undefined,
    );
    const interrupted = await this.store.recoverInterrupted(new Date());
    for (const session of interrupted) this.cache.delete(session.id);
    // Other instances, if there are any, continue them.
    await this.store.handOver?.(
      interrupted.map((s) => s.id),
      { here: false },
    );
    return interrupted;
  }

  /** The session if it exists and `owner` may see it. */
  async get(id: string, owner: OwnerScope): Promise<Session | undefined> {
    // Shared by instances, only the store is current: another's delete or end reaches this cache by a notice, which
    // may come after the client that caused it asks here (its 204 in hand). One read of one row is cheap.
    const session =
      this.store.watch || this.store.hearsChanges?.() === false
        ? await this.store.get(id)
        : (this.cache.get(id) ?? (await this.cache.load(id, () => this.store.get(id))));
    // Someone else's session reads as absent: its existence is not ours to reveal.
    return session && (owner === ALL_OWNERS || session.owner === owner) ? session : undefined;
  }

  /**
   * The session if `owner` may see it, or it is shared with `reader` (read-only: get, follow, export). Anyone
   * else gets `undefined`, as for a session that does not exist.
   */
  async read(id: string, owner: OwnerScope, reader: string): Promise<Session | undefined> {
    const own = await this.get(id, owner);
    if (own) return own;
    return (await this.store.isSharedWith(id, reader)) ? this.get(id, ALL_OWNERS) : undefined;
  }

  /**
   * A page of `owner`'s sessions (or, with `shared`, of those shared with `owner`), filtered. `q` matches a
   * substring of the question; `text`, through the store's full-text index, the words of the session's text.
   */
  async list(owner: OwnerScope, query: ListOptions): Promise<SessionPage> {
    const { limit, cursor, shared, q, text, archived, mode, status, from, to, tag } = query;
    if (shared && owner === ALL_OWNERS) throw new Error('a shared list is one user’s');
    const page = await this.store.list({
      ...(owner !== ALL_OWNERS && (shared ? { sharedWith: owner } : { owner })),
      limit: limit ?? 20,
      ...(q !== undefined && { q }),
      ...(text !== undefined && { text }),
      ...(archived !== undefined && { archived }),
      ...(mode !== undefined && { mode }),
      ...(status !== undefined && { status }),
      ...(from !== undefined && { from }),
      ...(to !== undefined && { to }),
      ...(tag !== undefined && { tag }),
      ...(cursor !== undefined && { after: decodeCursor(cursor) }),
    });
    return { items: page.items, ...(page.next && { nextCursor: encodeCursor(page.next) }) };
  }

  /** Archives `owner`'s session (or brings it back); `undefined` when `owner` has none by that id. */
  async setArchived(id: string, owner: OwnerScope, archived: boolean, now = new Date()): Promise<Session | undefined> {
    const session = await this.get(id, owner);
    if (!session) return undefined;
    this.cache.delete(id);
    const changed = await this.store.setArchived(id, archived ? (session.archivedAt ?? now.toISOString()) : undefined);
    this.cache.delete(id);
    return changed ? this.get(id, owner) : undefined;
  }

  /** Shares `owner`'s session read-only with `userId`; `undefined` when `owner` has none by that id. */
  async share(id: string, owner: OwnerScope, userId: string, now = new Date()): Promise<ShareRecord | undefined> {
    if (!(await this.get(id, owner))) return undefined;
    return this.store.share(id, userId, now.toISOString());
  }

  /** Stops sharing `owner`'s session with `userId`; false when it was not shared with them (or is not `owner`'s). */
  async unshare(id: string, owner: OwnerScope, userId: string): Promise<boolean> {
    if (!(await this.get(id, owner))) return false;
    if (!(await this.store.unshare(id, userId))) return false;
    await this.#endAccess({ reason: 'share_revoked', sessionId: id, userId });
    return true;
  }

  /**
   * Hears of every session read access that ends through this object (a share revoked, a session deleted), once
   * stored; the change's caller waits for the listeners. Returns the listener's removal.
   */
  onAccessEnded(listener: (end: SessionAccessEnded) => unknown): () => void {
    const own = (end: SessionAccessEnded) => listener(end);
    this.#accessEnded.add(own);
    return () => this.#accessEnded.delete(own);
  }

  async #endAccess(end: SessionAccessEnded): Promise<void> {
    await Promise.all([...this.#accessEnded].map((listener) => listener(end)));
  }

  /** Whom `owner`'s session is shared with; `undefined` when `owner` has none by that id. */
  async shares(id: string, owner: OwnerScope): Promise<ShareRecord[] | undefined> {
    if (!(await this.get(id, owner))) return undefined;
    return this.store.shares(id);
  }

  /** The thread `id` belongs to, oldest first (a session without follow-ups is a thread of one). */
  async thread(id: string, owner: OwnerScope, reader?: string): Promise<Thread | undefined> {
    const session = reader === undefined ? await this.get(id, owner) : await this.read(id, owner, reader);
    if (!session) return undefined;
    if (!session.threadId) return { threadId: session.id, sessions: [summaryOf(session)] };
    const sessions = await this.store.thread(session.threadId);
    // Someone a session is shared with sees only the thread's sessions shared with them too.
    const shared = reader !== undefined && owner !== ALL_OWNERS && session.owner !== owner;
    return {
      threadId: session.threadId,
      sessions: shared ? await this.#sharedOnly(sessions, session.id, reader) : sessions,
    };
  }

  async #sharedOnly<T extends { id: string }>(items: T[], keep: string, reader: string): Promise<T[]> {
    const visible = await Promise.all(items.map((s) => s.id === keep || this.store.isSharedWith(s.id, reader)));
    return items.filter((_, i) => visible[i]);
  }

  /** The thread's sessions up to and including `session`, oldest first, whole. */
  async threadUpTo(session: Session): Promise<Session[]> {
    return (await this.threadAround(session, false)).upTo;
  }

  /**
   * `threadUpTo`, and the ids of the thread's sessions after `session` (when `later` is asked for),
   * from one read of the thread. Only sessions `session`'s owner may read are included.
   */
  async threadAround(session: Session, later = true, sharedWith?: string): Promise<{ upTo: Session[]; later: string[] }> {
    if (!session.threadId) return { upTo: [session], later: [] };
    let summaries = await this.store.thread(session.threadId);
    // Read through a share: only the thread's sessions shared with that user too.
    if (sharedWith !== undefined) summaries = await this.#sharedOnly(summaries, session.id, sharedWith);
    const at = summaries.findIndex((s) => s.id === session.id) + 1;
    const read = async (ids: string[]) =>
      (await Promise.all(ids.map((id) => (id === session.id ? session : this.get(id, session.owner))))).filter(
        (s): s is Session => s !== undefined,
      );
    const ids = summaries.map((s) => s.id);
    const [upTo, after] = await Promise.all([read(ids.slice(0, at)), later ? read(ids.slice(at)) : []]);
    return { upTo, later: after.map((s) => s.id) };
  }

  /**
   * What a follow-up to `parent` (finished) joins: its thread, created on the first follow-up by
   * marking `parent` as the thread's first session, and the thread so far, condensed.
   */
  async followUp(parent: Session): Promise<ThreadLink> {
    let root = parent;
    if (!parent.threadId) {
      root = { ...parent, threadId: parent.id };
      await this.store.write({ session: root, events: [] });
      this.cache.set(root);
    }
    return { threadId: root.threadId!, parentId: parent.id, context: threadContext(await this.threadUpTo(root)) };
  }

  /**
   * Stops the session's run and keeps the session (`cancelled`, with what was said); a session that has ended comes
   * back as it is, but an `interrupted` one is cancelled for good (nothing continues it afterwards). A run on another
   * instance (shared store) is asked to stop, and this waits for its end; one whose instance is gone ends `cancelled`
   * at once. `undefined` when `owner` has none by that id; `requested` when another instance's run did not end
   * within `stopWaitMs`: the request is kept with the session, and that instance stops the run at its next write (or
   * the session ends `cancelled` once that instance's lease lapses).
   */
  async cancel(id: string, owner: OwnerScope): Promise<Session | { requested: Session } | undefined> {
    const session = await this.get(id, owner);
    if (!session) return undefined;
    const live = this.recorder.live(id);
    if (live) {
      live.cancel(new Error('The session was cancelled.'));
      // The run writes its end once its calls have stopped: answer with the session as stored then
      // (or, when the store gave up on it, as it ended).
      return (await live.done) ?? (await this.get(id, owner)) ?? session;
    }
    const now = new Date();
    if (session.status === 'running' && !this.store.requestStop) {
      // One process: a running session with no run here is one whose end was never stored.
      await this.store.recoverStale([id], now);
    } else if (session.status === 'running') {
      const stopped = await this.#stopElsewhere(id, 'cancel');
      if (stopped?.status === 'running') return { requested: stopped };
      // Ended (as asked), or gone; an interrupted one was recovered before the cancel was kept: cancelled below.
      if (stopped?.status !== 'interrupted') return stopped;
    }
    this.cache.delete(id);
    const cancelled = await this.store.cancelInterrupted(id, now);
    this.cache.delete(id);
    return cancelled ?? session;
  }

  /**
   * Takes `owner`'s interrupted session back to `running` for a run in this process to continue it
   * (which the caller starts through the recorder, as any run). `undefined` when `owner` has none by
   * that id; `refused`, with why, when it is not `interrupted` (or cannot be continued).
   */
  async continue(id: string, owner: string, now = new Date()): Promise<Continuation | { refused: string } | undefined> {
    const session = await this.get(id, owner);
    if (!session) return undefined;
    if (session.status !== 'interrupted') {
      return { refused: `Session ${id} is ${session.status}: only an interrupted session can be continued.` };
    }
    const options: Continuation['options'] = {};
    if (session.mode === 'synthesis') {
      // A synthesis stores its verdict, not what it was made from: only a session's own answers can be read again.
      const source = session.sourceSessionId === undefined ? undefined : await this.get(session.sourceSessionId, owner);
      const answers = source && answersOf(source);
      if (!answers?.length) {
        return { refused: `Session ${id} is a synthesis of answers that were not stored; it cannot be continued.` };
      }
      options.answers = answers;
    }
    if (session.threadId !== undefined && session.parentId !== undefined) {
      const parent = await this.get(session.parentId, owner);
      if (parent) {
        options.thread = {
          threadId: session.threadId,
          parentId: parent.id,
          context: threadContext(await this.threadUpTo(parent)),
        };
      }
    }
    this.cache.delete(id);
    let stored: StoredRun | undefined;
    try {
      stored = await this.store.resumeInterrupted(id, now);
    } catch (error) {
      // Continued by another request (or instance) since it was read.
      if (error instanceof StoreError && error.code === 'conflict') return { refused: error.message };
      throw error;
    } finally {
      this.cache.delete(id);
    }
    return stored && { stored, options };
  }

  /**
   * Deletes the session, ending the streams that read it and stopping its run first (here, or through the
   * instance running it); false when `owner` has none by that id. A run elsewhere that outlives the wait cannot
   * bring the session back: a shared store refuses its later steps (`Step.run`), and the delete is kept with it.
   */
  async delete(id: string, owner: OwnerScope): Promise<boolean> {
    const session = await this.get(id, owner);
    if (!session) return false;
    // Its streams end first, saying why, rather than with the cancel of a run about to be deleted.
    await this.#endAccess({ reason: 'session_deleted', sessionId: id });
    const live = this.recorder.live(id);
    if (live) {
      live.cancel(new Error('The session was deleted.'));
      // The run writes its end once its calls have stopped; delete after that, or it would come back.
      await live.done;
    } else if (session.status === 'running') {
      await this.#stopElsewhere(id, 'delete');
    }
    this.cache.delete(id);
    // Deleted already when the instance running it was gone (its recovery deletes what was asked to be).
    await this.store.delete(id);
    this.cache.delete(id);
    return true;
  }

  /**
   * Asks the instance running `id` to stop it (kept with the session, then told) and waits (up to `stopWaitMs`) for
   * its end; a session whose instance is gone is ended here, as recovery would, as asked. The session as it then
   * stands, read from the store.
   */
  async #stopElsewhere(id: string, reason: 'cancel' | 'delete'): Promise<Session | undefined> {
    const { store } = this;
    if (!store.requestStop || !store.watch) return store.get(id);
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    // Watching before asking: the end may follow the request within a millisecond.
    const unwatch = await store.watch(id, (event) => event.type === 'session.ended' && ended());
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const before = await store.get(id);
      if (before?.status !== 'running') return before;
      await store.requestStop(id, reason);
      const orphan = await store.recoverOrphan?.(id, new Date());
      if (orphan) return orphan;
      await Promise.race([end, new Promise((resolve) => (timer = setTimeout(resolve, this.#stopWaitMs)))]);
      return (await store.recoverOrphan?.(id, new Date())) ?? (await store.get(id));
    } finally {
      clearTimeout(timer);
      await unwatch();
    }
  }

  /** Sends every event with `seq > afterSeq`, then live ones until the session ends or `signal` aborts (see `follow.ts`). */
  follow(session: Session, afterSeq: number, send: (event: DebateEvent) => Promise<void>, signal: AbortSignal): Promise<void> {
    return followSession(
      { store: this.store, recorder: this.recorder, checkEveryMs: this.#checkEveryMs, handOverWaitMs: this.#handOverWaitMs },
      session,
      afterSeq,
      send,
      signal,
    );
  }

  /**
   * Sessions the store says run here but no run here holds (its end never stored, or its store lost what it wrote
   * and the run is long over) are ended as recovery ends them, and the interrupted ones handed over; runs whose store
   * lost commits are written again (`SessionRecorder.verify`). Runs on its own every `checkEveryMs` once `start`ed.
   */
  async checkRuns(now = new Date()): Promise<Session[]> {
    await this.recorder.verify();
    // A continued run starts recording in the same turn of the event loop its session is taken back: never between.
    const stale = (await this.store.runningHere()).filter((id) => !this.recorder.holds(id));
    if (stale.length === 0) return [];
    const ended = await this.store.recoverStale(stale, now);
    for (const session of ended) this.cache.delete(session.id);
    const interrupted = ended.filter((s) => s.status === 'interrupted').map((s) => s.id);
    if (interrupted.length > 0) await this.store.handOver?.(interrupted, { here: true });
    return ended;
  }

  /** Starts `checkRuns` every `checkEveryMs`, until `close`. */
  start(onError?: (error: unknown) => void): void {
    if (this.#checks) return;
    let busy = false;
    this.#checks = setInterval(() => {
      if (busy) return;
      busy = true;
      this.checkRuns()
        .catch((error: unknown) => onError?.(error))
        .finally(() => (busy = false));
    }, this.#checkEveryMs);
    this.#checks.unref();
  }
}

/** A session's answers that said something, as a synthesis quotes them. */
export function answersOf(session: Session): { slot: Answer['slot']; round: number; text: string }[] {
  return session.rounds.flatMap((r) =>
    r.answers.filter((a) => !a.error && a.text).map((a) => ({ slot: a.slot, round: a.round, text: a.text })),
  );
}

// A cursor is the last item's position, opaque to clients: base64url of `createdAt|id`.
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.createdAt}|${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  const text = Buffer.from(cursor, 'base64url').toString();
  const bar = text.indexOf('|');
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (
    bar < 0 ||
    Number.isNaN(Date.parse(createdAt)) ||
    !/^ses_[0-9A-Za-z]+$/.test(id) ||
    encodeCursor({ createdAt, id }) !== cursor
  ) {
    throw new BadCursorError('`cursor` is not a cursor this server gave out; start again without one.');
  }
  return { createdAt, id };
}
