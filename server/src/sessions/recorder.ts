/**
 * Turns a running debate's events into store steps. A step ends at every event that changes the
 * session (an answer finished or failed, a round started or ended, the consensus, the verdict, the
 * end); deltas ride along with the next step, or with a timed flush so replay stays close behind
 * live. Each session's writes go one at a time, in order; events raised while one is in flight
 * join the next, so a busy store gets fewer, larger transactions and never a session out of order.
 *
 * Clients see a run through `LiveSession.subscribe`: every event as it happens (the stream is live;
 * a step commits within milliseconds of its event), except `session.ended`, which waits until the
 * whole run is committed, so a client that has seen the end can read the session back in full.
 * (Holding every event until its commit was tried: under a burst of 500 debates on two cores the
 * commits queue behind the event loop, and deltas held behind them arrived seconds late.)
 */
import type { DebateEvent, Session, SessionEndedEvent } from '../../../sdk/src/generated/types.gen.js';
import type { Logger } from '../config/log.js';
import type { EventLog } from '../debate/events.js';
import type { SessionCache } from './cache.js';
import { copyOf } from './snapshot.js';
import { incompleteSlots, type SessionStore, type Step, StoreError, UNSAVED_SEQ_LIMIT } from './store.js';

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
}

/** The stable start of the error a run ends with when the store stayed down. */
export const STORE_UNAVAILABLE = 'store_unavailable';

/** What the recorder knows of a session while its run is in this process. */
export interface LiveSession {
  readonly log: EventLog;
  /** Events from now on, in order: each at once, but `session.ended` once committed. Returns the unsubscribe function. */
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
   * down, once the recorder gave up, with the session as it ended (`failed`).
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

class Recording implements LiveSession {
  pending: DebateEvent[] = [];
  /** The events of the write in flight. */
  inflight: readonly DebateEvent[] = [];
  changes: Changes = { rounds: new Set(), consensus: false, verdict: false };
  /** A step boundary was reached and not yet written. */
  due = false;
  writing: Promise<void> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  ended = false;
  /** The highest `seq` committed. */
  committed = 0;
  /** The session's first step has committed: later steps only update it. */
  created = false;
  /** Events raised but not yet shown to subscribers, in order (see `release`). */
  held: DebateEvent[] = [];
  /** The highest `seq` shown to subscribers. */
  shown = 0;
  readonly listeners = new Set<(event: DebateEvent) => void>();
  /** Every event but the deltas, to name the slots a failed run left incomplete. */
  readonly progress: DebateEvent[] = [];
  /** When writes started failing, until one succeeds. */
  failingSince: number | undefined;
  /** The recorder gave up on the store: the run was stopped and ended `failed`. */
  abandoned = false;
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
    return [...this.inflight, ...this.pending].filter((e) => e.seq <= this.shown);
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

  /**
   * The end is shown once committed, so a client that saw it can read the session back in full;
   * any other event while it is less than `UNSAVED_SEQ_LIMIT` above the last commit, so recovery
   * after a crash can number its end above everything shown.
   */
  #showable(event: DebateEvent): boolean {
    return event.type === 'session.ended' ? event.seq <= this.committed : event.seq <= this.committed + UNSAVED_SEQ_LIMIT;
  }

  /** Shows `event` now, whatever is held: only the end a give-up raises, which is the last thing shown. */
  force(event: DebateEvent): void {
    this.held = [];
    this.shown = event.seq;
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.held = [];
    this.cancel(reason);
    this.finish();
  }

  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }
}

export class SessionRecorder {
  readonly #live = new Map<string, Recording>();
  readonly #store: SessionStore;
  readonly #cache: SessionCache;
  readonly #logger: Logger | undefined;
  readonly #flushMs: number;
  readonly #giveUpAfterMs: number;
  readonly #retryMs: number;
  readonly #observers = new Set<(write: WriteObservation) => void>();

  constructor(options: RecorderOptions) {
    this.#store = options.store;
    this.#cache = options.cache;
    this.#logger = options.logger;
    this.#flushMs = options.flushMs ?? 200;
    this.#giveUpAfterMs = options.giveUpAfterMs ?? 30_000;
    this.#retryMs = Math.max(this.#flushMs, options.retryMs ?? 1000);
  }

