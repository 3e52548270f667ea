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
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import type { Logger } from '../config/log.js';
import type { EventLog } from '../debate/events.js';
import type { SessionCache } from './cache.js';
import type { SessionStore, Step } from './store.js';

export interface RecorderOptions {
  store: SessionStore;
  cache: SessionCache;
  logger?: Logger;
  /** How long deltas may wait for a step before they are written on their own. */
  flushMs?: number;
}

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
  /** Resolves once the run has ended and its last step is committed. */
  readonly done: Promise<void>;
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
  /** `session.ended`, raised and waiting for its commit before subscribers see it. */
  end: DebateEvent | undefined;
  readonly listeners = new Set<(event: DebateEvent) => void>();
  readonly done: Promise<void>;
  finish!: () => void;

  constructor(
    readonly log: EventLog,
    readonly snapshot: () => Session,
    readonly controller: AbortController,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  get released(): DebateEvent[] {
    return [...this.inflight, ...this.pending].filter((e) => e !== this.end);
  }

  subscribe(listener: (event: DebateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Passes `event` on to subscribers, or holds it if it is the end. */
  offer(event: DebateEvent): void {
    if (event.type === 'session.ended') {
      this.end = event;
      this.release();
    } else this.#publish(event);
  }

  /** Passes on the end once it is committed. */
  release(): void {
    if (this.end && this.end.seq <= this.committed) {
      const end = this.end;
      this.end = undefined;
      this.#publish(end);
    }
  }

  #publish(event: DebateEvent): void {
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

  constructor(options: RecorderOptions) {
    this.#store = options.store;
    this.#cache = options.cache;
    this.#logger = options.logger;
    this.#flushMs = options.flushMs ?? 200;
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
      const recording = new Recording(log, snapshot, cancel);
      this.#live.set(log.sessionId, recording);
      log.subscribe((event) => this.#onEvent(recording, event));
    };
  }

  /** Resolves once every run being recorded has ended and been written. */
  async done(): Promise<void> {
    await Promise.all([...this.#live.values()].map((r) => r.done));
  }

  /** Writes whatever is pending now and waits for every recording's writes (on shutdown). */
  async settled(): Promise<void> {
    for (const r of this.#live.values()) this.#flush(r);
    await Promise.all([...this.#live.values()].map((r) => r.settled()));
  }

  #later(r: Recording, ms: number): void {
    // Unref'd: a pending flush must not keep a stopping process alive; shutdown calls `settled()`.
    r.timer ??= setTimeout(() => this.#flush(r), ms).unref();
  }

  #onEvent(r: Recording, event: DebateEvent): void {
    r.pending.push(event);
    r.offer(event);
    switch (event.type) {
      case 'answer.delta':
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
        r.changes.verdict = true;
        break;
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
    const session = structuredClone(r.snapshot());
    const step: Step = {
      session,
      rounds: [...r.changes.rounds],
      consensus: r.changes.consensus,
      verdict: r.changes.verdict,
      events: r.pending,
    };
    const ended = r.ended;
    r.inflight = r.pending;
    r.pending = [];
    r.changes = { rounds: new Set(), consensus: false, verdict: false };
    r.due = false;
    r.writing = this.#store.write(step).then(
      () => {
        this.#cache.set(session);
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
        // Nothing of the step was written: keep it for the next attempt rather than lose it.
        r.pending = [...step.events, ...r.pending];
        r.inflight = [];
        for (const n of step.rounds ?? []) r.changes.rounds.add(n);
        r.changes.consensus ||= step.consensus === true;
        r.changes.verdict ||= step.verdict === true;
        r.writing = undefined;
        this.#logger?.error('session write failed; retrying', {
          sessionId: r.log.sessionId,
          events: step.events.length,
          error: error instanceof Error ? error.message : String(error),
        });
        this.#later(r, Math.max(this.#flushMs, 1000));
      },
    );
  }
}
