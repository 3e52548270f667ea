/**
 * Drives a `SessionView` from the API: starts a debate or follows a stored one. Every run starts detached: the server
 * answers `202 Accepted` with the session's id at once, and the page then follows `/sessions/{id}/events` like any
 * stored session. The page leaving (a reload, lost network) does not cancel the run, so the page at `#/sessions/{id}`
 * picks it up again; only the cancel button (POST /sessions/{id}/cancel, which keeps the session) stops one. A dropped
 * stream is resumed with
 * `Last-Event-ID` set to the last `seq` applied, so nothing is shown twice or lost; `apply` drops anything resent.
 */
import {
  askFollowUp,
  askProvider,
  cancelSession,
  type DebateAccepted,
  type DebateEvent,
  type DeepRequest,
  type FollowUpRequest,
  runDeepDebate,
  runParallel,
  streamSessionEvents,
} from '../../../sdk/src/index.js';
import { ApiError, client, unwrap } from '../api.js';
import { apply, emptySession, isFinished, type SessionView } from './model.js';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface Run {
  view: SessionView;
  connection: Connection;
  /** Set when the run could not start or the session cannot be read. */
  failure?: ApiError;
  /** Stops the debate itself on the server (POST /sessions/{id}/cancel), keeping the session and what it said. */
  cancel(): void;
  /** Stops only this page's watching (navigating away). */
  detach(): void;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** True when this page started the debate, so cancelling it stops the debate itself. */
  readonly owned: boolean;
  /** Counts changes, so a view subscribing late can tell it missed some. */
  readonly version: number;
}

export type AskInput =
  | { mode: 'single'; question: string; provider: string }
  | { mode: 'parallel'; question: string; slots?: number[] }
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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

class Runner implements Run {
  view = emptySession();
  connection: Connection = 'connecting';
  failure?: ApiError;
  /** Aborts this page's event streams. */
  private readonly watching = new AbortController();

  private readonly listeners = new Set<() => void>();

  constructor(readonly owned: boolean) {}

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
    void unwrap(cancelSession({ client, path: { sessionId: id } })).then(
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
  detach() {
    this.watching.abort();
  }

  private feed(event: DebateEvent) {
    if (apply(this.view, event)) this.changed();
  }

  private setConnection(connection: Connection) {
    if (this.connection === connection) return;
    this.connection = connection;
    this.changed();
  }

  fail(err: unknown) {
    if ((err as Error).name === 'AbortError') return;
    this.failure = err instanceof ApiError ? err : new ApiError(0, { detail: (err as Error).message });
    this.setConnection('closed');
    this.changed();
  }

  /** Follows the session's stored and live events until it ends, reconnecting after any drop. */
  async follow(sessionId: string) {
    const signal = this.watching.signal;
    let failures = 0;
    while (!signal.aborted && !isFinished(this.view)) {
      let status = 0;
      const { stream } = await streamSessionEvents({
        client,
        path: { sessionId },
        headers: this.view.lastSeq > 0 ? { 'Last-Event-ID': String(this.view.lastSeq) } : {},
        signal,
        sseMaxRetryAttempts: 1,
        onSseError: (err) => {
          status = Number(/SSE failed: (\d+)/.exec(String((err as Error)?.message))?.[1] ?? 0);
        },
      });
      const before = this.view.lastSeq;
      for await (const event of stream) {
        this.setConnection('live');
        this.feed(event as DebateEvent);
        await yieldIfBusy();
      }
      if (signal.aborted || isFinished(this.view)) break;
      if (status >= 400 && status < 500) {
        this.fail(
          new ApiError(status, {
            code: status === 404 ? 'not_found' : undefined,
            detail: `Following the session failed (${status}).`,
          }),
        );
        return;
      }
      // Dropped (network loss, server restart): back off, then resume after the last event applied.
      failures = this.view.lastSeq > before ? 0 : failures + 1;
      this.setConnection('reconnecting');
      await sleep(Math.min(250 * 2 ** failures, 5000), signal);
    }
    if (!signal.aborted) this.setConnection('closed');
  }

  async start(input: AskInput, onSessionId: (id: string) => void) {
    try {
      const id = sessionIdOf(await unwrap(request(input)));
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
function request(
  input: AskInput,
): Promise<{ data?: DebateAccepted | { sessionId: string } | { id: string }; error?: unknown; response?: Response }> {
  switch (input.mode) {
    case 'single':
      return askProvider({
        client,
        path: { provider: input.provider },
        body: { question: input.question, detach: true },
      });
    case 'parallel': {
      const body = { question: input.question, detach: true, ...(input.slots && { slots: input.slots }) };
      return runParallel({ client, body });
    }
    case 'deep': {
      const { mode: _mode, ...body } = input;
      return runDeepDebate({ client, body: { ...body, detach: true } });
    }
    case 'follow-up':
      return askFollowUp({ client, path: { sessionId: input.parentId }, body: { ...input.request, detach: true } });
  }
}

/** The session's id from a start's answer: the `202`'s `sessionId` (a finished result names it too). */
const sessionIdOf = (data: DebateAccepted | { sessionId: string } | { id: string }): string =>
  'sessionId' in data ? data.sessionId : data.id;

/** Starts a debate; `onSessionId` is told its session's id as soon as it is known. */
export function startRun(input: AskInput, onSessionId: (id: string) => void): Run {
  const runner = new Runner(true);
  void runner.start(input, onSessionId);
  return runner;
}

/** Opens a stored session: its events replayed, then followed live while it runs. */
export function openRun(sessionId: string): Run {
  const runner = new Runner(false);
  void runner.follow(sessionId).catch((err) => runner.fail(err));
  return runner;
}
