/**
 * The one way into an SQLite database's write connection: one transaction at a time. Steps that arrive
 * while a transaction runs are committed together in the next one (group commit), written in bulk, and
 * retried one savepoint each if the bulk write fails, so a bad step fails alone and leaves nothing.
 * The session store and the account store share one queue, so their writes never contend for the lock.
 */
import { type Step, StoreError } from '../../sessions/store.js';
import { type Connection, storeError } from './connection.js';
import { stepsSql } from './steps.js';

/** At most this many queued writes share one transaction, so one commit never holds up callers for long. */
const MAX_BATCH = 256;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Job {
  /** A step, written with the steps of other sessions queued beside it. */
  step?: Step;
  /** Anything else to run in the write transaction. */
  work?: (db: Connection) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class WriteQueue {
  readonly #writer: Connection;
  #queue: Job[] = [];
  #draining: Promise<void> | undefined;
  #closed = false;

  constructor(writer: Connection) {
    this.#writer = writer;
  }

  /** Writes one step atomically, in a transaction shared with the steps queued beside it. */
  write(step: Step): Promise<void> {
    return this.#enqueue({ step }) as Promise<void>;
  }

  /** Runs `work` in the write transaction, in a savepoint of its own: undone if it throws. */
  run<T>(work: (db: Connection) => Promise<T>): Promise<T> {
    return this.#enqueue({ work }) as Promise<T>;
  }

  /** Refuses new writes, and resolves once the ones queued before are committed. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#draining) await this.#draining;
  }

  #enqueue(job: Pick<Job, 'step' | 'work'>): Promise<unknown> {
    if (this.#closed) return Promise.reject(new StoreError('unavailable', 'the session store is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ ...job, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Wait for the event loop's check phase, not just a microtask: every write issued in this turn, and
    // in the requests read with it (50 debates starting at once), shares the first transaction, and the
    // provider calls a debate's first events come with go out before that commit's work (bench/README.md, providers).
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#queue.length > 0) await this.#commit(this.#queue.splice(0, MAX_BATCH));
    } finally {
      // Synchronously after seeing the queue empty: a later write starts the next drain.
      this.#draining = undefined;
    }
  }

  /**
   * One transaction for the batch; every promise settles after COMMIT. The batch goes in order as
   * segments: steps of distinct sessions in one `exec` each (the usual batch is one segment), any other
   * job in a savepoint of its own. A segment that fails is retried one savepoint per step, so only a bad
   * step fails and nothing of it stays. Only the job in a savepoint goes alone: one archive or account change
   * among 256 steps leaves the other steps in their segments, so a burst of ends does not wait a trip each.
   */
  async #commit(batch: Job[]): Promise<void> {
    const db = this.#writer;
    const parts = segments(batch);
    if (parts.length === 1 && parts[0]![0]!.step) {
      // The usual batch, one trip: IMMEDIATE takes the write lock first (waiting up to busy_timeout), not halfway through.
      try {
        await db.exec(`BEGIN IMMEDIATE;\n${stepsSql(batch.map((job) => job.step!))}\nCOMMIT;`);
        for (const job of batch) job.resolve(undefined);
        return;
      } catch (error) {
        await db.exec('ROLLBACK').catch(() => {});
        const mapped = storeError(error);
        // Locked or failing storage fails every step alike; a bad step is found one by one below.
        if (batch.length === 1 || (mapped instanceof StoreError && mapped.code !== 'conflict')) {
          for (const job of batch) job.reject(mapped);
          return;
        }
        parts.splice(0, 1, ...batch.map((job) => [job]));
      }
    }
    const outcomes = new Map<Job, Outcome>();
    try {
      await db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const job of batch) job.reject(storeError(error));
      return;
    }
    try {
      for (const segment of parts) {
        if (segment.length > 1 && (await bulk(db, segment))) {
          for (const job of segment) outcomes.set(job, { ok: true, value: undefined });
          continue;
        }
        for (const job of segment) outcomes.set(job, await attempt(db, job));
      }
      await db.exec('COMMIT');
    } catch (error) {
      await db.exec('ROLLBACK').catch(() => {});
      for (const job of batch) job.reject(storeError(error));
      return;
    }
    for (const job of batch) {
      const outcome = outcomes.get(job)!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    }
  }
}

/** The batch in order, cut into runs of steps of distinct sessions; every other job is a run of its own. */
function segments(batch: Job[]): Job[][] {
  const out: Job[][] = [];
  let steps: Job[] = [];
  let ids = new Set<string>();
  const cut = () => {
    if (steps.length > 0) out.push(steps);
    steps = [];
    ids = new Set();
  };
  for (const job of batch) {
    if (!job.step) {
      cut();
      out.push([job]);
      continue;
    }
    if (ids.has(job.step.session.id)) cut();
    ids.add(job.step.session.id);
    steps.push(job);
  }
  cut();
  return out;
}

/**
 * Writes a run of steps in one `exec`, in a savepoint: true if they were all written; false if a step
 * conflicts (nothing of the run stays; the caller retries each). Any other failure (locked or failing
 * storage) fails them all alike, so it is thrown.
 */
async function bulk(db: Connection, steps: Job[]): Promise<boolean> {
  try {
    await db.exec(`SAVEPOINT bulk;\n${stepsSql(steps.map((job) => job.step!))}\nRELEASE bulk;`);
    return true;
  } catch (error) {
    const mapped = storeError(error);
    await db.exec('ROLLBACK TO bulk; RELEASE bulk').catch(() => {
      throw mapped;
    });
    if (mapped instanceof StoreError && mapped.code !== 'conflict') throw mapped;
    return false;
  }
}

/** Runs one job in a savepoint: kept if it succeeds, undone if it throws. */
async function attempt(db: Connection, job: Job): Promise<Outcome> {
  try {
    if (job.step) {
      await db.exec(`SAVEPOINT job;\n${stepsSql([job.step])}\nRELEASE job;`);
      return { ok: true, value: undefined };
    }
    await db.exec('SAVEPOINT job');
    const value = await job.work!(db);
    await db.exec('RELEASE job');
    return { ok: true, value };
  } catch (error) {
    // If SQLite already rolled back the whole transaction (I/O error, full disk), this throws and
    // the whole batch fails with the job's own error.
    await db.exec('ROLLBACK TO job; RELEASE job').catch(() => {
      throw error;
    });
    return { ok: false, error: storeError(error) };
  }
}
