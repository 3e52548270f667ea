/**
 * Drives a `SessionView` from the API: starts a debate or follows a stored one. Every run starts detached: the server
 * answers `202 Accepted` with the session's id at once, and the page then follows `/sessions/{id}/events` like any
 * stored session. The page leaving (a reload, lost network) does not cancel the run, so the page at `#/sessions/{id}`
 * picks it up again; only the cancel button (POST /sessions/{id}/cancel, which keeps the session) stops one. Following
 * is the facade's `sessions.follow`, which resumes a dropped stream after the last `seq` applied; `apply` drops
 * anything resent.
 */
import {
  ConsiliumError,
  type DebateAccepted,
  type DebateEvent,
  type DeepRequest,
  type FollowUpRequest,
  type GroundingRequest,
} from '../../../sdk/src/index.js';
import { consilium } from '../api.js';
import { apply, emptySession, isFinished, type SessionView } from './model.js';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface Run {
  view: SessionView;
  connection: Connection;
  /** Set when the run could not start or the session cannot be read. */
  failure?: ConsiliumError;
  /** Stops the debate itself on the server (POST /sessions/{id}/cancel), keeping the session and what it said. */
  cancel(): void;
  /**
   * Continues an interrupted session on the server (POST /sessions/{id}/continue, detached) and follows it on: the
   * continued run's events come after the ones already applied.
   */
  continue(): void;
  /** Stops only this page's watching (navigating away). */
  detach(): void;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** True when this page started the debate, so cancelling it stops the debate itself. */
  readonly owned: boolean;
  /** Counts changes, so a view subscribing late can tell it missed some. */
  readonly version: number;
  /**
   * How the page met the session: `live` (started here, or caught up with it while it ran) or `finished` (its end came
   * with the replay of its stored events); undefined until one of those happened. A session met finished opens on its
   * verdict; one watched live keeps its layout when it ends, so nothing moves under the reader.
   */
  readonly met: 'live' | 'finished' | undefined;
}

export type AskInput =
  | { mode: 'single'; question: string; provider: string; grounding?: GroundingRequest }
  | { mode: 'parallel'; question: string; slots?: number[]; grounding?: GroundingRequest }
  | ({ mode: 'deep' } & DeepRequest)
  | { mode: 'follow-up'; parentId: string; request: FollowUpRequest };

/**
 * Gives the main thread back when a burst of events (a replay of a long session arrives as a few big chunks) has kept
 * it busy for a few milliseconds, so input and frames are never held up behind it.
 */
let busySince = 0;
async function yieldIfBusy(): Promise<void> {
  const now = performance.now();
  if (busySince === 0) busySince = now;
  if (now - busySince < 8) return;
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  busySince = 0;
}

class Runner implements Run {
  view = emptySession();
  connection: Connection = 'connecting';
  failure?: ConsiliumError;
  /** Aborts this page's event streams. */
  private readonly watching = new AbortController();

  private readonly listeners = new Set<() => void>();

  met: 'live' | 'finished' | undefined;

  constructor(readonly owned: boolean) {
    if (owned) this.met = 'live';
  }

  /** When the last event came: a pause in the stream while the session runs means the replay is over. */
  private lastEvent = 0;
  watchCatchUp() {
    const check = () => {
      if (this.met !== undefined || this.watching.signal.aborted) return;
      if (this.view.status === 'running' && performance.now() - this.lastEvent > 50) {
        this.met = 'live';
        this.changed();
      } else setTimeout(check, 60);
    };
    setTimeout(check, 60);
  }

