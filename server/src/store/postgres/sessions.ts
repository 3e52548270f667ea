/**
 * Sessions in PostgreSQL, shared by several server instances. Each step is one transaction that
 * also notifies the other instances (delivered only on commit), so they evict their cached copy
 * and forward live events to their followers. Each instance holds a lease it renews; a `running`
 * session whose writer's lease is gone was cut off by a crash or stop, and any instance may mark it
 * `interrupted` — at start and then once per lease period.
 */
import { randomUUID } from 'node:crypto';
import type { QueryConfig } from 'pg';
import type {
  DebateEvent,
  IntegrityReport,
  Round,
  Session,
  SessionEndedEvent,
  SessionSummary,
  Verdict,
} from '../../../../sdk/src/generated/types.gen.js';
import type { AccessBus } from '../../access/access.js';
import type { AnswerStats } from '../../debate/estimate.js';
import { eventJson } from '../../debate/events.js';
import {
  CANCELLED_ERROR,
  damageOf,
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
  StoreError,
  searchTerms,
  statsOf,
  verdictPreview,
  type WriteResult,
} from '../../sessions/store.js';
import { joinEvents, packEvents, unpackEvents } from '../archive.js';
import { answerColumns, withSourceTexts } from '../columns.js';
import { toStoreError } from './errors.js';
import {
  accessNotice,
  CHANNEL,
  deleteNotice,
  handOverNotice,
  liveNotices,
  NoticeListener,
  type StopReason,
  stopNotice,
  type WatchListener,
  writeNotice,
} from './notify.js';
import type { PostgresAccess } from './pool.js';

export interface PostgresSessionOptions {
  /** This instance's id (default: a fresh UUID, so each start is a new instance). */
  instanceId?: string;
  /** How long a lease outlives its last renewal (default 6 s). */
  leaseMs?: number;
  /** How often the lease is renewed (default 2 s). */
  heartbeatMs?: number;
  /** How often orphaned sessions are looked for (default 2 s; 0 turns it off). A dead instance's runs end within lease + sweep. */
  recoverEveryMs?: number;
  /** How long to wait for a connection before failing with `unavailable` (default 10 s). */
  connectTimeoutMs?: number;
  /** Failures of background work (lease renewal, recovery, the LISTEN connection), which is retried. */
  onError?: (error: unknown) => void;
}

// What archiving reads and checks again (under the session's lock) before it writes: the status, and the rows' count and top seq.
const ARCHIVE_STATE = `SELECT s.status, s.lost_events, (SELECT count(*)::integer FROM events WHERE session_id = s.id) AS n,
  (SELECT max(seq) FROM events WHERE session_id = s.id) AS top FROM sessions s WHERE s.id = $1`;

type ArchiveState = { status: Session['status']; lost_events: number[]; n: number; top: number | null };

// A dead instance's runs end within lease + sweep: 8 s with these.
export const DEFAULT_LEASE_MS = 6000;
export const DEFAULT_HEARTBEAT_MS = 2000;
export const DEFAULT_SWEEP_MS = 2000;
/** How long shown events gather before they go to other instances live: one frame. */
const LIVE_WINDOW_MS = 16;

const HEADER = `s.id, s.owner, s.mode, s.question, s.status, s.rounds_requested, s.missing_slots, s.input_tokens,
  s.output_tokens, s.total_tokens, s.cost_usd, s.cost_priced, s.created_at, s.updated_at, s.completed_at, s.prompt_version,
  s.thread_id, s.links, s.archived_at`;
/** The verdict whole, as JSON text, for `verdictPreview` (`summaryOfRow`): json's `->` refuses a string holding a NUL. */
const PREVIEW = `(SELECT v.body::text
  FROM verdicts v WHERE v.session_id = s.id) AS verdict_preview`;

interface HeaderRow {
  id: string;
  owner: string;
  mode: Session['mode'];
  question: string;
  status: Session['status'];
  rounds_requested: number;
  missing_slots: number[];
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  cost_usd: number;
  cost_priced: boolean;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  prompt_version: string | null;
  thread_id: string | null;
  links: Pick<
    Session,
    | 'parentId'
    | 'sourceSessionId'
    | 'earlyStop'
    | 'panel'
    | 'labels'
    | 'rankings'
    | 'promptCuts'
    | 'grounding'
    | 'integrity'
    | 'adaptive'
    | 'tags'
    | 'unmatchedLabels'
    | 'endReason'
  > | null;
  archived_at: Date | null;
  verdict_preview?: string | null;
}

interface SessionRow extends HeaderRow {
  rounds: Session['rounds'];
  consensus: Session['consensus'] | null;
  verdict: Session['verdict'] | null;
  source_texts: Record<string, string> | null;
}

/** The whole session in one statement, so one snapshot: header, rounds with answers in order, consensus, verdict. */
const SELECT_SESSION = `SELECT ${HEADER},
  COALESCE((
    SELECT json_agg(json_build_object(
      'number', r.number,
      'kind', r.kind,
      'answers', COALESCE((SELECT json_agg(a.body ORDER BY a.position) FROM answers a
                           WHERE a.session_id = r.session_id AND a.round = r.number), '[]'),
      'missingSlots', to_json(r.missing_slots)) ORDER BY r.number)
    FROM rounds r WHERE r.session_id = s.id), '[]') AS rounds,
  (SELECT c.body FROM consensus c WHERE c.session_id = s.id) AS consensus,
  (SELECT v.body FROM verdicts v WHERE v.session_id = s.id) AS verdict,
  (SELECT json_object_agg(ss.n, ss.text) FROM session_sources ss WHERE ss.session_id = s.id) AS source_texts
FROM sessions s`;