  /** The session's live state, while its run is in this process. */
  live(id: string): LiveSession | undefined {
    return this.#live.get(id);
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
        // A run stopped by a give-up ends after it; it is nobody's business here any more.
        else if (event.type === 'session.ended') this.#live.delete(log.sessionId);
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
  #timed(events: number, write: Promise<void>): Promise<void> {
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

  /** Resolves once every run being recorded has ended and been written. */
  async done(): Promise<void> {
    await Promise.all([...this.#live.values()].map((r) => r.done));
  }

  /**
   * Stops every run being recorded without recording its end (the store's recovery writes that, as
   * `interrupted`): what each raised is written first, and the last writes have settled on return.
   */
  async stopAll(reason: Error): Promise<void> {
    await this.settled();
    const runs = [...this.#live.values()];
    this.#live.clear();
    for (const r of runs) r.discard(reason);
    // A write started since `settled` resolved: let it land before recovery looks at the sessions.
    await Promise.all(runs.map((r) => r.writing?.catch(() => undefined)));
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

  #later(r: Recording, ms: number): void {
    // Unref'd: a pending flush must not keep a stopping process alive; shutdown calls `settled()`.
    r.timer ??= setTimeout(() => this.#flush(r), ms).unref();
  }

  #onEvent(r: Recording, event: DebateEvent): void {
    r.pending.push(event);
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

  #flush(r: Recording): void {
    if (r.timer) {
      clearTimeout(r.timer);
      r.timer = undefined;
    }
    if (r.writing || r.pending.length === 0) return;
    // Taken in one synchronous moment, so the session and the events describe the same instant.
    const session = copyOf(r.snapshot());
    const step: Step = {
      session,
      rounds: [...r.changes.rounds],
      consensus: r.changes.consensus,
      verdict: r.changes.verdict,
      events: r.pending,
      run: r.created ? 'later' : 'first',
    };
    const ended = r.ended;
    r.inflight = r.pending;
    r.pending = [];
    r.changes = { rounds: new Set(), consensus: false, verdict: false };
    r.due = false;
    r.writing = this.#timed(step.events.length, this.#store.write(step)).then(
      () => {
        r.firstWritten();
        r.failingSince = undefined;
        if (r.abandoned) {
          // Discarded while this write was in flight (a retry): what it stored stays, nothing more is written.
          r.writing = undefined;
          return;
        }
        this.#cache.set(session);
        r.created = true;
        r.writing = undefined;
        r.inflight = [];
        r.committed = step.events.at(-1)?.seq ?? r.committed;
        r.release();
        if (ended && r.pending.length === 0) {
          this.#live.delete(r.log.sessionId);
          r.finish();
        } else if (r.due) this.#flush(r);
        else if (r.pending.length > 0) this.#later(r, this.#flushMs);
      },
      (error: unknown) => {
        r.firstWritten(error ?? new Error('the session store failed'));
        r.writing = undefined;
        if (r.abandoned) return;
        if (error instanceof StoreError && error.code === 'gone') return this.#lose(r, error.message);
        // Nothing of the step was written: keep it for the next attempt rather than lose it.
        r.pending = [...step.events, ...r.pending];
        r.inflight = [];
        for (const n of step.rounds ?? []) r.changes.rounds.add(n);
        r.changes.consensus ||= step.consensus === true;
        r.changes.verdict ||= step.verdict === true;
        r.failingSince ??= Date.now();
        const message = error instanceof Error ? error.message : String(error);
        if (Date.now() - r.failingSince >= this.#giveUpAfterMs) return this.#abandon(r, message);
        this.#logger?.error('session write failed; retrying', {
          sessionId: r.log.sessionId,
          events: step.events.length,
          error: message,
        });
        this.#later(r, this.#retryMs);
      },
    );
  }

  /**
   * The session is no longer this run's to write (deleted, or ended by another instance): stop the run
   * and write nothing more. Its followers here get an end (`cancelled`), so their streams close.
   */
  #lose(r: Recording, why: string): void {
    r.abandoned = true;
    if (r.timer) clearTimeout(r.timer);
    r.timer = undefined;
    r.pending = [];
    r.inflight = [];
    this.#logger?.warn('session taken from this run; run stopped', { sessionId: r.log.sessionId, error: why });
    r.cancel(new Error(why));
    const running = copyOf(r.snapshot());
    r.force({
      v: 1,
      type: 'session.ended',
      sessionId: running.id,
      seq: r.log.lastSeq + 1,
      ts: new Date().toISOString(),
      status: 'cancelled',
      missingSlots: incompleteSlots(running, r.progress),
      usage: running.usage,
      cost: running.cost,
      error: `gone: ${why}`,
    });
    this.#live.delete(r.log.sessionId);
    r.finish();
  }

  /**
   * The store stayed down: stop the run, end it `failed` for its subscribers (so streams end and a
   * delete does not wait on writes that will not come), and try once more to store that end. If that
   * fails too, the session stays `running` in the store and the next start marks it `interrupted`.
   */
  #abandon(r: Recording, message: string): void {
    r.abandoned = true;
    if (r.timer) clearTimeout(r.timer);
    r.timer = undefined;
    const seconds = Math.round((Date.now() - (r.failingSince ?? Date.now())) / 1000);
    const error = `${STORE_UNAVAILABLE}: the session store failed for ${seconds} s (${message}); the run was stopped`;
    const ts = new Date().toISOString();
    const running = copyOf(r.snapshot());
    const session: Session = {
      ...running,
      status: 'failed',
      missingSlots: incompleteSlots(running, r.progress),
      updatedAt: ts,
      completedAt: ts,
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
    const events = [...r.pending, end];
    r.pending = [];
    r.writing = this.#timed(
      events.length,
      this.#store.write({
        session,
        rounds: session.rounds.map((round) => round.number),
        consensus: true,
        verdict: true,
        events,
      }),
    )
      .then(
        () => this.#cache.set(session),
        () => undefined,
      )
      .finally(() => {
        r.writing = undefined;
      });
    r.finish(session);
  }
}
