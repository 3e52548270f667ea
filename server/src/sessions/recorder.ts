/**
 * Turns a running debate's events into store steps. A step ends at every event that changes the
 * session (an answer finished or failed, a round started or ended, the consensus, the verdict, the
 * end); deltas ride along with the next step, or with a timed flush so replay stays close behind
 * live. Each session's writes go one at a time, in order; events raised while one is in flight
 * join the next, so a busy store gets fewer, larger transactions and never a session out of order.
 *
 * Clients see a run through `LiveSession.subscribe`, and nothing the store may not keep: nothing before
 * the session's first step has committed (so its id, once seen, reads back everywhere); the verdict, the
 * consensus and the end only once committed; any other event at most `UNSAVED_SEQ_LIMIT` events ahead of
 * the last commit (about a second of a round's deltas).
 *
 * A shared store may lose commits (a failover to a standby that had not received them): a step that
 * finds fewer events stored than its writer committed is refused as a `hole`, and the recorder writes the
 * session again from what it holds, every event of the run included. It keeps ended runs for a while to
 * check them the same way (`verify`), and stops every run once the store says this instance's hold on its
 * sessions has lapsed (`loseAll`): another instance may be running them by then.
 */
import type { DebateEvent, Session, SessionEndedEvent } from '../../../sdk/src/generated/types.gen.js';
import type { Logger } from '../config/log.js';
import type { EventLog } from '../debate/events.js';
import type { SessionCache } from './cache.js';
import { copyOf } from './snapshot.js';
import { INTERRUPTED_ERROR, incompleteSlots, type SessionStore, type Step, StoreError, UNSAVED_SEQ_LIMIT } from './store.js';

export interface RecorderOptions {
  store: SessionStore;
  cache: SessionCache;
  logger?: Logger;
  /** How long deltas may wait for a step before they are written on their own. */
  flushMs?: number;
  /** How long a run's writes are retried while the store fails before the run ends `failed`. Default 30 s. */
  giveUpAfterMs?: number;
  /** The wait between retries of a failed write. Default 1 s (at least `flushMs`). */
  retryMs?: number;
  /** How long an ended run is kept to be checked against the store (`verify`). Default 60 s. */
  keepEndedMs?: number;
}

/** The stable start of the error a run ends with when the store stayed down. */
export const STORE_UNAVAILABLE = 'store_unavailable';

/** What the recorder knows of a session while its run is in this process. */
export interface LiveSession {
  readonly log: EventLog;
  /** Events from now on, in order, as far as they may be shown (see the module's comment). Returns the unsubscribe function. */
  subscribe(listener: (event: DebateEvent) => void): () => void;
  /** Events already passed to subscribers but not yet committed, in order. */
  readonly released: readonly DebateEvent[];
  /** Stops the run (deleting a running session does). */
  cancel(reason: Error): void;
  /** Resolves once everything raised so far is committed (or failed and was logged). */
  settled(): Promise<void>;
  /**
   * Settles with the outcome of the session's first write: resolves once it has committed, rejects
   * with the store's error if it failed (even though the recorder goes on retrying it).
   */
  readonly firstWrite: Promise<void>;
  /**
   * Stops the run and drops everything not yet written, so nothing of it is stored: for a run whose
   * first write failed and which nobody will be told about (see `firstWrite`).
   */
  discard(reason: Error): void;
  /**
   * Resolves once the run has ended and its last step is committed; or, when the store stayed
   * down, once the recorder gave up, with the session as it ended (`failed`, its end written once the store is back).
   */
  readonly done: Promise<Session | undefined>;
}

/** One store write of a run's step, for metrics: how many events it carried, how long it took, whether it committed. */
export interface WriteObservation {
  events: number;
  ms: number;
  ok: boolean;
}

interface Changes {
  rounds: Set<number>;
  consensus: boolean;
  verdict: boolean;
}

