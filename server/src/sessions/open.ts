/** Opens the configured store and everything in front of it; recovers sessions a crash left running. */
import { isDatabaseUrl } from '../config/config.js';
import type { Logger } from '../config/log.js';
import { SessionCache } from './cache.js';
import { SessionRecorder } from './recorder.js';
import { Sessions } from './sessions.js';
import type { SessionStore } from './store.js';

/** An SQLite file path, or a `postgres://` URL. */
export async function openStore(location: string): Promise<SessionStore> {
  if (isDatabaseUrl(location)) {
    const { PostgresSessionStore } = await import('../store/postgres/sessions.js');
    return PostgresSessionStore.open(location);
  }
  const { SqliteSessionStore } = await import('../store/sqlite/sessions.js');
  return SqliteSessionStore.open(location);
}

export interface OpenSessionsOptions {
  database: string;
  cacheSize: number;
  logger?: Logger;
  /** How long streamed deltas may wait before they are written on their own. */
  flushMs?: number;
  /** How long a run's writes are retried while the store fails before the run ends `failed`. */
  storeRetryMs?: number;
}

/** The store, the cache and the recorder, with sessions a previous process left `running` marked `interrupted`. */
export async function openSessions(options: OpenSessionsOptions): Promise<Sessions> {
  const store = await openStore(options.database);
  const interrupted = await store.recoverInterrupted(new Date());
  if (interrupted.length > 0) {
    options.logger?.warn('sessions interrupted by a previous stop', { sessions: interrupted.map((s) => s.id) });
  }
  const cache = new SessionCache(options.cacheSize);
  const recorder = new SessionRecorder({
    store,
    cache,
    ...(options.logger && { logger: options.logger }),
    ...(options.flushMs !== undefined && { flushMs: options.flushMs }),
    ...(options.storeRetryMs !== undefined && { giveUpAfterMs: options.storeRetryMs }),
  });
  return new Sessions({ store, cache, recorder });
}
