/** Puts everything in front of an opened session store; recovers sessions a crash left running. */
import type { Logger } from '../config/log.js';
import { SessionCache } from './cache.js';
import { SessionRecorder } from './recorder.js';
import { Sessions } from './sessions.js';
import type { SessionStore } from './store.js';

export interface OpenSessionsOptions {
  cacheSize: number;
  logger?: Logger;
  /** How long streamed deltas may wait before they are written on their own. */
  flushMs?: number;
  /** How long a run's writes are retried while the store fails before the run ends `failed`. */
  storeRetryMs?: number;
  /** How often runs are checked against the store (`Sessions.checkRuns`); and a quiet follower's catch-up. */
  checkEveryMs?: number;
  /** How long a follower holds an `interrupted` end for a hand-over (shared stores): about a lease. */
  handOverWaitMs?: number;
}

/**
 * The store (from `store/open.ts`), the cache and the recorder, with sessions a previous process left
 * `running` marked `interrupted`. Whoever opened the database closes it, after `Sessions.close`.
 */
export async function openSessions(store: SessionStore, options: OpenSessionsOptions): Promise<Sessions> {
  const interrupted = await store.recoverInterrupted(new Date());
  if (interrupted.length > 0) {
    options.logger?.warn('sessions interrupted by a previous stop', { sessions: interrupted.map((s) => s.id) });
    // Instances already running may continue them; this one cannot run anything yet.
    await store.handOver?.(
      interrupted.map((s) => s.id),
      { here: false },
    );
  }
  const cache = new SessionCache(options.cacheSize);
  const recorder = new SessionRecorder({
    store,
    cache,
    ...(options.logger && { logger: options.logger }),
    ...(options.flushMs !== undefined && { flushMs: options.flushMs }),
    ...(options.storeRetryMs !== undefined && { giveUpAfterMs: options.storeRetryMs }),
  });
  // Logged as they happen: a cache that cannot hear other instances' changes is cleared, and reads go to the store.
  store.onChange?.((id) => {
    if (id !== undefined) return;
    if (store.hearsChanges?.() === false) {
      options.logger?.warn('notifications from other instances lost: session cache cleared, reading from the database');
    } else options.logger?.info('notifications from other instances back: session cache cleared');
  });
  const sessions = new Sessions({
    store,
    cache,
    recorder,
    ...(options.checkEveryMs !== undefined && { checkEveryMs: options.checkEveryMs }),
    ...(options.handOverWaitMs !== undefined && { handOverWaitMs: options.handOverWaitMs }),
  });
  sessions.start((error) =>
    options.logger?.error('checking the runs against the session store failed; retrying', {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  return sessions;
}
