/**
 * Sessions in one SQLite file (WAL). Writes go through one connection, one transaction at a time;
 * steps that arrive while a transaction runs are committed together in the next one (group
 * commit), written in bulk, and retried one savepoint each if the bulk write fails, so a bad step
 * fails alone and leaves nothing. Reads use a second connection and one statement each, so they
 * see a committed snapshot and never wait for a write.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { DebateEvent, Session, SessionSummary } from '../../../../sdk/src/generated/types.gen.js';
import { eventJson } from '../../debate/events.js';
import {
  answerColumns,
  interruptedEnd,
  type ListPage,
  type ListQuery,
  PROGRESS_EVENT_TYPES,
  type SessionStore,
  type Step,
  StoreError,
} from '../../sessions/store.js';
import { SqliteAccountStore } from './accounts.js';
import { Connection, type Row, storeError } from './connection.js';
import { makeDirectory } from './directory.js';
import { migrate } from './migrations.js';

export interface SqliteOptions {
  /** How long a write waits for another process's lock before failing as `unavailable`. Default 5000. */
  busyTimeoutMs?: number;
}

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

// Each write statement covers any number of steps, so a transaction of a hundred steps and their
// thousands of events is a handful of statements. Rows go as tuples of literals made here (`row`),
// not as JSON that SQLite takes apart: with `json_each`, SQLite rendered every element out of the
// array as text again and parsed it once more per column, which was most of its CPU per write.
const upsertSessions = (rows: readonly string[]) => `
  INSERT INTO sessions (id, owner, mode, question, question_folded, rounds_requested, status, missing_slots,
    input_tokens, output_tokens, total_tokens, cost, prompt_version, created_at, updated_at, completed_at, thread_id, links)
  VALUES ${rows.join(',')}
  ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, mode = excluded.mode, question = excluded.question,
    question_folded = excluded.question_folded, rounds_requested = excluded.rounds_requested, status = excluded.status,
    missing_slots = excluded.missing_slots, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    total_tokens = excluded.total_tokens, cost = excluded.cost, prompt_version = excluded.prompt_version,
    created_at = excluded.created_at, updated_at = excluded.updated_at, completed_at = excluded.completed_at,
    thread_id = excluded.thread_id, links = excluded.links;`;
// Deleting a round deletes its answers (ON DELETE CASCADE). `a` is [[sessionId, number], ...].
const deleteRounds = (a: string) =>
  `DELETE FROM rounds WHERE (session_id, number) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${a}));`;
const insertRounds = (rows: readonly string[]) =>
  `INSERT INTO rounds (session_id, number, kind, missing_slots) VALUES ${rows.join(',')};`;
const insertAnswers = (rows: readonly string[]) => `
  INSERT INTO answers (session_id, round, position, slot, provider, model, input_tokens, output_tokens, total_tokens,
    latency_ms, finish_reason, error_code, body)
  VALUES ${rows.join(',')};`;
const upsertBody = (table: string, rows: readonly string[]) => `
  INSERT INTO ${table} (session_id, body) VALUES ${rows.join(',')}
  ON CONFLICT (session_id) DO UPDATE SET body = excluded.body;`;
// `a` is [sessionId, ...].
const deleteBody = (table: string, a: string) => `DELETE FROM ${table} WHERE session_id IN (SELECT value FROM json_each(${a}));`;
// `a` is [{ s: sessionId, e: DebateEvent }, ...] (recovery's end events; steps use `insertEventRows`).
const insertEvents = (a: string) => `
  INSERT INTO events (session_id, seq, type, body)
  SELECT value ->> 's', value ->> '$.e.seq', value ->> '$.e.type', value -> 'e' FROM json_each(${a});`;
// Events are two thirds of what a debate writes; each body is the event's JSON made once for its stream too.
const insertEventRows = (rows: readonly string[]) => `INSERT INTO events (session_id, seq, type, body) VALUES ${rows.join(',')};`;

/**
 * One row of SQL literals: text quoted (`quoted`; with a NUL in it, as JSON that SQLite decodes), a finite number as it is, an object or array as
 * its JSON text, `undefined` and `null` as NULL. A number that is not finite is NULL too, as its
 * JSON (`null`) was: a NOT NULL column then fails the step rather than store a wrong value.
 */
function row(...values: unknown[]): string {
  let out = '(';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === undefined || v === null) out += 'NULL';
    // `exec` takes the SQL as a C string, which ends at a NUL: such text goes as JSON, read back by SQLite.
    else if (typeof v === 'string') out += v.includes('\0') ? `(${literal(v)} ->> '$')` : quoted(v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'NULL';
    else if (typeof v === 'boolean') out += v ? '1' : '0';
    else out += literal(v);
  }
  return `${out})`;
}

