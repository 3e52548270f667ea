/**
 * Rate limits and running debates in PostgreSQL (migration 6), so every instance on the database counts the same:
 * each bucket operation is one statement computed from the database's clock, and a slot is taken under a per-key
 * advisory lock, so two instances cannot both take the last one. A slot belongs to the instance that took it and
 * counts only while that instance's lease (`instances`) lives: one that died frees its slots with its lease.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Rate } from '../../config/limits.js';
import type { Buckets, LimitStore, Release, Slots } from '../../limits/store.js';
import type { PostgresAccess } from './pool.js';

/** One bucket operation in ten thousand also sweeps the buckets that have refilled (they are as good as absent). */
const SWEEP_EVERY = 10_000;

/**
 * The tokens the bucket holds now: its last level, refilled for the time since, at most `count` ($2 count, $3 period
 * ms). The database's clock is a wall clock: one put back since `at` counts as no time passed, never as tokens owed.
 */
const REFILLED = `LEAST($2::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.at)) * 1000 * $2::float8 / $3::float8)`;
const LEFT_TAKE = `CASE WHEN ${REFILLED} >= 1 THEN ${REFILLED} - 1 ELSE ${REFILLED} END`;
const LEFT_CHARGE = `GREATEST(-$2::float8, ${REFILLED} - 1)`;
/** When a bucket left with `left` tokens is full again. */
const fullAt = (left: string) => `now() + ($2::float8 - (${left})) * $3::float8 / $2::float8 * interval '1 millisecond'`;

/** A new bucket starts full, so its first take or charge leaves `count - 1`. */
const upsert = (left: string, took: string) => `INSERT INTO limit_buckets AS b (key, tokens, at, took, full_at)
VALUES ($1, $2::float8 - 1, now(), true, now() + $3::float8 / $2::float8 * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET tokens = ${left}, at = now(), took = ${took}, full_at = ${fullAt(left)}
RETURNING tokens, took`;

const TAKE = upsert(LEFT_TAKE, `${REFILLED} >= 1`);
const CHARGE = upsert(LEFT_CHARGE, 'true');
const LEVEL = `SELECT ${REFILLED} AS tokens FROM limit_buckets b WHERE b.key = $1`;
/** One token back, refilled to now first, at most `count`. */
const REFUND = `UPDATE limit_buckets AS b SET tokens = LEAST($2::float8, ${REFILLED} + 1), at = now(),
full_at = ${fullAt(`LEAST($2::float8, ${REFILLED} + 1)`)} WHERE b.key = $1`;

/** Keys as fixed-size hashes: a user name may be long, or hold what `text` cannot (NUL), before it is validated. */
function hashed(name: string, key: string): string {
  return `${name}:${createHash('sha256').update(`${name}\n${key}`).digest('base64url')}`;
}

export class PostgresLimitStore implements LimitStore {
  readonly #db: PostgresAccess;
  readonly #instanceId: string;
  readonly #onError: ((error: unknown) => void) | undefined;
  #operations = 0;

  constructor(db: PostgresAccess, instanceId: string, onError?: (error: unknown) => void) {
    this.#db = db;
    this.#instanceId = instanceId;
    this.#onError = onError;
  }

  buckets(name: string, rate: Rate): Buckets {
    const params = (key: string) => [hashed(name, key), rate.count, rate.periodMs];
    return {
      take: async (key) => {
        const { rows } = await this.#db.query<{ tokens: number; took: boolean }>(TAKE, params(key));
        this.#sweepNow();
        const { tokens, took } = rows[0]!;
        return took ? undefined : Math.max(1, Math.ceil(((1 - tokens) * rate.periodMs) / rate.count / 1000));
      },
      charge: async (key) => {
        const { rows } = await this.#db.query<{ tokens: number }>(CHARGE, params(key));
        this.#sweepNow();
        return rows[0]!.tokens;
      },
      level: async (key) => {
        const { rows } = await this.#db.query<{ tokens: number }>(LEVEL, params(key));
        return rows[0]?.tokens ?? rate.count;
      },
      reset: async (key) => {
        await this.#db.query('DELETE FROM limit_buckets WHERE key = $1', [hashed(name, key)]);
      },
      refund: async (key) => {
        await this.#db.query(REFUND, params(key));
      },
    };
  }

  slots(name: string, max: number): Slots {
    return {
      acquire: async (key) => {
        const k = hashed(name, key);
        const id = await this.#db.transaction(async (client) => {
          // Held to the commit: whoever takes this key's slots next counts this one.
          await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [k]);
          await client.query(
            `DELETE FROM limit_slots s WHERE s.key = $1
               AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = s.instance AND i.expires_at > now())`,
            [k],
          );
          const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM limit_slots WHERE key = $1', [k]);
          if (Number(rows[0]!.n) >= max) return undefined;
          const slot = randomUUID();
          await client.query('INSERT INTO limit_slots (id, key, instance) VALUES ($1, $2, $3)', [slot, k, this.#instanceId]);
          return slot;
        });
        if (id === undefined) return undefined;
        return (async () => {
          try {
            await this.#db.query('DELETE FROM limit_slots WHERE id = $1', [id]);
          } catch (error) {
            // The row stays until this instance's lease is gone; until then the slot is taken.
            this.#onError?.(error);
          }
        }) satisfies Release;
      },
      held: async (key) => {
        const { rows } = await this.#db.query<{ n: string }>(
          `SELECT count(*) AS n FROM limit_slots s WHERE s.key = $1
             AND EXISTS (SELECT 1 FROM instances i WHERE i.id = s.instance AND i.expires_at > now())`,
          [hashed(name, key)],
        );
        return Number(rows[0]!.n);
      },
    };
  }

  /** Drops this instance's slots (at stop, once its runs are over); a crash leaves them to its lease. */
  async releaseAll(): Promise<void> {
    await this.#db.query('DELETE FROM limit_slots WHERE instance = $1', [this.#instanceId]);
  }

  #sweepNow(): void {
    if (++this.#operations % SWEEP_EVERY !== 0) return;
    this.#db
      .query(
        `DELETE FROM limit_buckets WHERE full_at < now();
         DELETE FROM limit_slots s WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = s.instance AND i.expires_at > now())`,
      )
      .catch((error) => this.#onError?.(error));
  }
}