/**
 * Page texts of a session that exists (a deleted one, or one not written yet, gets none: `found` is false), once
 * each: a page's text never changes once read. `$2` is [{ n, sha256, text }, ...].
 */
const WRITE_SOURCES = `WITH written AS (
    INSERT INTO session_sources (session_id, n, sha256, text)
    SELECT $1, p.n, p.sha256, p.text FROM json_to_recordset($2::json) AS p(n integer, sha256 text, text text)
    WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1)
    ON CONFLICT DO NOTHING
  )
  SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1) AS found`;

/**
 * One step in one statement and one round trip (migration 11's function): 'ok', 'stop:<reason>' (written, and a
 * stop was asked), 'gone' (see `Step.run`) or 'hole:<top>' (see `Step.after`; nothing written).
 */
const WRITE_STEP = `SELECT consilium_write_step(${Array.from({ length: 42 }, (_, i) => `$${i + 1}`).join(', ')}) AS outcome`;

/** The answers of `rounds` as column arrays, in the `answers` table's order after the session id. */
function answerArrays(rounds: readonly Round[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 12 }, () => []);
  for (const r of rounds) {
    for (const [position, a] of r.answers.entries()) {
      const row = [...answerColumns(r.number, position, a), JSON.stringify(a)];
      for (let i = 0; i < row.length; i++) columns[i]!.push(row[i] ?? null);
    }
  }
  return columns;
}

export class PostgresSessionStore implements SessionStore {
  readonly kind = 'postgres' as const;
  readonly instanceId: string;
  readonly #db: PostgresAccess;
  readonly #options: PostgresSessionOptions;
  readonly #listener: NoticeListener;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stopping: Promise<void> | undefined;
  /** Sessions another instance follows, which this one sends live (insertion order: oldest first). */
  readonly #followedElsewhere = new Set<string>();
  /** Events shown and not yet sent live, in order. */
  #outbox: DebateEvent[] = [];
  /** Notices of committed writes not yet sent, in commit order. */
  #told: string[] = [];
  #sending: ReturnType<typeof setTimeout> | undefined;
  /** The archives of ended sessions, one after another. */
  #archives: Promise<unknown> = Promise.resolve();
  /** The highest page number of each running session whose text this instance has written (see `#writeSources`). */
  readonly #sourcesWritten = new Map<string, number>();
  /** Since when every heartbeat has renewed the lease (undefined after a failure), and when the last did. */
  #renewedSince: number | undefined;
  #lastRenewal: number | undefined;
  /** When the last renewal that succeeded was sent (`performance.now()`): the lease holds until that plus `leaseMs`. */
  #heldSince: number | undefined;
  #leaseLapsed = false;
  readonly #lapses = new Set<() => void>();