/** Events clients may see only once they are stored. */
const SHOWN_ONCE_STORED = new Set<DebateEvent['type']>(['session.ended', 'verdict', 'consensus']);

class Recording implements LiveSession {
  pending: DebateEvent[] = [];
  /** Every event of the run, in order: what a repair writes again. */
  readonly all: DebateEvent[] = [];
  changes: Changes = { rounds: new Set(), consensus: false, verdict: false };
  /** A step boundary was reached and not yet written. */
  due = false;
  writing: Promise<void> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  ended = false;
  /** When the run's last step committed (`performance.now()`), for how long it is kept. */
  endedAt: number | undefined;
  /** The highest `seq` committed. */
  committed = 0;
  /** The session's first step has committed: later steps only update it. */
  created = false;
  /** The store holds events only up to this `seq` (a hole): the next write is the whole session again. */
  repairFrom: number | undefined;
  /** Events raised but not yet shown to subscribers, in order (see `release`). */
  held: DebateEvent[] = [];
  /** The highest `seq` shown to subscribers. */
  shown = 0;
  readonly listeners = new Set<(event: DebateEvent) => void>();
  /** Every event but the deltas, to name the slots a failed run left incomplete. */
  readonly progress: DebateEvent[] = [];
  /** When writes started failing, until one succeeds. */
  failingSince: number | undefined;
  /** The recorder gave up on the store (or the run was taken from it): the run was stopped. */
  abandoned = false;
  /** Dropped unwritten (`discard`): nobody is to hear of it, and it leaves once the run stops. */
  discarded = false;
  readonly done: Promise<Session | undefined>;
  finish!: (failed?: Session) => void;
  readonly firstWrite: Promise<void>;
  /** Settles `firstWrite`; later calls do nothing. */
  firstWritten!: (error?: unknown) => void;

  constructor(
    readonly log: EventLog,
    readonly snapshot: () => Session,
    readonly controller: AbortController,
    /** Every event as it is shown (for followers on other instances). */
    readonly onShown: ((event: DebateEvent) => void) | undefined,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.firstWrite = new Promise((resolve, reject) => {
      this.firstWritten = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody need wait on it: a failure is also handled by the retries.
    this.firstWrite.catch(() => undefined);
  }

  get released(): DebateEvent[] {
    const from = this.all.findIndex((e) => e.seq > this.committed);
    if (from < 0) return [];
    return this.all.slice(from).filter((e) => e.seq <= this.shown);
  }

  subscribe(listener: (event: DebateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Passes `event` on to subscribers, or holds it (see `release`). */
  offer(event: DebateEvent): void {
    if (this.held.length === 0 && this.#showable(event)) {
      this.shown = event.seq;
      this.#publish(event);
    } else {
      this.held.push(event);
    }
  }

  /** Passes on what is held, in order, as far as the commits so far allow. */
  release(): void {
    let n = 0;
    while (n < this.held.length && this.#showable(this.held[n]!)) {
      const event = this.held[n++]!;
      this.shown = event.seq;
      this.#publish(event);
    }
    if (n > 0) this.held.splice(0, n);
  }

  #showable(event: DebateEvent): boolean {
    if (!this.created) return false;
    return SHOWN_ONCE_STORED.has(event.type) ? event.seq <= this.committed : event.seq <= this.committed + UNSAVED_SEQ_LIMIT;
  }

  /** The last thing its followers here get: the session goes on elsewhere, after what they were shown. */
  tellMoved(detail: string): void {
    const moved = {
      v: 1,
      type: 'stream.moved',
      sessionId: this.log.sessionId,
      seq: this.shown,
      ts: new Date().toISOString(),
      detail,
    };
    this.held = [];
    for (const listener of this.listeners) {
      try {
        listener(moved as DebateEvent);
      } catch {
        // A closed stream.
      }
    }
  }

  /** Shows `event` now, whatever is held: only an end the recorder raises itself, the last thing shown. */
  force(event: DebateEvent): void {
    this.held = [];
    this.shown = event.seq;
    this.all.push(event);
    this.#publish(event);
  }

  #publish(event: DebateEvent): void {
    this.onShown?.(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener that fails (a closed stream) must not stop the others.
      }
    }
  }

  cancel(reason: Error): void {
    this.controller.abort(reason);
  }

  discard(reason: Error): void {
    this.abandoned = true;
    this.discarded = true;
    this.stopTimer();
    this.pending = [];
    this.held = [];
    this.cancel(reason);
    this.finish();
  }

  stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }
}

