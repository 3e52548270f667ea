/**
 * Drives a `SessionView` from the API: starts a debate (deep: its event stream; single and parallel: the request, then
 * the session's event stream once its id is known) or follows a stored one. A dropped stream is resumed with
 * `Last-Event-ID` set to the last `seq` applied, so nothing is shown twice or lost; `apply` drops anything resent.
 * Every run starts detached: the page leaving (a reload, lost network) does not cancel it, so the page at
 * `#/sessions/{id}` picks the run up again; only the cancel button (DELETE /sessions/{id}) stops one.
 */
import {
  askFollowUp,
  askProvider,
  type DebateEvent,
  type DeepRequest,
  deleteSession,
  type FollowUpRequest,
  listSessions,
  runParallel,
  streamDeepDebate,
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
  /** Stops the debate itself: DELETE /sessions/{id} (which cancels it on the server), and this page's requests. */
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
  /** Aborts the request that runs the debate (cancels it). */
  private readonly running = new AbortController();
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
      // A detached run outlives its request: wait for its id to delete it (see `start`).
      this.cancelling = true;
      if (!this.detachedStart) this.stop();
      return;
    }
    void unwrap(deleteSession({ client, path: { sessionId: id } })).then(
      () => {
        // Deleted, so no `session.ended` will come to this page: say so here.
        if (!isFinished(this.view)) this.view.status = 'cancelled';
        this.setConnection('closed');
        this.changed();
      },
      (err) => this.fail(err),
    );
    this.stop();
  }
  /** True while a detached run is being started. */
  private detachedStart = false;
  private stop() {
    this.running.abort();
    this.watching.abort();
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
    const signal = this.running.signal;
    try {
      if (input.mode === 'deep') {
        const { mode: _mode, ...body } = input;
        let failed: unknown;
        this.detachedStart = true;
        const { stream } = await streamDeepDebate({
          client,
          body: { ...body, detach: true },
          signal,
          sseMaxRetryAttempts: 1,
          onSseError: (err) => {
            failed = err;
          },
        });
        for await (const event of stream) {
          this.setConnection('live');
          const first = this.view.id === undefined;
          this.feed(event as DebateEvent);
          if (first && this.view.id) {
            onSessionId(this.view.id);
            if (this.cancelling) return this.cancel();
          }
          await yieldIfBusy();
        }
        if (signal.aborted || isFinished(this.view)) return this.setConnection('closed');
        // The debate's own stream dropped before its end: follow the session instead, from the last event seen.
        if (this.view.id) return await this.follow(this.view.id);
        throw failed ?? new Error('The debate stream ended before it started.');
      }
      // Single, parallel and follow-ups answer in one response; meanwhile their session streams like any other. They
      // start detached too, so a reload resumes them rather than cancelling them.
      this.detachedStart = true;
      const startedAt = new Date(Date.now() - 1000).toISOString();
      const question = input.mode === 'follow-up' ? input.request.question : input.question;
      const request: Promise<{ sessionId?: string; id?: string }> =
        input.mode === 'single'
          ? unwrap(askProvider({ client, path: { provider: input.provider }, body: { question, detach: true }, signal }))
          : input.mode === 'parallel'
            ? unwrap(
                runParallel({ client, body: { question, detach: true, ...(input.slots && { slots: input.slots }) }, signal }),
              )
            : unwrap(
                askFollowUp({ client, path: { sessionId: input.parentId }, body: { ...input.request, detach: true }, signal }),
              );
      let found: string | undefined;
      const finder = (async () => {
        // The session id comes with the response; until then it is the newest running session asking this question.
        for (let i = 0; i < 50 && !found && !signal.aborted; i++) {
          const page = await unwrap(listSessions({ client, query: { limit: 5, q: question.slice(0, 200) } })).catch(
            () => undefined,
          );
          const match = page?.items.find(
            (s) => s.status === 'running' && (input.mode === 'follow-up' || s.mode === input.mode) && s.createdAt >= startedAt,
          );
          if (match && !found) {
            found = match.id;
            this.view.id ??= match.id;
            onSessionId(match.id);
            if (this.cancelling) return this.cancel();
            void this.follow(match.id);
            return;
          }
          await sleep(100, signal);
        }
      })();
      const result = await request;
      if (!found) {
        found = (result.sessionId ?? result.id)!;
        this.view.id ??= found;
        onSessionId(found);
        if (this.cancelling) return this.cancel();
        await this.follow(found);
      }
      await finder;
    } catch (err) {
      this.fail(err);
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
  void runner.follow(sessionId).catch((err) => runner.fail(err));
  return runner;
}