  constructor(db: PostgresAccess, url: string, options: PostgresSessionOptions) {
    this.#db = db;
    this.#options = options;
    this.instanceId = options.instanceId ?? randomUUID();
    this.#listener = new NoticeListener({
      url,
      instanceId: this.instanceId,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      read: (id, after, upTo) => this.#events(id, after, upTo),
      ...(options.onError && { onError: options.onError }),
    });
    this.#listener.onFollow((id) => {
      this.#followedElsewhere.add(id);
      // Ids of runs that never ran here would pile up; the oldest are long over.
      if (this.#followedElsewhere.size > 10_000) this.#followedElsewhere.delete(this.#followedElsewhere.values().next().value!);
    });
  }

  /**
   * A run's event as it is shown here: sent live to the instances following its session, gathered into
   * one NOTIFY statement per `LIVE_WINDOW_MS`, so their followers keep the owner's pace rather than the
   * commits'. Best effort: what does not arrive live arrives with its commit.
   */
  publish(event: DebateEvent): void {
    if (!this.#followedElsewhere.has(event.sessionId)) return;
    if (event.type === 'session.ended') this.#followedElsewhere.delete(event.sessionId);
    this.#outbox.push(event);
    this.#sending ??= setTimeout(() => this.#sendLive(), LIVE_WINDOW_MS);
  }

  /**
   * Tells the other instances of a committed write, gathered with the others of the next `LIVE_WINDOW_MS` into one
   * NOTIFY statement: a NOTIFY takes PostgreSQL's one lock for committing notifications, and one per step made
   * every step's commit wait on it. A notice is a nudge: a follower elsewhere reads the events table.
   */
  #tell(notice: string): void {
    this.#told.push(notice);
    this.#sending ??= setTimeout(() => this.#sendLive(), LIVE_WINDOW_MS);
  }

  #sendLive(): void {
    this.#sending = undefined;
    const notices = [...this.#told, ...liveNotices(this.instanceId, this.#outbox)];
    this.#outbox = [];
    this.#told = [];
    if (notices.length === 0 || this.#stopping) return;
    this.#notify(notices).catch((error: unknown) => this.#options.onError?.(error));
  }

  /** Sends `notices` in one statement. */
  async #notify(notices: readonly string[]): Promise<void> {
    await this.#db.query('SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n', [CHANNEL, notices]);
  }

  /** Whether the LISTEN connection is up: without it, other instances' writes reach this one late (caught up on reconnect). */
  get listening(): boolean {
    return this.#listener.connected;
  }

  /** Takes this instance's lease, starts listening, and starts renewing the lease and sweeping for orphans. */
  async start(): Promise<void> {
    try {
      await this.#renewLease();
      await this.#listener.start();
    } catch (error) {
      throw toStoreError(error);
    }
    this.#every(this.#options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, () => this.#renewLease());
    // Apart from the renewal, which may hang as long as the database is out of reach.
    const check = setInterval(() => this.#checkLease(), this.#options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    check.unref();
    this.#timers.push(check);
    const recoverEvery = this.#options.recoverEveryMs ?? DEFAULT_SWEEP_MS;
    if (recoverEvery > 0) this.#every(recoverEvery, () => this.#sweep());
  }

  /**
   * The periodic recovery, only once this instance has renewed its lease without a miss for a whole lease:
   * after an outage every lease has lapsed, and its peers, which were as cut off as it was, must first get
   * the chance to renew theirs.
   */
  async #sweep(): Promise<void> {
    if (this.#renewedSince === undefined || performance.now() - this.#renewedSince < (this.#options.leaseMs ?? DEFAULT_LEASE_MS))
      return;
    const recovered = await this.#recover(new Date(), false);
    // A cancelled one is over; only the interrupted are continued.
    const interrupted = recovered.filter((s) => s.status === 'interrupted').map((s) => s.id);
    if (interrupted.length > 0) await this.handOver(interrupted, { here: true });
  }

  /**
   * Offers interrupted sessions to the live instances (`onHandOver`), this one too when `here`: each may
   * try to continue them, and `resumeInterrupted` lets only one.
   */
  async handOver(ids: readonly string[], { here }: { here: boolean }): Promise<void> {
    if (ids.length === 0) return;
    await this.#notify(ids.map((id) => handOverNotice(this.instanceId, id)));
    if (here) for (const id of ids) this.#listener.handedOver(id);
  }

  onHandOver(listener: (sessionId: string) => void): () => void {
    return this.#listener.onHandOver(listener);
  }

  /** The access bus (see `access/access.ts`) on this store's channel. */
  readonly access: AccessBus = {
    publish: (end) => this.#notify([accessNotice(this.instanceId, end)]),
    subscribe: (listener) => this.#listener.onAccessEnd(listener),
  };

  #every(ms: number, work: () => Promise<unknown>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || this.#stopping) return;
      busy = true;
      work()
        .catch((error) => this.#options.onError?.(error))
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  /**
   * Calls `listener` each time this instance's lease lapses (no renewal reached the database for a whole lease, as
   * its own clock measures from when the last one was sent): its peers may take its runs from then on.
   */
  onLeaseLost(listener: () => void): () => void {
    this.#lapses.add(listener);
    return () => this.#lapses.delete(listener);
  }

  #checkLease(): void {
    const leaseMs = this.#options.leaseMs ?? DEFAULT_LEASE_MS;
    if (this.#heldSince === undefined || this.#leaseLapsed || performance.now() - this.#heldSince < leaseMs) return;
    this.#leaseLapsed = true;
    for (const listener of this.#lapses) {
      try {
        listener();
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
  }

  async #renewLease(): Promise<void> {
    const leaseMs = this.#options.leaseMs ?? DEFAULT_LEASE_MS;
    const heartbeatMs = this.#options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    // Monotonic: a step of the wall clock must not make the lease look renewed without a miss, or missed.
    const started = performance.now();
    try {
      await this.#db.query(
        `INSERT INTO instances (id, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        [this.instanceId, leaseMs],
      );
    } catch (error) {
      this.#renewedSince = undefined;
      throw error;
    }
    this.#heldSince = started;
    this.#leaseLapsed = false;
    // A renewal later than a heartbeat and a half after the last one was a miss too.
    if (this.#lastRenewal === undefined || started - this.#lastRenewal > heartbeatMs * 1.5) this.#renewedSince = started;
    this.#lastRenewal = started;
  }

  /**
   * A grounded session's pages: their text goes to `session_sources` once. False when the session is not stored
   * (yet): nothing was written.
   */
  async #writeSources(s: Session): Promise<boolean> {
    const written = this.#sourcesWritten.get(s.id) ?? 0;
    const fresh = (s.grounding?.pages ?? []).filter((p) => p.n > written && p.text !== undefined);
    if (fresh.length === 0) return true;
    const { rows } = await this.#db.query<{ found: boolean }>(
      named('write_sources', WRITE_SOURCES, [s.id, JSON.stringify(fresh.map(({ n, sha256, text }) => ({ n, sha256, text })))]),
    );
    if (!rows[0]?.found) return false;
    this.#sourcesWritten.set(s.id, Math.max(written, ...fresh.map((p) => p.n)));
    return true;
  }

  async write(step: Step): Promise<WriteResult | undefined> {
    const s = step.session;
    // Before the step, so a reader of the step's session finds the texts; one that creates the session, after it.
    const sourced = step.run !== 'first' && (await this.#writeSources(s));
    const numbers = [...(step.rounds ?? [])];
    const rounds = s.rounds.filter((r) => numbers.includes(r.number));
    const shapes = rounds.map(({ number, kind, missingSlots }) => ({ number, kind, missingSlots }));
    const { rows } = await this.#db.query<{ outcome: string }>(
      named('write_step', WRITE_STEP, [
        this.instanceId,
        step.run ?? null,
        step.after ?? null,
        s.id,
        s.owner,
        s.mode,
        s.question,
        s.status,
        s.roundsRequested,
        s.missingSlots,
        s.usage.inputTokens,
        s.usage.outputTokens,
        s.usage.totalTokens,
        s.cost.usd,
        s.cost.priced,
        s.createdAt,
        s.updatedAt,
        s.completedAt ?? null,
        s.promptVersion ?? null,
        s.threadId ?? null,
        linksOf(s),
        numbers,
        JSON.stringify(shapes),
        ...answerArrays(rounds),
        step.consensus === true,
        step.consensus && s.consensus ? JSON.stringify(s.consensus) : null,
        step.verdict === true,
        step.verdict && s.verdict ? JSON.stringify(s.verdict) : null,
        step.events.map((e) => e.seq),
        step.events.map((e) => e.type),
        step.events.map(eventJson),
      ]),
    );
    const outcome = rows[0]?.outcome ?? 'ok';
    if (outcome === 'gone') {
      this.#sourcesWritten.delete(s.id);
      throw new StoreError('gone', `Session ${s.id} was deleted, or ended by another instance, while this one ran it.`);
    }
    if (outcome.startsWith('hole:')) {
      const storedTop = Number(outcome.slice('hole:'.length));
      this.#sourcesWritten.delete(s.id);
      throw new StoreError(
        'hole',
        `Session ${s.id} holds events up to ${storedTop}, not ${step.after}: commits were lost (a failover?).`,
        { storedTop },
      );
    }
    this.#tell(writeNotice(this.instanceId, s.id, step.events));
    if (!sourced) await this.#writeSources(s);
    if (s.status !== 'running') this.#sourcesWritten.delete(s.id);
    if (s.status !== 'running' && step.events.some((e) => e.type === 'session.ended')) {
      // After the step, one archive at a time: the end is shown once its step commits, and archives never queue
      // ahead of other runs' steps for connections. Should one fail (or the store close first), the sweep does it.
      this.#archives = this.#archives.then(() => this.archive(s.id)).catch(() => false);
    }
    return outcome.startsWith('stop:') ? { stopRequested: outcome.slice('stop:'.length) as StopReason } : undefined;
  }

  async tops(ids: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await this.#db.query<{ id: string; top: number }>(
      `SELECT i.id, COALESCE((SELECT max(seq) FROM events e WHERE e.session_id = i.id),
         (SELECT last_seq FROM event_archives a WHERE a.session_id = i.id), 0) AS top
       FROM unnest($1::text[]) AS i(id)
       WHERE NOT EXISTS (SELECT 1 FROM deleted_sessions d WHERE d.id = i.id)`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.top]));
  }

  /** Resolves once the archives the writes so far started are done. */
  async archivesDone(): Promise<void> {
    await this.#archives;
  }

  async archive(id: string): Promise<boolean> {
    // One statement, one snapshot: the state checked below is the state these rows were read in.
    const { rows } = await this.#db.query<ArchiveState & { archive: Buffer | null; list: string | null }>(
      `SELECT st.*, (SELECT body FROM event_archives WHERE session_id = $1) AS archive,
         (SELECT '[' || string_agg(body::text, ',' ORDER BY seq) || ']' FROM events WHERE session_id = $1) AS list
       FROM (${ARCHIVE_STATE}) st`,
      [id],
    );
    const read = rows[0];
    if (!read || read.status === 'running' || read.n === 0 || read.list === null) return false;
    const list = read.archive ? JSON.stringify([...unpackEvents(read.archive), ...JSON.parse(read.list)]) : read.list;
    // Every ended session passes here once: the place to find what an earlier failover cut out of its record.
    if (read.status === 'completed' || read.status === 'partial') {
      const known = read.lost_events.flatMap((from, i, all) => (i % 2 === 0 ? [[from, all[i + 1]!] as const] : []));
      const damage = damageOf(JSON.parse(list) as DebateEvent[], known);
      const session = damage && (await this.get(id));
      if (session && damage) {
        await this.#interruptDamaged(session, JSON.parse(list) as DebateEvent[], damage);
        return false;
      }
    }
    const body = await packEvents(list);
    return this.#db.transaction(async (client) => {
      const { rows: now } = await client.query<ArchiveState>(`${ARCHIVE_STATE} FOR UPDATE OF s`, [id]);
      const state = now[0];
      if (!state || state.status === 'running' || state.n !== read.n || state.top !== read.top) return false;
      await client.query(
        `INSERT INTO event_archives (session_id, last_seq, body) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, body = EXCLUDED.body`,
        [id, read.top, body],
      );
      await client.query('DELETE FROM events WHERE session_id = $1 AND seq <= $2', [id, read.top]);
      return true;
    });
  }

  /**
   * Ends a session whose record an earlier failover damaged `interrupted`, naming what it lacks, so that it can be
   * continued to its verdict; and offers it to the instances, as a recovery does.
   */
  async #interruptDamaged(
    damaged: Session,
    events: readonly DebateEvent[],
    { lost, why }: { lost: [number, number]; why: string },
  ): Promise<void> {
    const ts = new Date().toISOString();
    // Its end goes (it said completed), and the interrupted one is numbered after what stays.
    const kept = events.filter((e) => e.type !== 'session.ended');
    const top = kept.at(-1)?.seq ?? 0;
    const progress = kept.filter((e) => e.type !== 'answer.delta' && e.type !== 'verdict.delta');
    const { session, event } = interruptedEnd({ ...damaged, status: 'running' }, progress, top, ts);
    const end = { ...event, error: `interrupted: ${why}` };
    const changed = await this.#db.transaction(async (client) => {
      const { rowCount } = await client.query(
        `UPDATE sessions SET status = 'interrupted', updated_at = $2, completed_at = $2, missing_slots = $3, writer = $4,
           lost_events = lost_events || $6::integer[], ${WITH_END_REASON('$7')}
         WHERE id = $1 AND status = $5`,
        [session.id, ts, session.missingSlots, this.instanceId, damaged.status, lost, end.error],
      );
      if (!rowCount) return false;
      await client.query(`DELETE FROM events WHERE session_id = $1 AND type = 'session.ended'`, [session.id]);
      await client.query('INSERT INTO events (session_id, seq, type, body) VALUES ($1, $2, $3, $4)', [
        session.id,
        end.seq,
        end.type,
        JSON.stringify(end),
      ]);
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, writeNotice(this.instanceId, session.id, [end])]);
      return true;
    });
    if (!changed) return;
    this.#options.onError?.(new Error(`session ${session.id} ended interrupted: ${why}`));
    this.#listener.local(session.id, [end]);
    await this.handOver([session.id], { here: true });
  }

  async archiveEnded(limit: number): Promise<number> {
    const { rows } = await this.#db.query<{ id: string }>(
      `SELECT id FROM sessions s WHERE status <> 'running' AND EXISTS (SELECT 1 FROM events WHERE session_id = s.id) LIMIT $1`,
      [limit],
    );
    let archived = 0;
    for (const { id } of rows) if (await this.archive(id)) archived++;
    return archived;
  }

  /** PostgreSQL's autovacuum makes the deleted rows' space reusable. */
  async deleteCreatedBefore(before: Date, limit: number): Promise<string[]> {
    const { rows } = await this.#db.query<{ id: string }>(
      `DELETE FROM sessions WHERE id IN
         (SELECT id FROM sessions WHERE created_at < $1 AND status <> 'running' ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [before, limit],
    );
    const ids = rows.map((r) => r.id);
    // Other instances drop their cached copies.
    if (ids.length > 0) await this.#notify(ids.map((id) => deleteNotice(this.instanceId, id)));
    return ids;
  }

  async get(id: string): Promise<Session | undefined> {
    const { rows } = await this.#db.query<SessionRow>(`${SELECT_SESSION} WHERE s.id = $1`, [id]);
    return rows[0] && sessionOf(rows[0]);
  }

  async answerStats(): Promise<Map<string, AnswerStats>> {
    const { rows } = await this.#db.query<{
      provider: string;
      model: string;
      final: boolean;
      n: number;
      total: number;
      squares: number;
    }>(
      `SELECT a.provider, a.model, r.kind = 'final' AS final, count(*)::integer AS n, sum(a.output_tokens)::float8 AS total,
         sum(a.output_tokens::float8 * a.output_tokens) AS squares
       FROM answers a JOIN rounds r ON r.session_id = a.session_id AND r.number = a.round
       WHERE a.error_code IS NULL AND a.session_id IN (SELECT id FROM sessions ORDER BY created_at DESC LIMIT $1)
       GROUP BY a.provider, a.model, final`,
      [STATS_SESSIONS],
    );
    return new Map(
      rows.map((r) => [`${r.provider}/${r.model}/${r.final ? 'final' : 'answer'}`, statsOf(r.n, r.total, r.squares)]),
    );
  }

  async integrityReports(owner?: string): Promise<IntegrityReport[]> {
    const { rows } = await this.#db.query<{ report: IntegrityReport }>(
      `SELECT links -> 'integrity' AS report FROM sessions
       WHERE mode = 'deep' AND ($1::text IS NULL OR owner = $1) AND links -> 'integrity' IS NOT NULL
       ORDER BY created_at, id`,
      [owner ?? null],
    );
    return rows.map((r) => r.report);
  }

  async list(query: ListQuery): Promise<ListPage> {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where: string[] = [];
    if (query.sharedWith !== undefined) {
      where.push(`s.id IN (SELECT session_id FROM session_shares WHERE user_id = ${param(query.sharedWith)})`);
    } else if (query.owner !== undefined) where.push(`s.owner = ${param(query.owner)}`);
    if (query.q) {
      where.push(`s.question ILIKE ${param(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`);
    }
    if (query.text !== undefined) {
      const { terms, prefix } = searchTerms(query.text);
      // Every word, the last also as a prefix; words hold only letters and digits, so nothing in them is an operator.
      const tsquery = terms.map((t, i) => `'${t}'${prefix && i === terms.length - 1 ? ':*' : ''}`).join(' & ');
      where.push(
        terms.length === 0
          ? 'false'
          : `s.id IN (SELECT session_id FROM session_search WHERE document @@ to_tsquery('simple', ${param(tsquery)}))`,
      );
    }
    where.push(query.archived ? 's.archived_at IS NOT NULL' : 's.archived_at IS NULL');
    const tagged = (tag: string) => `COALESCE(s.links -> 'tags', '[]'::jsonb) ? ${param(tag)}`;
    where.push(query.tag !== undefined ? tagged(query.tag) : `NOT (${tagged(EVAL_TAG)})`);
    if (query.mode !== undefined) where.push(`s.mode = ${param(query.mode)}`);
    if (query.status !== undefined) where.push(`s.status = ${param(query.status)}`);
    if (query.from !== undefined) where.push(`s.created_at >= ${param(query.from)}::timestamptz`);
    if (query.to !== undefined) where.push(`s.created_at < ${param(query.to)}::timestamptz`);
    if (query.after) {
      where.push(`(s.created_at, s.id) < (${param(query.after.createdAt)}::timestamptz, ${param(query.after.id)})`);
    }
    // One more than asked tells whether there is a next page.
    const { rows } = await this.#db.query<HeaderRow>(
      `SELECT ${HEADER}, ${PREVIEW} FROM sessions s WHERE ${where.join(' AND ')}
       ORDER BY s.created_at DESC, s.id DESC LIMIT ${param(query.limit + 1)}`,
      params,
    );
    const items = rows.slice(0, query.limit).map(summaryOfRow);
    const last = items[items.length - 1];
    return rows.length > query.limit && last ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
  }

  async setArchived(id: string, at: string | undefined): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      const { rowCount } = await client.query('UPDATE sessions SET archived_at = $2 WHERE id = $1', [id, at ?? null]);
      if (!rowCount) return false;
      // Other instances drop their cached copy.
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, writeNotice(this.instanceId, id, [])]);
      return true;
    });
  }

  async share(id: string, userId: string, at: string): Promise<ShareRecord | undefined> {
    const { rows } = await this.#db.query<{ created_at: Date }>(
      `INSERT INTO session_shares (session_id, user_id, created_at) SELECT id, $2, $3 FROM sessions WHERE id = $1
       ON CONFLICT (session_id, user_id) DO UPDATE SET created_at = session_shares.created_at RETURNING created_at`,
      [id, userId, at],
    );
    return rows[0] && { userId, createdAt: rows[0].created_at.toISOString() };
  }

  async unshare(id: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.#db.query('DELETE FROM session_shares WHERE session_id = $1 AND user_id = $2', [id, userId]);
    return (rowCount ?? 0) > 0;
  }

  async shares(id: string): Promise<ShareRecord[]> {
    const { rows } = await this.#db.query<{ user_id: string; created_at: Date }>(
      'SELECT user_id, created_at FROM session_shares WHERE session_id = $1 ORDER BY created_at, user_id',
      [id],
    );
    return rows.map((r) => ({ userId: r.user_id, createdAt: r.created_at.toISOString() }));
  }

  async isSharedWith(id: string, userId: string): Promise<boolean> {
    const { rows } = await this.#db.query('SELECT 1 FROM session_shares WHERE session_id = $1 AND user_id = $2', [id, userId]);
    return rows.length > 0;
  }

  async thread(threadId: string): Promise<SessionSummary[]> {
    const { rows } = await this.#db.query<HeaderRow>(
      `SELECT ${HEADER}, ${PREVIEW} FROM sessions s WHERE s.thread_id = $1 ORDER BY s.created_at, s.id`,
      [threadId],
    );
    return rows.map(summaryOfRow);
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      const deleted = await client.query('DELETE FROM sessions WHERE id = $1', [id]);
      if (deleted.rowCount === 0) return false;
      await client.query('INSERT INTO deleted_sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [id]);
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, deleteNotice(this.instanceId, id)]);
      return true;
    });
  }

  events(id: string, afterSeq: number): Promise<DebateEvent[]> {
    return this.#events(id, afterSeq, Number.MAX_SAFE_INTEGER);
  }

  async #events(id: string, after: number, upTo: number): Promise<DebateEvent[]> {
    // The archive and the rows in one statement: one snapshot, so an archive made meanwhile neither hides nor repeats any.
    const { rows } = await this.#db.query<{ body: DebateEvent | null; archive: Buffer | null }>(
      `SELECT * FROM (
         SELECT seq, body, NULL::bytea AS archive FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $3
         UNION ALL SELECT 0, NULL, body FROM event_archives WHERE session_id = $1 AND last_seq > $2
       ) e ORDER BY seq`,
      [id, after, Math.min(upTo, 2 ** 31 - 1)],
    );
    const archive = rows[0]?.archive;
    const stored = rows.flatMap((r) => (r.body ? [r.body] : []));
    if (!archive) return stored;
    return joinEvents(unpackEvents(archive), stored, after).filter((e) => e.seq <= upTo);
  }

  /**
   * Sessions `running` whose writer holds no live lease (it stopped, crashed, or was cut off for a
   * whole lease) become `interrupted`, each with a `session.ended` event; so do this instance's own,
   * since the caller (the app, at start) vouches that none of them is still being run. Rows another
   * instance is recovering at the same moment are skipped, so each gets one end.
   */
  recoverInterrupted(now: Date): Promise<Session[]> {
    return this.#recover(now, true);
  }

  /**
   * The session ended `interrupted` if its writer's lease is gone, as the sweep would end it (and offered to the
   * instances to continue, as the sweep does); else undefined.
   */
  async recoverOrphan(id: string, now: Date): Promise<Session | undefined> {
    const [session] = await this.#recover(now, false, [id]);
    if (session?.status === 'interrupted') await this.handOver([id], { here: true });
    return session;
  }

  /** Only this instance's: another's are its own to vouch for, and the sweep's once its lease is gone. */
  recoverStale(ids: readonly string[], now: Date): Promise<Session[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.#recover(now, true, ids, true);
  }

  async runningHere(): Promise<string[]> {
    const { rows } = await this.#db.query<{ id: string }>(`SELECT id FROM sessions WHERE status = 'running' AND writer = $1`, [
      this.instanceId,
    ]);
    return rows.map((r) => r.id);
  }

  /**
   * Kept with the session, then told: a runner that misses the notice (cut off, or between its connections) learns
   * of it at its next step, and a recovery ends the session as asked rather than `interrupted`.
   */
  async requestStop(id: string, reason: StopReason): Promise<void> {
    await this.#db.query(
      `WITH asked AS (UPDATE sessions SET stop_requested = $2 WHERE id = $1 AND status = 'running' RETURNING id)
       SELECT pg_notify($3, $4)`,
      [id, reason, CHANNEL, stopNotice(this.instanceId, id, reason)],
    );
  }

  onStopRequest(listener: (sessionId: string, reason: StopReason) => void): () => void {
    return this.#listener.onStop(listener);
  }

  async cancelInterrupted(id: string, now: Date): Promise<Session | undefined> {
    const ts = now.toISOString();
    const changed = await this.#db.transaction(async (client) => {
      const { rowCount } = await client.query(
        `UPDATE sessions SET status = 'cancelled', updated_at = $2, ${WITH_END_REASON('$3')} WHERE id = $1 AND status = 'interrupted'`,
        [id, ts, CANCELLED_ERROR],
      );
      if (!rowCount) return false;
      // The end the recovery appended says so too: a replay ends as the session does.
      await client.query(
        `UPDATE events SET body = (jsonb_set(jsonb_set(body::jsonb, '{status}', '"cancelled"'), '{error}', to_jsonb($2::text)))::json
         WHERE session_id = $1 AND type = 'session.ended'`,
        [id, CANCELLED_ERROR],
      );
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, writeNotice(this.instanceId, id, [])]);
      return true;
    });
    if (changed) this.#listener.local(id, []);
    return this.get(id);
  }

  /**
   * The periodic sweep leaves this instance's own sessions alone: they are being run (`own`: this instance's too).
   * `only`: just those sessions; `mine`: only this instance's. A session whose stop was asked ends as asked: a cancel
   * `cancelled`, a delete deleted; only the others end `interrupted`, to be continued.
   */
  async #recover(now: Date, own: boolean, only?: readonly string[], mine = false): Promise<Session[]> {
    const ts = now.toISOString();
    const recovered = await this.#db.transaction(async (client) => {
      const { rows } = await client.query<SessionRow & { stop_requested: StopReason | null }>(
        `${SELECT_SESSION.replace(/FROM sessions s$/, ', s.stop_requested FROM sessions s')}
         WHERE s.status = 'running' AND ($3::text[] IS NULL OR s.id = ANY ($3))
           AND (($1 AND s.writer = $2) OR (NOT $4 AND NOT EXISTS
             (SELECT 1 FROM instances i WHERE i.id = s.writer AND i.expires_at > now())))
         ORDER BY s.created_at, s.id
         FOR UPDATE OF s SKIP LOCKED`,
        [own, this.instanceId, only ?? null, mine],
      );
      const ended: { session: Session; event: SessionEndedEvent }[] = [];
      for (const row of rows) {
        if (row.stop_requested === 'delete') {
          await client.query('DELETE FROM sessions WHERE id = $1', [row.id]);
          await client.query('INSERT INTO deleted_sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [row.id]);
          await client.query('SELECT pg_notify($1, $2)', [CHANNEL, deleteNotice(this.instanceId, row.id)]);
          continue;
        }
        const { rows: progress } = await client.query<{ body: DebateEvent }>(
          'SELECT body FROM events WHERE session_id = $1 AND type = ANY($2) ORDER BY seq',
          [row.id, PROGRESS_EVENT_TYPES],
        );
        const top = await client.query<{ seq: number }>('SELECT COALESCE(max(seq), 0) AS seq FROM events WHERE session_id = $1', [
          row.id,
        ]);
        const { session, event } = interruptedEnd(
          sessionOf(row),
          progress.map((p) => p.body),
          top.rows[0]!.seq,
          ts,
          row.stop_requested === 'cancel' ? 'cancelled' : 'interrupted',
        );
        await client.query(
          `UPDATE sessions SET status = $5, updated_at = $2, completed_at = $2, writer = $3, missing_slots = $4,
             ${WITH_END_REASON('$6')}
           WHERE id = $1`,
          [session.id, ts, this.instanceId, session.missingSlots, session.status, event.error],
        );
        await client.query('INSERT INTO events (session_id, seq, type, body) VALUES ($1, $2, $3, $4)', [
          session.id,
          event.seq,
          event.type,
          JSON.stringify(event),
        ]);
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, writeNotice(this.instanceId, session.id, [event])]);
        ended.push({ session, event });
      }
      // Leases long expired say nothing more than an absent one; a week-old delete has no step still on its way.
      await client.query(`DELETE FROM instances WHERE expires_at < now() - interval '1 day'`);
      await client.query(`DELETE FROM deleted_sessions WHERE deleted_at < now() - interval '7 days'`);
      return ended;
    });
    // These changes did not come through this instance's recorder: tell its own listeners too.
    for (const { session, event } of recovered) this.#listener.local(session.id, [event]);
    return recovered.map((r) => r.session);
  }

  /** `FOR UPDATE` holds the row: a second instance continuing it at the same moment waits, then finds it `running`. */
  async resumeInterrupted(id: string, now: Date): Promise<Resumed | undefined> {
    const ts = now.toISOString();
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<SessionRow>(`${SELECT_SESSION} WHERE s.id = $1 FOR UPDATE OF s`, [id]);
      if (!rows[0]) return undefined;
      const { completedAt: _, endReason: _why, ...stored } = sessionOf(rows[0]);
      if (stored.status !== 'interrupted') throw notInterrupted(stored);
      // An archived session's events go back to rows, as they were before it ended: the continued run appends to them.
      const { rows: archived } = await client.query<{ body: Buffer }>('SELECT body FROM event_archives WHERE session_id = $1', [
        id,
      ]);
      if (archived[0]) {
        const events = unpackEvents(archived[0].body);
        await client.query(
          `INSERT INTO events (session_id, seq, type, body)
           SELECT $1, e.seq, e.type, e.body FROM unnest($2::integer[], $3::text[], $4::json[]) AS e(seq, type, body)`,
          [id, events.map((e) => e.seq), events.map((e) => e.type), events.map(eventJson)],
        );
        await client.query('DELETE FROM event_archives WHERE session_id = $1', [id]);
      }
      const top = await client.query<{ seq: number }>('SELECT COALESCE(max(seq), 0) AS seq FROM events WHERE session_id = $1', [
        id,
      ]);
      await client.query(
        `DELETE FROM events WHERE session_id = $1 AND type = 'session.ended' AND body ->> 'status' = 'interrupted'`,
        [id],
      );
      await client.query(
        `UPDATE sessions SET status = 'running', updated_at = $2, completed_at = NULL, writer = $3,
           links = NULLIF(links - 'endReason', '{}'::jsonb) WHERE id = $1`,
        [id, ts, this.instanceId],
      );
      const left = await client.query<{ seq: number }>('SELECT COALESCE(max(seq), 0) AS seq FROM events WHERE session_id = $1', [
        id,
      ]);
      const { rows: progress } = await client.query<{ body: DebateEvent }>(
        'SELECT body FROM events WHERE session_id = $1 AND type = ANY($2) ORDER BY seq',
        [id, PROGRESS_EVENT_TYPES],
      );
      // Other instances drop their cached copy.
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, writeNotice(this.instanceId, id, [])]);
      return {
        session: { ...stored, status: 'running', updatedAt: ts },
        progress: progress.map((p) => p.body),
        afterSeq: top.rows[0]!.seq,
        storedTop: left.rows[0]!.seq,
      };
    });
  }

  watch(sessionId: string, listener: WatchListener): Promise<() => Promise<void>> {
    return this.#listener.watch(sessionId, listener).catch((error) => {
      throw toStoreError(error);
    });
  }

  onChange(listener: (sessionId: string | undefined) => void): () => void {
    return this.#listener.onChange(listener);
  }

  hearsChanges(): boolean {
    return this.listening;
  }

  /** Stops the timers and the listener, and gives up the lease (so peers may recover what was left running). */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const timer of this.#timers) clearInterval(timer);
      clearTimeout(this.#sending);
      await this.#listener.close();
      await this.#db.query('DELETE FROM instances WHERE id = $1', [this.instanceId]).catch(() => undefined);
    })();
    return this.#stopping;
  }
}

