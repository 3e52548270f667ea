/**
 * Housekeeping of the session store, on start and then hourly: archives the events of ended sessions
 * not archived yet (a store from before archives, an archive that failed at the end), and, when a
 * retention is set, deletes sessions created more than that many days ago. Freed space is reused
 * (SQLite gives it back to the file system; PostgreSQL's autovacuum makes it reusable).
 */
import type { Logger } from '../config/log.js';
import type { Sessions } from './sessions.js';

/** Sessions per store call, so one sweep never holds the write lock long. */
const BATCH = 200;
const HOUR_MS = 3_600_000;

export interface MaintenanceOptions {
  /** Delete sessions created more than this many days ago; 0 keeps them all. */
  retentionDays: number;
  now?: () => Date;
}

/** One sweep; returns what it did. Deleted sessions leave the cache too. */
export async function maintain(sessions: Sessions, options: MaintenanceOptions): Promise<{ archived: number; deleted: number }> {
  const { store, cache } = sessions;
  let archived = 0;
  for (;;) {
    const n = await store.archiveEnded(BATCH);
    archived += n;
    if (n < BATCH) break;
  }
  let deleted = 0;
  if (options.retentionDays > 0) {
    const before = new Date((options.now?.() ?? new Date()).getTime() - options.retentionDays * 24 * HOUR_MS);
    for (;;) {
      const ids = await store.deleteCreatedBefore(before, BATCH);
      for (const id of ids) cache.delete(id);
      deleted += ids.length;
      if (ids.length < BATCH) break;
    }
  }
  return { archived, deleted };
}

/** Sweeps now and every `everyMs` (default an hour) until the returned function is called. */
export function startMaintenance(
  sessions: Sessions,
  options: MaintenanceOptions & { everyMs?: number; logger?: Logger },
): () => void {
  let busy = false;
  const sweep = () => {
    if (busy) return;
    busy = true;
    maintain(sessions, options)
      .then(({ archived, deleted }) => {
        if (archived + deleted > 0) options.logger?.info('session store maintenance', { archived, deleted });
      })
      .catch((error: unknown) =>
        options.logger?.error('session store maintenance failed; retrying at the next sweep', {
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => (busy = false));
  };
  const first = setTimeout(sweep, 0);
  const timer = setInterval(sweep, options.everyMs ?? HOUR_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