  subscribe(listener: () => void) {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  version = 0;

  private changed() {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** Set by `cancel` before the session's id is known: the id's arrival then cancels it. */
  private cancelling = false;

  cancel() {
    const id = this.view.id;
    if (id === undefined) {
      // A detached run outlives its request, which may already have reached the server: wait for its id to cancel it
      // (see `start`).
      this.cancelling = true;
      return;
    }
    void consilium.sessions.cancel(id).then(
      (session) => {
        // The event stream brings `session.ended` too, and with it each unfinished answer's end; this covers a page
        // whose stream is down at the time.
        if (!isFinished(this.view)) {
          this.view.status = session.status;
          this.changed();
        }
      },
      (err) => this.fail(err),
    );
  }
  continue() {
    const id = this.view.id;
    if (id === undefined) return;
    delete this.failure;
    this.changed();
    void consilium.sessions
      .continue(id, { detach: true })
      .then(() => this.follow(id))
      .catch((err) => this.fail(err));
  }

  detach() {
    this.watching.abort();
  }

  private feed(event: DebateEvent) {
    this.lastEvent = performance.now();
    if (!apply(this.view, event)) return;
    if (this.met === undefined && isFinished(this.view)) this.met = 'finished';
    this.changed();
  }

  private setConnection(connection: Connection) {
    if (this.connection === connection) return;
    this.connection = connection;
    this.changed();
  }

  fail(err: unknown) {
    // The facade fails with a `ConsiliumError`; anything else is an event this page could not take.
    const failure =
      err instanceof ConsiliumError
        ? err
        : new ConsiliumError(String((err as Error | undefined)?.message ?? err), { code: 'invalid_response', cause: err });
    // Only this page stopped watching (it navigated away): nothing failed.
    if (failure.code === 'aborted') return;
    this.failure = failure;
    this.setConnection('closed');
    this.changed();
  }

  /**
   * Follows the session's stored and live events until it ends. A dropped stream (network loss, server restart) is
   * resumed after the last event applied, with backoff, for as long as the page watches; a refusal (404, 401) fails.
   */
  async follow(sessionId: string) {
    const events = consilium.sessions.follow(sessionId, {
      ...(this.view.lastSeq > 0 && { lastEventId: this.view.lastSeq }),
      signal: this.watching.signal,
      maxRetries: Number.POSITIVE_INFINITY,
      onReconnect: () => this.setConnection('reconnecting'),
    });
    for await (const event of events) {
      // Access ended (a share revoked, signed out elsewhere): the page may not follow it any more, and says why.
      if (event.type === 'access.ended') return this.fail(new ConsiliumError(event.detail, { code: 'forbidden' }));
      this.setConnection('live');
      this.feed(event);
      await yieldIfBusy();
    }
    this.setConnection('closed');
  }

  async start(input: AskInput, onSessionId: (id: string) => void) {
    try {
      const id = (await request(input)).sessionId;
      this.view.id ??= id;
      onSessionId(id);
      if (this.cancelling) this.cancel();
      await this.follow(id);
    } catch (err) {
      this.fail(err);
    }
  }
}

/** Starts `input` detached: the server answers `202` with the session's id as soon as it is stored as running. */
function request(input: AskInput): Promise<DebateAccepted> {
  switch (input.mode) {
    case 'single':
      return consilium.ask(input.question, {
        provider: input.provider,
        ...(input.grounding && { grounding: input.grounding }),
        detach: true,
      });
    case 'parallel':
      return consilium.debates.parallel(input.question, {
        ...(input.slots && { slots: input.slots }),
        ...(input.grounding && { grounding: input.grounding }),
        detach: true,
      });
    case 'deep': {
      const { mode: _mode, question, detach: _detach, ...options } = input;
      return consilium.debates.run(question, { ...options, detach: true });
    }
    case 'follow-up': {
      const { question, detach: _detach, ...options } = input.request;
      return consilium.sessions.followUp(input.parentId, question, { ...options, detach: true });
    }
  }
}

/** Starts a debate; `onSessionId` is told its session's id as soon as it is known. */
export function startRun(input: AskInput, onSessionId: (id: string) => void): Run {
  const runner = new Runner(true);
  void runner.start(input, onSessionId);
  return runner;
}

/** Opens a stored session: its events replayed, then followed live while it runs. */
export function openRun(sessionId: string): Run {
  const runner = new Runner(false);
  runner.watchCatchUp();
  void runner.follow(sessionId).catch((err) => runner.fail(err));
  return runner;
}