/** A prepared statement: parsed once per connection, not on every step. */
function named(name: string, text: string, values: unknown[]): QueryConfig {
  return { name: `consilium_${name}`, text, values };
}

function sessionOf(row: SessionRow): Session {
  const session: Session = {
    id: row.id,
    owner: row.owner,
    mode: row.mode,
    question: row.question,
    roundsRequested: row.rounds_requested,
    rounds: row.rounds,
    status: row.status,
    missingSlots: row.missing_slots,
    usage: usageOf(row),
    cost: { usd: row.cost_usd, priced: row.cost_priced },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (row.consensus) session.consensus = row.consensus;
  if (row.verdict) session.verdict = row.verdict;
  if (row.completed_at) session.completedAt = row.completed_at.toISOString();
  if (row.prompt_version !== null) session.promptVersion = row.prompt_version;
  if (row.thread_id !== null) session.threadId = row.thread_id;
  if (row.links !== null) Object.assign(session, row.links);
  if (row.archived_at !== null) session.archivedAt = row.archived_at.toISOString();
  withSourceTexts(session, row.source_texts);
  return session;
}

/** Sets `links.endReason` to the text parameter `param`: the store's own ends (interrupted, cancelled) write no step. */
const WITH_END_REASON = (param: string) =>
  `links = jsonb_set(COALESCE(links, '{}'::jsonb), '{endReason}', to_jsonb(${param}::text))`;

/** The session's optional links, as stored in `links` (NULL when it has none). */
function linksOf(s: Session): string | null {
  const links = {
    parentId: s.parentId,
    sourceSessionId: s.sourceSessionId,
    earlyStop: s.earlyStop,
    // A deep debate's panel choice, label mappings, rankings and prompt cuts, and a grounded one's sources: optional JSON, read with the session only.
    panel: s.panel,
    labels: s.labels,
    rankings: s.rankings,
    promptCuts: s.promptCuts,
    // Its pages without their text (in `session_sources`), so lists, which read `links` whole, never carry it.
    grounding: s.grounding && { ...s.grounding, pages: s.grounding.pages.map(({ text: _, ...p }) => p) },
    integrity: s.integrity,
    adaptive: s.adaptive,
    tags: s.tags,
    unmatchedLabels: s.unmatchedLabels,
    // Why it did not complete; the store's own ends (interrupted, cancelled) set it in place (`withEndReason`).
    endReason: s.endReason,
  };
  return Object.values(links).some((v) => v !== undefined) ? JSON.stringify(links) : null;
}

function summaryOfRow(row: HeaderRow): SessionSummary {
  return {
    id: row.id,
    owner: row.owner,
    mode: row.mode,
    question: row.question,
    status: row.status,
    roundsRequested: row.rounds_requested,
    usage: usageOf(row),
    cost: { usd: row.cost_usd, priced: row.cost_priced },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.thread_id !== null && { threadId: row.thread_id }),
    ...(row.links?.parentId !== undefined && { parentId: row.links.parentId }),
    ...(row.archived_at !== null && { archivedAt: row.archived_at.toISOString() }),
    ...(row.verdict_preview != null && { verdictPreview: verdictPreview(JSON.parse(row.verdict_preview) as Verdict) }),
    ...(row.links?.tags !== undefined && { tags: row.links.tags }),
  };
}

/** bigint columns arrive as strings. */
function usageOf(row: HeaderRow): Session['usage'] {
  return {
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    totalTokens: Number(row.total_tokens),
  };
}