export class SessionRecorder {
  readonly #live = new Map<string, Recording>();
  /** Runs that ended, kept `keepEndedMs` for `verify`, oldest first. */
  readonly #ended = new Map<string, Recording>();
  readonly #store: SessionStore;
  readonly #cache: SessionCache;
  readonly #logger: Logger | undefined;
  readonly #flushMs: number;
  readonly #giveUpAfterMs: number;
  readonly #retryMs: number;
  readonly #keepEndedMs: number;
  readonly #observers = new Set<(write: WriteObservation) => void>();

  constructor(options: RecorderOptions) {
    this.#store = options.store;
    this.#cache = options.cache;
    this.#logger = options.logger;
    this.#flushMs = options.flushMs ?? 200;
    this.#giveUpAfterMs = options.giveUpAfterMs ?? 30_000;
    this.#retryMs = Math.max(this.#flushMs, options.retryMs ?? 1000);
    this.#keepEndedMs = options.keepEndedMs ?? 60_000;
  }

  /** The session's live state, while its run is in this process (and, after a give-up, until its end is stored). */
  live(id: string): LiveSession | undefined {
    return this.#live.get(id);
  }

  /** Whether a run here holds `id`: running, its end waiting for the store, or ended lately and kept for `verify`. */
  holds(id: string): boolean {
    return this.#live.has(id) || this.#ended.has(id);
  }

  /** How many runs are being recorded. */
  get running(): number {
    return this.#live.size;
  }

