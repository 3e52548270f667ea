/**
 * Sessions in the SQLite database: writes go through the database's write queue; reads use the reader
 * connection and one statement each, so they see a committed snapshot and never wait for a write.
 */
import type { DebateEvent, IntegrityReport, Session, SessionSummary } from '../../../../sdk/src/generated/types.gen.js';
import type { AnswerStats } from '../../debate/estimate.js';
import { eventJson } from '../../debate/events.js';
import {
  CANCELLED_ERROR,
  EVAL_TAG,
  interruptedEnd,
  type ListPage,
  type ListQuery,
  notInterrupted,
  PROGRESS_EVENT_TYPES,
  type Resumed,
  type SessionStore,
  type ShareRecord,
  STATS_SESSIONS,
  type Step,
  searchTerms,
  statsOf,
  VERDICT_PREVIEW_CHARS,
} from '../../sessions/store.js';
import { joinEvents, packEvents, unpackEvents } from '../archive.js';
import { withSourceTexts } from '../columns.js';
import type { Connection, Row } from './connection.js';
import { ftsQuery } from './search.js';
import { insertEvents } from './steps.js';
import type { WriteQueue } from './write-queue.js';

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
      FROM rounds AS r WHERE r.session_id = s.id) AS rounds,
    (SELECT json_group_object(n, text) FROM session_sources WHERE session_id = s.id) AS source_texts
  FROM sessions AS s WHERE s.id = ?1`;

// Bodies are stored as valid JSON, so joining them is a JSON array: one parse instead of one per row.
// The archive and the rows in one statement: one snapshot, so an archive made meanwhile neither hides nor repeats any.
const ROWS = `(SELECT '[' || group_concat(body, ',' ORDER BY seq) || ']' FROM events WHERE session_id = ?1 AND seq > ?2)`;
const GET_EVENTS = `SELECT (SELECT body FROM event_archives WHERE session_id = ?1 AND last_seq > ?2) AS archive, ${ROWS} AS list`;

// What archiving reads and checks again before it writes: the status, and the rows' count and top seq.
const ARCHIVE_STATE = `SELECT status, (SELECT count(*) FROM events WHERE session_id = s.id) AS n,
  (SELECT max(seq) FROM events WHERE session_id = s.id) AS top FROM sessions AS s WHERE id = ?1`;

/** Sets `links.endReason` to the parameter `param`: the store's own ends (interrupted, cancelled) write no step. */
const WITH_END_REASON = (param: string) => `links = json_set(coalesce(links, '{}'), '$.endReason', ${param})`;

type ArchiveState = { status: Session['status']; n: number; top: number | null };

// The verdict's preview as `verdictPreview` (sessions/store.ts) makes it.
const SUMMARY_COLUMNS = `id, owner, mode, question, status, rounds_requested, input_tokens, output_tokens, total_tokens, cost, created_at,
  updated_at, thread_id, links ->> 'parentId' AS parent_id, links -> 'tags' AS tags, archived_at,
  (SELECT substr(coalesce(v.body ->> 'summary', v.body ->> 'answer', v.body ->> 'rawText', ''), 1, ${VERDICT_PREVIEW_CHARS})
   FROM verdicts AS v WHERE v.session_id = sessions.id) AS verdict_preview`;

export class SqliteSessionStore implements SessionStore {
  readonly kind = 'sqlite';
  readonly #reader: Connection;
  readonly #queue: WriteQueue;
  /** The archives of ended sessions, one after another. */
  #archives: Promise<unknown> = Promise.resolve();

  constructor(reader: Connection, queue: WriteQueue) {
    this.#reader = reader;
    this.#queue = queue;
  }

  async write(step: Step): Promise<undefined> {
    await this.#queue.write(step);
    if (step.session.status !== 'running' && step.events.some((e) => e.type === 'session.ended')) {
      // After the step, one archive at a time: the end is shown once its step commits, and archives never queue
      // ahead of other runs' steps for connections. Should one fail (or the store close first), the sweep does it.
      this.#archives = this.#archives.then(() => this.archive(step.session.id)).catch(() => false);
    }
    return undefined;
  }

  /** Resolves once the archives the writes so far started are done. */
  async archivesDone(): Promise<void> {
    await this.#archives;
  }

  async archive(id: string): Promise<boolean> {
    const read = await this.#reader.first<ArchiveState & { archive: Buffer | null; list: string | null }>(
      `SELECT *, (SELECT body FROM event_archives WHERE session_id = ?1) AS archive, ${ROWS} AS list FROM (${ARCHIVE_STATE})`,
      [id, 0],
    );
    if (!read || read.status === 'running' || read.n === 0 || read.list === null) return false;
    // Compressed outside the write transaction, which only checks that nothing changed since.
    const body = await packEvents(
      read.archive ? JSON.stringify([...unpackEvents(read.archive), ...JSON.parse(read.list)]) : read.list,
    );
    return this.#queue.run(async (db) => {
      const now = await db.first<ArchiveState>(ARCHIVE_STATE, [id]);
      if (!now || now.status === 'running' || now.n !== read.n || now.top !== read.top) return false;
      await db.run(
        `INSERT INTO event_archives (session_id, last_seq, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (session_id) DO UPDATE SET last_seq = excluded.last_seq, body = excluded.body`,
        [id, read.top, body],
      );
      await db.run('DELETE FROM events WHERE session_id = ?1 AND seq <= ?2', [id, read.top]);
      return true;
    });
  }

  async archiveEnded(limit: number): Promise<number> {
    const ended = await this.#reader.all<{ id: string }>(
      `SELECT id FROM sessions AS s WHERE status <> 'running' AND EXISTS (SELECT 1 FROM events WHERE session_id = s.id) LIMIT ?1`,
      [limit],
    );
    let archived = 0;
    for (const { id } of ended) if (await this.archive(id)) archived++;
    if (archived > 0) await this.#reclaim();
    return archived;
  }

  async deleteCreatedBefore(before: Date, limit: number): Promise<string[]> {
    const deleted = await this.#queue.run((db) =>
      db.all<{ id: string }>(
        `DELETE FROM sessions WHERE id IN
           (SELECT id FROM sessions WHERE created_at < ?1 AND status <> 'running' ORDER BY created_at LIMIT ?2)
         RETURNING id`,
        [before.toISOString(), limit],
      ),
    );
    if (deleted.length > 0) await this.#reclaim();
    return deleted.map((r) => r.id);
  }

  /** Gives free pages back to the file system (a file made with `auto_vacuum = INCREMENTAL`; a no-op on others). */
  #reclaim(): Promise<void> {
    return this.#queue.run((db) => db.exec('PRAGMA incremental_vacuum'));
  }

  async get(id: string): Promise<Session | undefined> {
    return this.#get(this.#reader, id);
  }

  async answerStats(): Promise<Map<string, AnswerStats>> {
    const rows = await this.#reader.all<{
      provider: string;
      model: string;
      final: number;
      n: number;
      total: number;
      squares: number;
    }>(
      `SELECT a.provider, a.model, r.kind = 'final' AS final, count(*) AS n, sum(a.output_tokens) AS total,
         sum(a.output_tokens * a.output_tokens) AS squares
       FROM answers AS a JOIN rounds AS r ON r.session_id = a.session_id AND r.number = a.round
       WHERE a.error_code IS NULL AND a.session_id IN (SELECT id FROM sessions ORDER BY created_at DESC LIMIT ?1)
       GROUP BY a.provider, a.model, final`,
      [STATS_SESSIONS],
    );
    return new Map(
      rows.map((r) => [`${r.provider}/${r.model}/${r.final ? 'final' : 'answer'}`, statsOf(r.n, r.total, r.squares)]),
    );
  }

  async integrityReports(owner?: string): Promise<IntegrityReport[]> {
    const rows = await this.#reader.all<{ report: string }>(
      `SELECT links ->> '$.integrity' AS report FROM sessions
       WHERE mode = 'deep' AND (?1 IS NULL OR owner = ?1) AND links ->> '$.integrity' IS NOT NULL
       ORDER BY created_at, id`,
      [owner ?? null],
    );
    return rows.map((r) => JSON.parse(r.report) as IntegrityReport);
  }

  async list(query: ListQuery): Promise<ListPage> {
    // ?1 IS NULL lists every owner's; the index on (owner, created_at) serves the usual one-owner list.
    const where = [query.owner === undefined || query.sharedWith !== undefined ? '?1 IS NULL' : 'owner = ?1'];
    const params: unknown[] = [query.sharedWith === undefined ? (query.owner ?? null) : null, query.limit + 1];
    const param = (value: unknown) => `?${params.push(value)}`;
    if (query.sharedWith !== undefined) {
      where.push(`id IN (SELECT session_id FROM session_shares WHERE user_id = ${param(query.sharedWith)})`);
    }
    if (query.q !== undefined && query.q !== '') {
      params.push(`%${query.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`);
      where.push(`question_folded LIKE ?${params.length} ESCAPE '\\'`);
    }
    if (query.text !== undefined) {
      const search = searchTerms(query.text);
      // One lookup in the index, made once for the whole list (no words: nothing matches).
      where.push(
        search.terms.length === 0
          ? 'false'
          : `id IN (SELECT k.session_id FROM session_text AS t JOIN session_search AS k ON k.id = t.rowid
               WHERE session_text MATCH ${param(ftsQuery(search))})`,
      );
    }
    where.push(query.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL');
    const tagged = (tag: string) => `EXISTS (SELECT 1 FROM json_each(links, '$.tags') WHERE value = ${param(tag)})`;
    where.push(query.tag !== undefined ? tagged(query.tag) : `(links IS NULL OR NOT ${tagged(EVAL_TAG)})`);
    if (query.mode !== undefined) where.push(`mode = ${param(query.mode)}`);
    if (query.status !== undefined) where.push(`status = ${param(query.status)}`);
    // created_at is ISO 8601 UTC text: a time given with another offset is compared once made UTC too.
    if (query.from !== undefined) where.push(`created_at >= ${param(new Date(query.from).toISOString())}`);
    if (query.to !== undefined) where.push(`created_at < ${param(new Date(query.to).toISOString())}`);
    if (query.after) {
      where.push(`(created_at, id) < (${param(query.after.createdAt)}, ${param(query.after.id)})`);
    }
    const rows = await this.#reader.all(
      `SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?2`,
      params,
    );
    const items = rows.slice(0, query.limit).map(summaryFromRow);
    const last = items.at(-1);
    return rows.length > query.limit && last ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
  }

  setArchived(id: string, at: string | undefined): Promise<boolean> {
    return this.#queue.run(
      async (db) => (await db.run('UPDATE sessions SET archived_at = ?2 WHERE id = ?1', [id, at ?? null])).changes > 0,
    );
  }

  share(id: string, userId: string, at: string): Promise<ShareRecord | undefined> {
    return this.#queue.run(async (db) => {
      const row = await db.first<{ created_at: string }>(
        `INSERT INTO session_shares (session_id, user_id, created_at) SELECT id, ?2, ?3 FROM sessions WHERE id = ?1
         ON CONFLICT (session_id, user_id) DO UPDATE SET created_at = created_at RETURNING created_at`,
        [id, userId, at],
      );
      return row && { userId, createdAt: row.created_at };
    });
  }

  unshare(id: string, userId: string): Promise<boolean> {
    return this.#queue.run(
      async (db) => (await db.run('DELETE FROM session_shares WHERE session_id = ?1 AND user_id = ?2', [id, userId])).changes > 0,
    );
  }

  async shares(id: string): Promise<ShareRecord[]> {
    const rows = await this.#reader.all<{ user_id: string; created_at: string }>(
      'SELECT user_id, created_at FROM session_shares WHERE session_id = ?1 ORDER BY created_at, user_id',
      [id],
    );
    return rows.map((r) => ({ userId: r.user_id, createdAt: r.created_at }));
  }

  async isSharedWith(id: string, userId: string): Promise<boolean> {
    return (
      (await this.#reader.first('SELECT 1 FROM session_shares WHERE session_id = ?1 AND user_id = ?2', [id, userId])) !==
      undefined
    );
  }

  async thread(threadId: string): Promise<SessionSummary[]> {
    const rows = await this.#reader.all(`SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE thread_id = ?1 ORDER BY created_at, id`, [
      threadId,
    ]);
    return rows.map(summaryFromRow);
  }

  delete(id: string): Promise<boolean> {
    return this.#queue.run(async (db) => (await db.run('DELETE FROM sessions WHERE id = ?1', [id])).changes > 0);
  }

  async events(id: string, afterSeq: number): Promise<DebateEvent[]> {
    const row = await this.#reader.first<{ archive: Buffer | null; list: string | null }>(GET_EVENTS, [id, afterSeq]);
    const rows = row?.list ? (JSON.parse(row.list) as DebateEvent[]) : [];
    return row?.archive ? joinEvents(unpackEvents(row.archive), rows, afterSeq) : rows;
  }

  recoverInterrupted(now: Date): Promise<Session[]> {
    return this.#recover(now);
  }

  recoverStale(ids: readonly string[], now: Date): Promise<Session[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.#recover(now, ids);
  }

  async runningHere(): Promise<string[]> {
    return (await this.#reader.all<{ id: string }>(`SELECT id FROM sessions WHERE status = 'running'`)).map((r) => r.id);
  }

  async cancelInterrupted(id: string, now: Date): Promise<Session | undefined> {
    await this.#queue.run(async (db) => {
      const { changes } = await db.run(
        `UPDATE sessions SET status = 'cancelled', updated_at = ?2, ${WITH_END_REASON('?3')} WHERE id = ?1 AND status = 'interrupted'`,
        [id, now.toISOString(), CANCELLED_ERROR],
      );
      if (changes === 0) return;
      await unarchive(db, id);
      // The end the recovery appended says so too: a replay ends as the session does.
      await db.run(
        `UPDATE events SET body = json_set(body, '$.status', 'cancelled', '$.error', ?2)
         WHERE session_id = ?1 AND type = 'session.ended'`,
        [id, CANCELLED_ERROR],
      );
    });
    return this.get(id);
  }

  /** Every `running` session (or those of `only`) ended `interrupted`, each with its end appended. */
  #recover(now: Date, only?: readonly string[]): Promise<Session[]> {
    const ts = now.toISOString();
    const work = async (db: Connection) => {
      const running = await db.all<{ id: string; last_seq: number | null }>(
        `SELECT id, (SELECT max(seq) FROM events WHERE session_id = s.id) AS last_seq FROM sessions AS s
         WHERE status = 'running' AND (?1 IS NULL OR id IN (SELECT value FROM json_each(?1)))`,
        [only ? JSON.stringify(only) : null],
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
          `UPDATE sessions SET status = 'interrupted', updated_at = ?2, completed_at = ?2, missing_slots = ?3,
             ${WITH_END_REASON('?4')} WHERE id = ?1`,
          [id, ts, JSON.stringify(session.missingSlots), event.error],
        );
        await db.run(insertEvents('?1'), [JSON.stringify([{ s: id, e: event }])]);
        recovered.push(session);
      }
      return recovered;
    };
    return this.#queue.run(work);
  }

  resumeInterrupted(id: string, now: Date): Promise<Resumed | undefined> {
    const ts = now.toISOString();
    // One savepoint in the write transaction: nothing else writes between the check and the update.
    return this.#queue.run(async (db) => {
      const stored = await this.#get(db, id);
      if (!stored) return undefined;
      if (stored.status !== 'interrupted') throw notInterrupted(stored);
      await unarchive(db, id);
      const top = await db.first<{ seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE session_id = ?1', [id]);
      await db.run(
        `DELETE FROM events WHERE session_id = ?1 AND type = 'session.ended' AND body ->> '$.status' = 'interrupted'`,
        [id],
      );
      await db.run(
        `UPDATE sessions SET status = 'running', updated_at = ?2, completed_at = NULL, links = json_remove(links, '$.endReason')
         WHERE id = ?1`,
        [id, ts],
      );
      const left = await db.first<{ seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE session_id = ?1', [id]);
      const progress = await db.all<{ body: string }>(
        `SELECT body FROM events WHERE session_id = ?1 AND type IN (SELECT value FROM json_each(?2)) ORDER BY seq`,
        [id, JSON.stringify(PROGRESS_EVENT_TYPES)],
      );
      const { completedAt: _, endReason: _why, ...session } = stored;
      return {
        session: { ...session, status: 'running', updatedAt: ts },
        progress: progress.map((p) => JSON.parse(p.body) as DebateEvent),
        afterSeq: top?.seq ?? 0,
        storedTop: left?.seq ?? 0,
      };
    });
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
    if (row.archived_at !== null) session.archivedAt = row.archived_at as string;
    withSourceTexts(session, JSON.parse(row.source_texts as string) as Record<string, string>);
    return session;
  }
}

/** Puts an archived session's events back as rows, as they were before it ended: a continued run appends to them. */
async function unarchive(db: Connection, id: string): Promise<void> {
  const archived = await db.first<{ body: Buffer }>('SELECT body FROM event_archives WHERE session_id = ?1', [id]);
  if (!archived) return;
  const rows = unpackEvents(archived.body).map((e) => [e.seq, e.type, eventJson(e)]);
  await db.run(
    'INSERT INTO events (session_id, seq, type, body) SELECT ?1, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?2)',
    [id, JSON.stringify(rows)],
  );
  await db.run('DELETE FROM event_archives WHERE session_id = ?1', [id]);
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
    ...(row.archived_at !== null && { archivedAt: row.archived_at as string }),
    ...(row.verdict_preview !== null && { verdictPreview: row.verdict_preview as string }),
    ...(row.tags !== null && { tags: JSON.parse(row.tags as string) as string[] }),
  };
}
