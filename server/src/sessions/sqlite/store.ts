/**
 * Sessions in one SQLite file (WAL). Writes go through one connection, one transaction at a time;
 * steps that arrive while a transaction runs are committed together in the next one (group
 * commit), each inside its own savepoint so a failing step is undone alone. Reads use a second
 * connection and one statement each, so they see a committed snapshot and never wait for a write.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { DebateEvent, Session, SessionSummary } from '../../../../sdk/src/generated/types.gen.js';
import { type ListPage, type ListQuery, type SessionStore, type Step, StoreError } from '../store.js';
import { Connection, type Row, storeError } from './connection.js';
import { migrate } from './migrations.js';

export interface SqliteOptions {
  /** How long a write waits for another process's lock before failing as `unavailable`. Default 5000. */
  busyTimeoutMs?: number;
}

/** At most this many queued writes share one transaction, so one commit never holds up callers for long. */
const MAX_BATCH = 256;

interface Job {
  work: (db: Connection) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const UPSERT_SESSION = `
  INSERT INTO sessions (id, owner, mode, question, question_folded, rounds_requested, status, missing_slots,
    input_tokens, output_tokens, total_tokens, cost_usd, cost_priced, prompt_version, created_at, updated_at, completed_at)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
  ON CONFLICT (id) DO UPDATE SET owner = ?2, mode = ?3, question = ?4, question_folded = ?5, rounds_requested = ?6,
    status = ?7, missing_slots = ?8, input_tokens = ?9, output_tokens = ?10, total_tokens = ?11, cost_usd = ?12,
    cost_priced = ?13, prompt_version = ?14, created_at = ?15, updated_at = ?16, completed_at = ?17`;

// Deleting a round deletes its answers (ON DELETE CASCADE).
const DELETE_ROUNDS = 'DELETE FROM rounds WHERE session_id = ?1 AND number IN (SELECT value FROM json_each(?2))';
const INSERT_ROUNDS = `
  INSERT INTO rounds (session_id, number, kind, missing_slots)
  SELECT ?1, value ->> 'number', value ->> 'kind', value -> 'missingSlots' FROM json_each(?2)`;
const INSERT_ANSWERS = `
  INSERT INTO answers (session_id, round, position, slot, provider, model, input_tokens, output_tokens, total_tokens,
    latency_ms, finish_reason, error_code, body)
  SELECT ?1, r.value ->> 'number', a.key, a.value ->> 'slot', a.value ->> 'provider', a.value ->> 'model',
    a.value ->> '$.usage.inputTokens', a.value ->> '$.usage.outputTokens', a.value ->> '$.usage.totalTokens',
    a.value ->> 'latencyMs', a.value ->> 'finishReason', a.value ->> '$.error.code', a.value
  FROM json_each(?2) AS r, json_each(r.value, '$.answers') AS a`;
// One statement for a whole batch of events: thousands of deltas cost one round trip, not thousands.
const INSERT_EVENTS = `
  INSERT INTO events (session_id, seq, type, body)
  SELECT ?1, value ->> 'seq', value ->> 'type', value FROM json_each(?2)`;

// The whole session in one statement, so it is one consistent snapshot without an explicit transaction.
const GET_SESSION = `
  SELECT s.*,
    (SELECT body FROM consensus WHERE session_id = s.id) AS consensus,
    (SELECT body FROM verdicts WHERE session_id = s.id) AS verdict,
    (SELECT json_group_array(json_object(
        'number', r.number, 'kind', r.kind, 'missingSlots', json(r.missing_slots),
        'answers', (SELECT json_group_array(json(a.body) ORDER BY a.position) FROM answers AS a
                    WHERE a.session_id = r.session_id AND a.round = r.number)
      ) ORDER BY r.number)
      FROM rounds AS r WHERE r.session_id = s.id) AS rounds
  FROM sessions AS s WHERE s.id = ?1`;

// Bodies are stored as valid JSON, so joining them is a JSON array: one parse instead of one per row.
const GET_EVENTS = `SELECT '[' || group_concat(body, ',' ORDER BY seq) || ']' AS list FROM events WHERE session_id = ?1 AND seq > ?2`;

const SUMMARY_COLUMNS =
  'id, mode, question, status, rounds_requested, input_tokens, output_tokens, total_tokens, cost_usd, cost_priced, created_at, updated_at';

export const INTERRUPTED_ERROR = 'interrupted: the server stopped while this session was running';

export class SqliteSessionStore implements SessionStore {
  readonly kind = 'sqlite';
  readonly file: string;
  readonly #writer: Connection;
  readonly #reader: Connection;
  #queue: Job[] = [];
  #draining: Promise<void> | undefined;
  #closed = false;

  private constructor(file: string, writer: Connection, reader: Connection) {
    this.file = file;
    this.#writer = writer;
    this.#reader = reader;
  }