  /**
   * The engine's `onLog` hook for one run: records it from its first event on. `cancel` is the
   * controller whose signal the run was given, so deleting the session can stop it.
   */
  hook(cancel: AbortController): (log: EventLog, snapshot: () => Session) => void {
    return (log, snapshot) => {
      const recording = new Recording(log, snapshot, cancel, this.#store.publish?.bind(this.#store));
      this.#live.set(log.sessionId, recording);
      log.subscribe((event) => {
        if (!recording.abandoned) this.#onEvent(recording, event);
        else if (recording.discarded && event.type === 'session.ended' && this.#live.get(log.sessionId) === recording) {
          this.#live.delete(log.sessionId);
        }
      });
    };
  }

  /** Calls `observer` after every store write, committed or failed; returns the function that stops it. */
  observeWrites(observer: (write: WriteObservation) => void): () => void {
    const own = (write: WriteObservation) => observer(write);
    this.#observers.add(own);
    return () => this.#observers.delete(own);
  }

  /** Times `write`, and tells the observers how it went. */
  #timed<T>(events: number, write: Promise<T>): Promise<T> {
    if (this.#observers.size === 0) return write;
    const started = performance.now();
    const tell = (ok: boolean) => {
      const ms = performance.now() - started;
      for (const observer of this.#observers) {
        try {
          observer({ events, ms, ok });
        } catch {
          // Metrics must never stop a run.
        }
      }
    };
    write.then(
      () => tell(true),
      () => tell(false),
    );
    return write;
  }

  /** Resolves once every run being recorded has ended and been written (a run the store gave up on counts as ended). */
  async done(): Promise<void> {
    await Promise.all([...this.#live.values()].map((r) => r.done));
  }

  /**
   * Stops every run being recorded without recording its end (the store's recovery writes that, as
   * `interrupted`): what each raised is written first, and the last writes have settled on return. With `moved`,
   * the runs' followers here are told where to read on (`stream.moved`): another instance takes the runs over.
   */
  async stopAll(reason: Error, moved?: string): Promise<void> {
    await this.settled();
    const runs = [...this.#live.values()];
    this.#live.clear();
    if (moved) for (const r of runs) r.tellMoved(moved);
    for (const r of runs) r.discard(reason);
    // A write started since `settled` resolved: let it land before recovery looks at the sessions.
    await Promise.all(runs.map((r) => r.writing?.catch(() => undefined)));
  }

  /**
   * Stops every run: this instance may no longer write its sessions (its lease lapsed while the store was out of
   * reach, and another instance may have taken them). Followers here get an `interrupted` end, numbered above
   * anything shown; what was committed is what the session holds.
   */
  loseAll(why: string): void {
    for (const r of [...this.#live.values()]) {
      if (!r.abandoned) this.#lose(r, why, 'interrupted');
    }
  }

  /** Writes whatever is pending now and waits for every recording's writes (on shutdown). */
  async settled(): Promise<void> {
    let runs = [...this.#live.values()];
    while (runs.length > 0) {
      for (const r of runs) this.#flush(r);
      await Promise.all(runs.map((r) => r.settled()));
      // What came in behind a write in flight; not a failing store's, which retries on its own schedule.
      runs = runs.filter((r) => r.pending.length > 0 && r.failingSince === undefined && !r.abandoned);
    }
  }

  /**
   * Checks the runs here and those ended lately against what the store holds (`SessionStore.tops`), and writes
   * again each one the store holds less of than was committed: after a failover to a standby that had not
   * received the last commits. A no-op on a store that cannot lose commits.
   */
  async verify(): Promise<number> {
    if (!this.#store.tops) return 0;
    const now = performance.now();
    for (const [id, r] of this.#ended) {
      if (now - (r.endedAt ?? now) <= this.#keepEndedMs) break;
      this.#ended.delete(id);
    }
    const runs = [...this.#live.values(), ...this.#ended.values()].filter((r) => r.created && !r.abandoned);
    if (runs.length === 0) return 0;
    const tops = await this.#store.tops(runs.map((r) => r.log.sessionId));
    let repaired = 0;
    for (const r of runs) {
      // Absent: deleted since, nothing to write again.
      const top = tops.get(r.log.sessionId);
      if (top === undefined || top >= r.committed || r.writing) continue;
      repaired++;
      this.#repair(r, top);
    }
    return repaired;
  }

  /** Writes the whole session again from what `r` holds, its events after `top` (what the store still has). */
  #repair(r: Recording, top: number): void {
    this.#logger?.warn('the store lost committed events of a session; writing them again', {
      sessionId: r.log.sessionId,
      stored: top,
      committed: r.committed,
    });
    r.repairFrom = top;
    r.committed = Math.min(r.committed, top);
    if (!this.#live.has(r.log.sessionId)) this.#live.set(r.log.sessionId, r);
    this.#ended.delete(r.log.sessionId);
    r.due = true;
    this.#flush(r);
  }

  #later(r: Recording, ms: number): void {
    // Unref'd: a pending flush must not keep a stopping process alive; shutdown calls `settled()`.
    r.timer ??= setTimeout(() => this.#flush(r), ms).unref();
  }

  #onEvent(r: Recording, event: DebateEvent): void {
    r.pending.push(event);
    r.all.push(event);
    r.offer(event);
    if (event.type !== 'answer.delta' && event.type !== 'verdict.delta') r.progress.push(event);
    switch (event.type) {
      case 'answer.delta':
      case 'verdict.delta':
        this.#later(r, this.#flushMs);
        return;
      case 'round.started':
      case 'round.ended':
      case 'answer.failed':
        r.changes.rounds.add(event.round);
        break;
      case 'answer.completed':
        r.changes.rounds.add(event.answer.round);
        break;
      case 'consensus':
        r.changes.consensus = true;
        break;
      case 'verdict':
        // The engine ends the run right after its verdict: written with the end, that is one commit the
        // end waits for, not two (a burst of 500 debates showed the end p50 at about two commits).
        r.changes.verdict = true;
        this.#later(r, this.#flushMs);
        return;
      case 'session.ended':
        r.ended = true;
        break;
    }
    r.due = true;
    this.#flush(r);
  }

  /** The next step of `r`: what is pending, or, after a hole, the whole session and its events after what is stored. */
  #step(r: Recording): Step {
    // Taken in one synchronous moment, so the session and the events describe the same instant.
    const session = copyOf(r.snapshot());
    if (r.repairFrom !== undefined) {
      const top = r.repairFrom;
      return {
        session,
        rounds: session.rounds.map((round) => round.number),
        consensus: true,
        verdict: true,
        events: r.all.filter((e) => e.seq > top),
        // Not stored at all: created again.
        run: top === 0 && r.log.base === 0 ? 'first' : 'later',
        after: top,
      };
    }
    return {
      session,
      rounds: [...r.changes.rounds],
      consensus: r.changes.consensus,
      verdict: r.changes.verdict,
      events: r.pending,
      run: r.created ? 'later' : 'first',
      ...(r.created && { after: r.committed }),
    };
  }

  #flush(r: Recording): void {
    r.stopTimer();
    if (r.writing || (r.pending.length === 0 && r.repairFrom === undefined)) return;
    const step = this.#step(r);
    const ended = r.ended;
    const repairing = r.repairFrom !== undefined;
    const written = r.pending;
    r.pending = [];
    r.changes = { rounds: new Set(), consensus: false, verdict: false };
    r.due = false;
    r.writing = this.#timed(step.events.length, this.#store.write(step)).then(
      (outcome) => {
        r.firstWritten();
        r.failingSince = undefined;
        r.writing = undefined;
        // Discarded while this write was in flight (a retry): what it stored stays, nothing more is written.
        if (r.abandoned) return;
        if (repairing) r.repairFrom = undefined;
        this.#cache.set(step.session);
        r.created = true;
        r.committed = Math.max(r.committed, step.events.at(-1)?.seq ?? r.committed);
        r.release();
        // A stop another instance asked for while this one could not hear it.
        if (outcome?.stopRequested && !ended) {
          r.cancel(new Error(outcome.stopRequested === 'delete' ? 'The session was deleted.' : 'The session was cancelled.'));
        }
        if (ended && r.pending.length === 0) this.#ended_(r);
        else if (r.due) this.#flush(r);
        else if (r.pending.length > 0) this.#later(r, this.#flushMs);
      },
      (error: unknown) => {
        r.firstWritten(error ?? new Error('the session store failed'));
        r.writing = undefined;
        if (r.abandoned) return;
        if (error instanceof StoreError && error.code === 'gone') return this.#lose(r, error.message, 'cancelled');
        if (error instanceof StoreError && error.code === 'hole') {
          const top = error.storedTop ?? 0;
          // Events before this run's first (a continued session's) were lost too: they cannot be written again.
          if (top < r.log.base)
            return this.#lose(r, `the store lost events up to ${r.log.base}: ${error.message}`, 'interrupted');
          // What was written is in `all`: the repair writes it again, with what came in meanwhile.
          return this.#repair(r, top);
        }
        // Nothing of the step was written: keep it for the next attempt rather than lose it.
        if (!repairing) {
          r.pending = [...written, ...r.pending];
          for (const n of step.rounds ?? []) r.changes.rounds.add(n);
          r.changes.consensus ||= step.consensus === true;
          r.changes.verdict ||= step.verdict === true;
        }
        r.failingSince ??= performance.now();
        const message = error instanceof Error ? error.message : String(error);
        if (performance.now() - r.failingSince >= this.#giveUpAfterMs) return this.#abandon(r, message);
        this.#logger?.error('session write failed; retrying', {
          sessionId: r.log.sessionId,
          events: step.events.length,
          error: message,
        });
        this.#later(r, this.#retryMs);
      },
    );
  }

  /** The run's last step committed: it leaves the live runs and is kept a while for `verify`. */
  #ended_(r: Recording): void {
    this.#live.delete(r.log.sessionId);
    r.endedAt = performance.now();
    if (this.#store.tops) this.#ended.set(r.log.sessionId, r);
    r.finish();
  }

  /**
   * The session is no longer this run's to write (deleted, or ended by another instance; or this instance lost its
   * hold on it): stop the run and write nothing more. Its followers here get an end (`status`), so their streams close.
   */
  #lose(r: Recording, why: string, status: 'cancelled' | 'interrupted'): void {
    r.abandoned = true;
    r.stopTimer();
    r.pending = [];
    this.#logger?.warn('session taken from this run; run stopped', { sessionId: r.log.sessionId, error: why });
    r.cancel(new Error(why));
    const running = copyOf(r.snapshot());
    r.force({
      v: 1,
      type: 'session.ended',
      sessionId: running.id,
      // Above anything shown, and no higher than the end a peer's recovery writes (stored top + UNSAVED_SEQ_LIMIT + 1),
      // so a client resuming from it elsewhere misses none of what follows.
      seq: r.shown + 1,
      ts: new Date().toISOString(),
      status,
      missingSlots: incompleteSlots(running, r.progress),
      usage: running.usage,
      cost: running.cost,
      error: status === 'cancelled' ? `gone: ${why}` : `${INTERRUPTED_ERROR} (${why})`,
    });
    this.#live.delete(r.log.sessionId);
    r.finish();
  }

  /**
   * The store stayed down: stop the run, end it `failed` for its subscribers (so streams end and a delete does not
   * wait on writes that will not come), and write that end as soon as the store takes it. Until then the run stays
   * live here, so a cancel or a replay finds how it ended.
   */
  #abandon(r: Recording, message: string): void {
    r.abandoned = true;
    r.stopTimer();
    const seconds = Math.round((performance.now() - (r.failingSince ?? performance.now())) / 1000);
    const error = `${STORE_UNAVAILABLE}: the session store failed for ${seconds} s (${message}); the run was stopped`;
    const ts = new Date().toISOString();
    const running = copyOf(r.snapshot());
    const session: Session = {
      ...running,
      status: 'failed',
      missingSlots: incompleteSlots(running, r.progress),
      updatedAt: ts,
      completedAt: ts,
      endReason: error,
    };
    const end: SessionEndedEvent = {
      v: 1,
      type: 'session.ended',
      sessionId: session.id,
      seq: r.log.lastSeq + 1,
      ts,
      status: 'failed',
      missingSlots: session.missingSlots,
      usage: session.usage,
      cost: session.cost,
      error,
    };
    this.#logger?.error('session store unavailable; run stopped', { sessionId: session.id, error });
    r.cancel(new Error(error));
    r.force(end);
    r.finish(session);
    const step: Step = {
      session,
      rounds: session.rounds.map((round) => round.number),
      consensus: true,
      verdict: true,
      events: r.all.filter((e) => e.seq > r.committed),
      run: r.created ? 'later' : 'first',
      ...(r.created && { after: r.committed }),
    };
    r.pending = [];
    const attempt = () => {
      r.writing = this.#timed(step.events.length, this.#store.write(step)).then(
        () => {
          r.writing = undefined;
          this.#cache.set(session);
          if (this.#live.get(session.id) === r) this.#live.delete(session.id);
        },
        (failure: unknown) => {
          r.writing = undefined;
          // Taken by another instance, or deleted: its end is not this run's to write.
          if (failure instanceof StoreError && (failure.code === 'gone' || failure.code === 'hole')) {
            if (this.#live.get(session.id) === r) this.#live.delete(session.id);
            return;
          }
          r.timer = setTimeout(attempt, this.#retryMs).unref();
        },
      );
    };
    attempt();
  }
}