/**
 * A JSON text as an SQL string literal, quoted the way SQLite's own `%Q` does (the one escape there
 * is: ' becomes ''). Why not a bound parameter: node-sqlite3 makes every statement a trip to its
 * worker thread and back through the event loop, and on a busy server each trip waits its turn, so
 * a step of eight parameterized statements took 50–90 ms under a running debate; inlined, a whole
 * transaction is one `exec`, one trip.
 */
function literal(value: unknown): string {
  return quoted(JSON.stringify(value));
}

/** A text (JSON, or a plain string) as an SQL string literal (see `literal`). */
function quoted(json: string): string {
  return `'${json.replaceAll("'", "''")}'`;
}

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
  "id, owner, mode, question, status, rounds_requested, input_tokens, output_tokens, total_tokens, cost, created_at, updated_at, thread_id, links ->> 'parentId' AS parent_id";

export class SqliteSessionStore implements SessionStore {
  readonly kind = 'sqlite';
  readonly file: string;
  readonly accounts: SqliteAccountStore;
  readonly #writer: Connection;
  readonly #reader: Connection;
  #queue: Job[] = [];
  #draining: Promise<void> | undefined;
  #closed = false;

  private constructor(file: string, writer: Connection, reader: Connection) {
    this.file = file;
    this.#writer = writer;
    this.#reader = reader;
    this.accounts = new SqliteAccountStore(reader, (work) => this.#enqueue({ work }) as never);
  }

  /** Opens (creating it and its folder if need be) and migrates the database at `file`. */
  static async open(file: string, options: SqliteOptions = {}): Promise<SqliteSessionStore> {
    const path = resolve(file);
    const busyTimeout = options.busyTimeoutMs ?? 5000;
    await makeDirectory(dirname(path));
    const writer = await Connection.open(path);
    let reader: Connection | undefined;
    try {
      await writer.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
      const [mode] = await writer.all<{ journal_mode: string }>('PRAGMA journal_mode = WAL');
      if (mode?.journal_mode !== 'wal')
        throw new StoreError('unavailable', `${path}: cannot use WAL (journal_mode is ${mode?.journal_mode})`);
      // synchronous=NORMAL is safe with WAL: a crash of the process loses nothing committed, and power
      // loss can at worst drop the last commits, never corrupt the file. FULL would fsync every commit.
      await writer.exec('PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL');
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
    return this.#enqueue({ step }) as Promise<void>;
  }

  async get(id: string): Promise<Session | undefined> {
    return this.#get(this.#reader, id);
  }

  async list(query: ListQuery): Promise<ListPage> {
    // ?1 IS NULL lists every owner's; the index on (owner, created_at) serves the usual one-owner list.
    const where = [query.owner === undefined ? '?1 IS NULL' : 'owner = ?1'];
    const params: unknown[] = [query.owner ?? null, query.limit + 1];
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

  async thread(threadId: string): Promise<SessionSummary[]> {
    const rows = await this.#reader.all(`SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE thread_id = ?1 ORDER BY created_at, id`, [
      threadId,
    ]);
    return rows.map(summaryFromRow);
  }

  delete(id: string): Promise<boolean> {
    return this.#enqueue({
      work: async (db) => (await db.run('DELETE FROM sessions WHERE id = ?1', [id])).changes > 0,
    }) as Promise<boolean>;
  }

  async events(id: string, afterSeq: number): Promise<DebateEvent[]> {
    const row = await this.#reader.first<{ list: string | null }>(GET_EVENTS, [id, afterSeq]);
    return row?.list ? (JSON.parse(row.list) as DebateEvent[]) : [];
  }

  recoverInterrupted(now: Date): Promise<Session[]> {
    const ts = now.toISOString();
    const work = async (db: Connection) => {
      const running = await db.all<{ id: string; last_seq: number | null }>(
        `SELECT id, (SELECT max(seq) FROM events WHERE session_id = s.id) AS last_seq FROM sessions AS s WHERE status = 'running'`,
      );
      const recovered: Session[] = [];
      for (const { id, last_seq } of running) {
        const progress = await db.all<{ body: string }>(
          `SELECT body FROM events WHERE session_id = ?1 AND type IN (SELECT value FROM json_each(?2)) ORDER BY seq`,
          [id, JSON.stringify(PROGRESS_EVENT_TYPES)],
        );
        const { session, event } = interruptedEnd(
          (await this.#get(db, id))!,
          progress.map((p) => JSON.parse(p.body) as DebateEvent),
          last_seq ?? 0,
          ts,
        );
        await db.run(
          `UPDATE sessions SET status = 'interrupted', updated_at = ?2, completed_at = ?2, missing_slots = ?3 WHERE id = ?1`,
          [id, ts, JSON.stringify(session.missingSlots)],
        );
        await db.run(insertEvents('?1'), [JSON.stringify([{ s: id, e: event }])]);
        recovered.push(session);
      }
      return recovered;
    };
    return this.#enqueue({ work }) as Promise<Session[]>;
  }

  /**
   * `VACUUM INTO` on a connection of its own: it reads one snapshot while writes go on (WAL), and
   * writes a compact copy to a temporary file that is renamed over `destination` only when whole.
   */
  async backup(destination: string): Promise<void> {
    const target = resolve(destination);
    if (target === this.file) throw new Error(`refusing to back up ${this.file} onto itself`);
    await makeDirectory(dirname(target));
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
      cost: JSON.parse(row.cost as string),
      createdAt: row.created_at as string,
      updatedAt: row.updated_at as string,
    };
    if (row.consensus !== null) session.consensus = JSON.parse(row.consensus as string);
    if (row.verdict !== null) session.verdict = JSON.parse(row.verdict as string);
    if (row.completed_at !== null) session.completedAt = row.completed_at as string;
    if (row.prompt_version !== null) session.promptVersion = row.prompt_version as string;
    if (row.thread_id !== null) session.threadId = row.thread_id as string;
    if (row.links !== null) Object.assign(session, JSON.parse(row.links as string));
    return session;
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
   * One transaction for the batch; every promise settles after COMMIT. Steps of distinct sessions
   * (the usual batch) go in one `exec`. Otherwise, or if that fails, each job gets a savepoint, so
   * only a bad step fails and nothing of it stays.
   */
  async #commit(batch: Job[]): Promise<void> {
    const db = this.#writer;
    const ids = new Set(batch.map((job) => job.step?.session.id));
    if (ids.size === batch.length && !ids.has(undefined)) {
      try {
        // IMMEDIATE: take the write lock first (waiting up to busy_timeout), not halfway through.
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
      for (const job of batch) outcomes.set(job, await attempt(db, job));
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

/** The statements writing steps of distinct sessions, one per table, data inlined. */
function stepsSql(steps: readonly Step[]): string {
  const headers: string[] = [];
  const roundKeys: [string, number][] = [];
  const rounds: string[] = [];
  const answers: string[] = [];
  const bodies = {
    consensus: { set: [] as string[], cleared: [] as string[] },
    verdicts: { set: [] as string[], cleared: [] as string[] },
  };
  const events: string[] = [];
  for (const { session: s, ...step } of steps) {
    const id = quoted(s.id);
    const { parentId, sourceSessionId, earlyStop } = s;
    const linked = parentId !== undefined || sourceSessionId !== undefined || earlyStop !== undefined;
    headers.push(
      row(
        s.id,
        s.owner,
        s.mode,
        s.question,
        s.question.toLowerCase(),
        s.roundsRequested,
        s.status,
        s.missingSlots,
        s.usage.inputTokens,
        s.usage.outputTokens,
        s.usage.totalTokens,
        s.cost,
        s.promptVersion,
        s.createdAt,
        s.updatedAt,
        s.completedAt,
        s.threadId,
        linked ? { parentId, sourceSessionId, earlyStop } : undefined,
      ),
    );
    for (const number of step.rounds ?? []) {
      roundKeys.push([s.id, number]);
      const round = s.rounds.find((r) => r.number === number);
      if (!round) continue;
      rounds.push(row(s.id, round.number, round.kind, round.missingSlots));
      for (const [position, a] of round.answers.entries()) {
        answers.push(row(s.id, ...answerColumns(round.number, position, a), a));
      }
    }
    if (step.consensus) {
      if (s.consensus) bodies.consensus.set.push(row(s.id, s.consensus));
      else bodies.consensus.cleared.push(s.id);
    }
    if (step.verdict) {
      if (s.verdict) bodies.verdicts.set.push(row(s.id, s.verdict));
      else bodies.verdicts.cleared.push(s.id);
    }
    // A NULL seq (never, from the recorder) fails the step on the NOT NULL column rather than write a wrong row.
    for (const e of step.events)
      events.push(`(${id},${Number.isSafeInteger(e.seq) ? e.seq : 'NULL'},${quoted(e.type)},${quoted(eventJson(e))})`);
  }
  const sql = [upsertSessions(headers)];
  if (roundKeys.length > 0) sql.push(deleteRounds(literal(roundKeys)));
  if (rounds.length > 0) sql.push(insertRounds(rounds));
  if (answers.length > 0) sql.push(insertAnswers(answers));
  for (const [table, { set, cleared }] of Object.entries(bodies)) {
    if (set.length > 0) sql.push(upsertBody(table, set));
    if (cleared.length > 0) sql.push(deleteBody(table, literal(cleared)));
  }
  if (events.length > 0) sql.push(insertEventRows(events));
  return sql.join('\n');
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
    owner: row.owner as string,
    mode: row.mode as SessionSummary['mode'],
    question: row.question as string,
    status: row.status as SessionSummary['status'],
    roundsRequested: row.rounds_requested as number,
    usage: usageFromRow(row),
    cost: JSON.parse(row.cost as string),
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    ...(row.thread_id !== null && { threadId: row.thread_id as string }),
    ...(row.parent_id !== null && { parentId: row.parent_id as string }),
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