  /** Opens (creating it and its folder if need be) and migrates the database at `file`. */
  static async open(file: string, options: SqliteOptions = {}): Promise<SqliteSessionStore> {
    const path = resolve(file);
    const busyTimeout = options.busyTimeoutMs ?? 5000;
    await mkdir(dirname(path), { recursive: true });
    const writer = await Connection.open(path);
    let reader: Connection | undefined;
    try {
      const [mode] = await writer.all<{ journal_mode: string }>('PRAGMA journal_mode = WAL');
      if (mode?.journal_mode !== 'wal')
        throw new StoreError('unavailable', `${path}: cannot use WAL (journal_mode is ${mode?.journal_mode})`);
      // synchronous=NORMAL is safe with WAL: a crash of the process loses nothing committed, and power
      // loss can at worst drop the last commits, never corrupt the file. FULL would fsync every commit.
      await writer.exec(`PRAGMA busy_timeout = ${busyTimeout}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL`);
      await migrate(writer, path);
      reader = await Connection.open(path);
      await reader.exec(`PRAGMA busy_timeout = ${busyTimeout}; PRAGMA foreign_keys = ON; PRAGMA query_only = ON`);
    } catch (error) {
      await reader?.close().catch(() => {});
      await writer.close().catch(() => {});
      throw error;
    }
    return new SqliteSessionStore(path, writer, reader);
  }

