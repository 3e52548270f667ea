/**
 * A run from its start to its stored end. Every run is recorded as it goes and stopped by a delete of
 * its session; an attached run also by its client going away. A detached run outlives its client: it
 * ends on its own, or when its session is deleted or cancelled.
 */
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import type { RunOptions } from '../debate/engine.js';
import type { EventLog } from '../debate/events.js';
import { type LiveSession, type SessionRecorder, STORE_UNAVAILABLE } from '../sessions/recorder.js';
import { StoreError } from '../sessions/store.js';

/** What a run needs to be recorded and stopped: the engine's `signal`, `onLog` and `owner`. */
export type RecordedOptions = Required<Pick<RunOptions, 'signal' | 'onLog' | 'owner'>>;

/** Starts the engine's work with the options that record it; resolves with the session as the engine ended it. */
export type Plan = (options: RecordedOptions) => Promise<Session>;

export interface StartOptions {
  /** Who runs it: the owner of its session. */
  owner: string;
  /** The client's signals: any of them ending cancels the run, unless `detach`. */
  client?: readonly AbortSignal[];
  /** The run goes on when its client goes away. */
  detach?: boolean;
  /** Every event as clients may see it (`LiveSession.subscribe`), from the first. */
  onEvent?: (event: DebateEvent) => void;
}

export interface StartedRun {
  /**
   * The session's id once its first write has committed, so a read right after finds it. A detached run whose
   * first write fails is stopped and dropped (no model call goes on for a session nobody can read), and this
   * rejects with the store's error.
   */
  readonly accepted: Promise<string>;
  /**
   * The session once all of it is stored. Rejects with `StoreError` `unavailable` when the store gave up on it:
   * what was not stored is never reported as a result.
   */
  readonly done: Promise<Session>;
}

export function startRun(recorder: SessionRecorder, plan: Plan, options: StartOptions): StartedRun {
  const cancel = new AbortController();
  const record = recorder.hook(cancel);
  const client = options.detach ? [] : (options.client ?? []);
  let written!: (id: string) => void;
  let refused!: (error: unknown) => void;
  const firstWrite = new Promise<string>((resolve, reject) => {
    written = resolve;
    refused = reject;
  });
  // Nobody need wait on it: an attached run's failed first write is retried, and ends the run if the store stays down.
  firstWrite.catch(() => undefined);
  // Kept from the start: once the run has ended the recorder forgets it, whether it stored it or gave up.
  let live: LiveSession | undefined;
  const onLog = (log: EventLog, snapshot: () => Session) => {
    record(log, snapshot);
    live = recorder.live(log.sessionId);
    if (options.onEvent) live?.subscribe(options.onEvent);
    // The recorder heard the first event before this listener and began writing it: wait for that write.
    const stop = log.subscribe(() => {
      stop();
      if (!live) return written(log.sessionId);
      const recording = live;
      recording.firstWrite.then(
        () => written(log.sessionId),
        (error: unknown) => {
          if (options.detach) {
            const why = error instanceof Error ? error.message : String(error);
            recording.discard(new Error(`${STORE_UNAVAILABLE}: the session's first write failed (${why}); the run was stopped`));
          }
          refused(error);
        },
      );
    });
  };
  const ran = plan({
    owner: options.owner,
    signal: AbortSignal.any([cancel.signal, ...client]),
    onLog,
  });
  const done = ran.then(async (session) => {
    if (!(await live?.done)) return session;
    throw new StoreError(
      'unavailable',
      `${STORE_UNAVAILABLE}: the store failed while session ${session.id} ran; it was not stored`,
    );
  });
  // A run that ended before its first write was acknowledged (or raised nothing) is still named by its result.
  const accepted = Promise.race([firstWrite, ran.then((session) => session.id)]);
  accepted.catch(() => undefined);
  done.catch(() => undefined);
  return { accepted, done };
}