  write(step: Step): Promise<void> {
    return this.#enqueue(async (db) => {
      const s = step.session;
      await db.run(UPSERT_SESSION, [
        s.id,
        s.owner,
        s.mode,
        s.question,
        s.question.toLowerCase(),
        s.roundsRequested,
        s.status,
        JSON.stringify(s.missingSlots),
        s.usage.inputTokens,
        s.usage.outputTokens,
        s.usage.totalTokens,
        s.cost.usd,
        s.cost.priced ? 1 : 0,
        s.promptVersion ?? null,
        s.createdAt,
        s.updatedAt,
        s.completedAt ?? null,
      ]);
      if (step.rounds && step.rounds.length > 0) {
        const numbers = JSON.stringify(step.rounds);
        const rounds = JSON.stringify(s.rounds.filter((r) => step.rounds!.includes(r.number)));
        await db.run(DELETE_ROUNDS, [s.id, numbers]);
        await db.run(INSERT_ROUNDS, [s.id, rounds]);
        await db.run(INSERT_ANSWERS, [s.id, rounds]);
      }
      if (step.consensus) await this.#writeBody(db, 'consensus', s.id, s.consensus);
      if (step.verdict) await this.#writeBody(db, 'verdicts', s.id, s.verdict);
      if (step.events.length > 0) await db.run(INSERT_EVENTS, [s.id, JSON.stringify(step.events)]);
    }) as Promise<void>;
  }

  async get(id: string): Promise<Session | undefined> {
    return this.#get(this.#reader, id);
  }

  async list(query: ListQuery): Promise<ListPage> {
    const where = ['owner = ?1'];
    const params: unknown[] = [query.owner, query.limit + 1];
    if (query.q !== undefined && query.q !== '') {
      params.push(`%${query.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`);
      where.push(`question_folded LIKE ?${params.length} ESCAPE '\\'`);
    }
    if (query.after) {
      params.push(query.after.createdAt, query.after.id);
      where.push(`(created_at, id) < (?${params.length - 1}, ?${params.length})`);
    }
    const rows = await this.#reader.all(
      `SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?2`,
      params,
    );
    const items = rows.slice(0, query.limit).map(summaryFromRow);
    const last = items.at(-1);
    return rows.length > query.limit && last ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
  }

  delete(id: string): Promise<boolean> {
    return this.#enqueue(
      async (db) => (await db.run('DELETE FROM sessions WHERE id = ?1', [id])).changes > 0,
    ) as Promise<boolean>;
  }

  async events(id: string, afterSeq: number): Promise<DebateEvent[]> {
    const row = await this.#reader.first<{ list: string | null }>(GET_EVENTS, [id, afterSeq]);
    return row?.list ? (JSON.parse(row.list) as DebateEvent[]) : [];
  }

  recoverInterrupted(now: Date): Promise<Session[]> {
    const ts = now.toISOString();
    return this.#enqueue(async (db) => {
      const running = await db.all<{ id: string; last_seq: number | null }>(
        `SELECT id, (SELECT max(seq) FROM events WHERE session_id = s.id) AS last_seq FROM sessions AS s WHERE status = 'running'`,
      );
      const recovered: Session[] = [];
      for (const { id, last_seq } of running) {
        await db.run(`UPDATE sessions SET status = 'interrupted', updated_at = ?2, completed_at = ?2 WHERE id = ?1`, [id, ts]);
        const session = (await this.#get(db, id))!;
        const ended: DebateEvent = {
          v: 1,
          type: 'session.ended',
          sessionId: id,
          seq: (last_seq ?? 0) + 1,
          ts,
          status: 'interrupted',
          missingSlots: session.missingSlots,
          usage: session.usage,
          cost: session.cost,
          error: INTERRUPTED_ERROR,
        };
        await db.run(INSERT_EVENTS, [id, JSON.stringify([ended])]);
        recovered.push(session);
      }
      return recovered;
    }) as Promise<Session[]>;
  }

  /**
   * `VACUUM INTO` on a connection of its own: it reads one snapshot while writes go on (WAL), and
   * writes a compact copy to a temporary file that is renamed over `destination` only when whole.
   */
  async backup(destination: string): Promise<void> {
    const target = resolve(destination);
    if (target === this.file) throw new Error(`refusing to back up ${this.file} onto itself`);
    await mkdir(dirname(target), { recursive: true });
    if (await exists(`${target}-wal`)) {
      throw new StoreError('unavailable', `${target} is in use (it has a -wal file); choose another destination`);
    }
    const temporary = `${target}.${randomUUID().slice(0, 8)}.tmp`;
    const db = await Connection.open(this.file);
    try {
      await db.exec('PRAGMA busy_timeout = 5000');
      await db.run('VACUUM INTO ?1', [temporary]);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    } finally {
      await db.close();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#draining) await this.#draining;
    await this.#reader.close();
    await this.#writer.close();
  }

  /** The connection settings in force, for diagnostics. */
  async pragmas(): Promise<{ journalMode: string; foreignKeys: boolean; busyTimeoutMs: number; synchronous: number }> {
    const one = async (name: string) => Object.values((await this.#writer.first(`PRAGMA ${name}`))!)[0];
    return {
      journalMode: String(await one('journal_mode')),
      foreignKeys: (await one('foreign_keys')) === 1,
      busyTimeoutMs: Number(await one('busy_timeout')),
      synchronous: Number(await one('synchronous')),
    };
  }

  async #writeBody(db: Connection, table: 'consensus' | 'verdicts', id: string, body: object | undefined): Promise<void> {
    if (body === undefined) await db.run(`DELETE FROM ${table} WHERE session_id = ?1`, [id]);
    else
      await db.run(`INSERT INTO ${table} (session_id, body) VALUES (?1, ?2) ON CONFLICT DO UPDATE SET body = ?2`, [
        id,
        JSON.stringify(body),
      ]);
  }

  async #get(db: Connection, id: string): Promise<Session | undefined> {
    const row = await db.first(GET_SESSION, [id]);
    if (!row) return undefined;
    const session: Session = {
      id: row.id as string,
      owner: row.owner as string,
      mode: row.mode as Session['mode'],
      question: row.question as string,
      roundsRequested: row.rounds_requested as number,
      rounds: JSON.parse(row.rounds as string),
      status: row.status as Session['status'],
      missingSlots: JSON.parse(row.missing_slots as string),
      usage: usageFromRow(row),
      cost: { usd: row.cost_usd as number, priced: row.cost_priced === 1 },
      createdAt: row.created_at as string,
      updatedAt: row.updated_at as string,
    };
    if (row.consensus !== null) session.consensus = JSON.parse(row.consensus as string);
    if (row.verdict !== null) session.verdict = JSON.parse(row.verdict as string);
    if (row.completed_at !== null) session.completedAt = row.completed_at as string;
    if (row.prompt_version !== null) session.promptVersion = row.prompt_version as string;
    return session;
  }

  #enqueue(work: Job['work']): Promise<unknown> {
    if (this.#closed) return Promise.reject(new StoreError('unavailable', 'the session store is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ work, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Yield once, so writes issued together share the first transaction too.
    await Promise.resolve();
    try {
      while (this.#queue.length > 0) await this.#commit(this.#queue.splice(0, MAX_BATCH));
    } finally {
      // Synchronously after seeing the queue empty: a later write starts the next drain.
      this.#draining = undefined;
    }
  }

  /** One transaction for the batch; each job in a savepoint; every promise settles after COMMIT. */
  async #commit(batch: Job[]): Promise<void> {
    const db = this.#writer;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // IMMEDIATE: take the write lock now (waiting up to busy_timeout), not halfway through.
      await db.run('BEGIN IMMEDIATE');
    } catch (error) {
      for (const job of batch) job.reject(storeError(error));
      return;
    }
    try {
      for (const job of batch) {
        await db.run('SAVEPOINT step');
        try {
          const value = await job.work(db);
          await db.run('RELEASE step');
          outcomes.push({ ok: true, value });
        } catch (error) {
          // If SQLite already rolled back the whole transaction (I/O error, full disk), this throws
          // and the whole batch fails below with the job's own error.
          await db.run('ROLLBACK TO step').catch(() => {
            throw error;
          });
          await db.run('RELEASE step');
          outcomes.push({ ok: false, error: storeError(error) });
        }
      }
      await db.run('COMMIT');
    } catch (error) {
      await db.run('ROLLBACK').catch(() => {});
      for (const job of batch) job.reject(storeError(error));
      return;
    }
    for (const [i, job] of batch.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    }
  }
}

function usageFromRow(row: Row): Session['usage'] {
  return {
    inputTokens: row.input_tokens as number,
    outputTokens: row.output_tokens as number,
    totalTokens: row.total_tokens as number,
  };
}

function summaryFromRow(row: Row): SessionSummary {
  return {
    id: row.id as string,
    mode: row.mode as SessionSummary['mode'],
    question: row.question as string,
    status: row.status as SessionSummary['status'],
    roundsRequested: row.rounds_requested as number,
    usage: usageFromRow(row),
    cost: { usd: row.cost_usd as number, priced: row.cost_priced === 1 },
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
