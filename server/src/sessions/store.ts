/**
 * Where sessions persist. One interface, two implementations in `store/`: SQLite (the embedded default,
 * one machine) and PostgreSQL (several instances sharing sessions). The engine's progress reaches a
 * store as steps; each step is written in one transaction, so a crash never leaves half of one.
 */
import type {
  DebateEvent,
  IntegrityReport,
  Session,
  SessionEndedEvent,
  SessionSummary,
} from '../../../sdk/src/generated/types.gen.js';
import type { AnswerStats } from '../debate/estimate.js';

/**
 * One unit of progress: the session as it stands afterwards, the parts of it that changed, and the
 * events raised since the previous step. All of it is written, or none.
 */
export interface Step {
  /** The whole session after this step. Its header (status, usage, cost, missing slots, times) is always written. */
  session: Session;
  /** Rounds (by number) to write whole from `session.rounds`, replacing what was stored for them. */
  rounds?: readonly number[];
  /** Write `session.consensus`. */
  consensus?: boolean;
  /** Write `session.verdict`. */
  verdict?: boolean;
  /** Events in `seq` order, each with a `seq` above every stored event of the session. */
  events: readonly DebateEvent[];
  /**
   * A recorded run's step: its `first` (which creates the session) or a `later` one. A store that several
   * instances share writes a run's steps only while the session is `running` and this instance's; a
   * session deleted, or ended by another instance, fails the step with `StoreError` `gone`. Absent for a
   * change outside a run (marking a thread's first session), which is written whatever the session's state.
   */
  run?: 'first' | 'later';
  /**
   * A run's later step: the last `seq` its writer saw committed. A store that several instances share refuses a step
   * whose session holds fewer events than that (`StoreError` `hole`, with what it holds): a failover lost commits.
   */
  after?: number;
}

/** What a step's write says besides "stored". */
export interface WriteResult {
  /** Another instance asked for the session's run to stop (for this reason) while its notice may have gone unheard. */
  stopRequested?: 'cancel' | 'delete';
}

export interface ListQuery {
  /** Only this owner's sessions; absent, everyone's (an admin's explicit request). */
  owner?: string;
  /** Only sessions shared with this user (read-only, see `share`), whoever owns them; `owner` is then ignored. */
  sharedWith?: string;
  /** 1–100. */
  limit: number;
  /** Case-insensitive substring of the question. */
  q?: string;
  /**
   * Every word of it (`searchTerms`) in the session's text (question, answers, verdict), through the database's
   * full-text index; the last word also as a prefix unless the text ends after it.
   */
  text?: string;
  /** Only archived sessions (true), or only those not archived (false, the default). */
  archived?: boolean;
  mode?: Session['mode'];
  status?: Session['status'];
  /** Created at or after this ISO time. */
  from?: string;
  /** Created before this ISO time. */
  to?: string;
  /** Only sessions with this tag; without it, sessions tagged `EVAL_TAG` are left out. */
  tag?: string;
  /** Continue after this position (from a previous page's `next`). */
  after?: ListPosition;
}

/** The tag of an evaluation's sessions: the history list leaves them out unless asked for them. */
export const EVAL_TAG = 'eval';

/** How many of the latest sessions the answer statistics read (`SessionStore.answerStats`). */
export const STATS_SESSIONS = 500;

/** A position in the newest-first order: sessions older than this one (ties broken by id). */
export interface ListPosition {
  createdAt: string;
  id: string;
}

export interface ListPage {
  items: SessionSummary[];
  /** The last item's position when there may be more; absent on the last page. */
  next?: ListPosition;
}

/** A session shared read-only with a user. */
export interface ShareRecord {
  userId: string;
  createdAt: string;
}

export interface SessionStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Archives the session (`at`, an ISO time) or brings it back (`undefined`); false when there is none. Steps leave it as it is. */
  setArchived(id: string, at: string | undefined): Promise<boolean>;
  /** Shares the session with `userId`; sharing again keeps the first share. Undefined when there is no such session. */
  share(id: string, userId: string, at: string): Promise<ShareRecord | undefined>;
  /** Stops sharing it with `userId`; false when it was not shared with them. */
  unshare(id: string, userId: string): Promise<boolean>;
  /** The users the session is shared with, earliest first. */
  shares(id: string): Promise<ShareRecord[]>;
  /** Whether the session is shared with `userId`. */
  isSharedWith(id: string, userId: string): Promise<boolean>;
  /** Writes one step atomically. The first step of a session creates it. */
  write(step: Step): Promise<WriteResult | undefined>;
  /**
   * Stores that can lose commits (a failover to a standby): the highest stored `seq` of each session of `ids`
   * (0 for one not stored at all); a deleted session is left out.
   */
  tops?(ids: readonly string[]): Promise<Map<string, number>>;
  get(id: string): Promise<Session | undefined>;
  /** The owner's sessions, newest first. */
  list(query: ListQuery): Promise<ListPage>;
  /** The sessions of a thread (`threadId` is its first session's id), oldest first. */
  thread(threadId: string): Promise<SessionSummary[]>;
  /** Deletes the session and everything stored with it; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Stored events with `seq > afterSeq`, in order (archived or not: the same events either way). */
  events(id: string, afterSeq: number): Promise<DebateEvent[]>;
  /**
   * Archives the events of a session that has ended (not `running`): they become one compressed archive
   * that `events` reads back exactly as they were, at a few percent of their size. False when there was
   * nothing to archive (running, unknown, or already archived). A `write` that ends a session archives it
   * soon after, in the background (`archivesDone` waits for that).
   */
  archive(id: string): Promise<boolean>;
  /** Resolves once the archives started by the writes so far are done. */
  archivesDone(): Promise<void>;
  /**
   * The output tokens of the answers (failed ones left out) of the latest `STATS_SESSIONS` sessions, keyed
   * `provider/model/final` for final-round answers and `provider/model/answer` for the rest: what a cost estimate
   * sizes a model's answers by.
   */
  answerStats(): Promise<Map<string, AnswerStats>>;
  /** The integrity reports of deep sessions, one owner's (everyone's when absent), oldest first. */
  integrityReports(owner?: string): Promise<IntegrityReport[]>;
  /** Archives up to `limit` ended sessions whose events are not archived yet (a store from before archives, a failed archive); returns how many. */
  archiveEnded(limit: number): Promise<number>;
  /** Deletes up to `limit` sessions created before `before` that are not running; returns their ids. */
  deleteCreatedBefore(before: Date, limit: number): Promise<string[]>;
  /**
   * Marks sessions left `running` by a process that is gone as `interrupted` (keeping their answers)
   * and appends a `session.ended` event to each; returns them as they now stand.
   */
  recoverInterrupted(now: Date): Promise<Session[]>;
  /**
   * Takes an `interrupted` session back to `running` for this process, atomically (two callers, two
   * instances, never both get it): removes the `session.ended` recovery appended, and returns what a
   * continued run starts from. `undefined` when there is no such session; a `conflict` StoreError
   * when it is not `interrupted`.
   */
  resumeInterrupted(id: string, now: Date): Promise<Resumed | undefined>;
  /**
   * Instances sharing a store (PostgreSQL) see each other's writes: `listener` gets every event
   * another instance writes for `sessionId`, and `onChange` every session id another instance changed,
   * or `undefined` when changes may have gone unheard (the store lost, or regained, its notices).
   * Absent on a store that only one process uses.
   */
  watch?(sessionId: string, listener: (event: DebateEvent, committed: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Shared stores: a run's event as this instance shows it, for other instances' followers ahead of its
   * commit (they get it with `committed` false: in order, but with gaps that only committed events fill).
   */
  publish?(event: DebateEvent): void;
  onChange?(listener: (sessionId: string | undefined) => void): () => void;
  /** False while `onChange` may miss changes (a shared store's notices are down); absent: always heard. */
  hearsChanges?(): boolean;
  /**
   * Shared stores: asks whichever instance runs `id` to stop it (it hears of it through `onStopRequest`).
   * Resolves once asked, not once stopped: the run's end arrives as its events do.
   */
  requestStop?(id: string, reason: 'cancel' | 'delete'): Promise<void>;
  onStopRequest?(listener: (sessionId: string, reason: 'cancel' | 'delete') => void): () => void;
  /**
   * Shared stores: offers sessions ended `interrupted` by an instance's loss or stop to the live instances
   * (and this one when `here`), through `onHandOver`, for one of them to continue.
   */
  handOver?(ids: readonly string[], options: { here: boolean }): Promise<void>;
  onHandOver?(listener: (sessionId: string) => void): () => void;
  /**
   * Shared stores: `listener` is called each time this instance's hold on its sessions lapses (its lease was not
   * renewed in time, the database out of reach): another instance may be running them by then.
   */
  onLeaseLost?(listener: () => void): () => void;
  /** Shared stores: ends `id` as recovery would if the instance running it is gone; undefined while it lives. */
  recoverOrphan?(id: string, now: Date): Promise<Session | undefined>;
  /**
   * Ends `ids` as recovery would, if still `running` (and, on a shared store, this instance's): the caller vouches
   * that no run in this process holds them (a run that ended before its end could be stored, or whose store lost
   * what it wrote). Returns those it ended.
   */
  recoverStale(ids: readonly string[], now: Date): Promise<Session[]>;
  /** The ids of the sessions `running` for this process (on a shared store, with this instance as their writer). */
  runningHere(): Promise<string[]>;
  /**
   * Cancels an `interrupted` session for good: `cancelled`, its end saying so, and nothing continues it afterwards.
   * The session as it then stands; undefined when there is none; as it is when it is not `interrupted`.
   */
  cancelInterrupted(id: string, now: Date): Promise<Session | undefined>;
}

/** An interrupted session taken back to `running` (see `SessionStore.resumeInterrupted`). */
export interface Resumed {
  /** The session as stored, now `running` (no `completedAt`). */
  session: Session;
  /** Its stored events of `PROGRESS_EVENT_TYPES`, in order (the removed end excluded). */
  progress: DebateEvent[];
  /**
   * The highest `seq` the session ever had, the removed end's included (a client may have seen it):
   * the continued run's events come after it. Should the continued run stop before its first commit,
   * recovery numbers the new end as the removed one was: the same `seq` for the same news, and nothing
   * of the continued run was shown (the recorder holds events more than `UNSAVED_SEQ_LIMIT` above its
   * last commit, and a continued run's first is above that).
   */
  afterSeq: number;
  /** The highest `seq` stored once the end is removed: what the continued run's events follow in the store. */
  storedTop: number;
}

/** Why a session cannot be continued: it is not `interrupted`. */
export function notInterrupted(session: Pick<Session, 'id' | 'status'>): StoreError {
  return new StoreError('conflict', `Session ${session.id} is ${session.status}: only an interrupted session can be continued.`);
}

/** A store failure a caller can act on (stable `code`), as opposed to a bug. */
export class StoreError extends Error {
  constructor(
    /**
     * `gone`: the session was deleted, or ended by another instance, while this one ran it. `hole`: a step that
     * does not follow what is stored (`Step.after`); nothing of it was written, and `storedTop` says what is.
     */
    readonly code: 'conflict' | 'unavailable' | 'corrupt' | 'gone' | 'hole',
    message: string,
    options?: { cause?: unknown; storedTop?: number },
  ) {
    super(message, options);
    this.name = 'StoreError';
    if (options?.storedTop !== undefined) this.storedTop = options.storedTop;
  }

  /** A `hole`'s highest stored `seq`. */
  readonly storedTop?: number;
}

/** The list entry for a session. */
export function summaryOf(session: Session): SessionSummary {
  return {
    id: session.id,
    owner: session.owner,
    mode: session.mode,
    question: session.question,
    status: session.status,
    roundsRequested: session.roundsRequested,
    usage: session.usage,
    cost: session.cost,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    ...(session.threadId !== undefined && { threadId: session.threadId }),
    ...(session.parentId !== undefined && { parentId: session.parentId }),
    ...(session.archivedAt !== undefined && { archivedAt: session.archivedAt }),
    ...(session.verdict && { verdictPreview: verdictPreview(session.verdict) }),
    ...(session.tags && { tags: session.tags }),
  };
}

/** Statistics of output tokens from a count, a sum and a sum of squares (what the stores' SQL returns). */
export function statsOf(count: number, sum: number, squares: number): AnswerStats {
  const mean = count === 0 ? 0 : sum / count;
  const variance = count === 0 ? 0 : Math.max(0, squares / count - mean * mean);
  return { answers: count, meanOutputTokens: mean, sdOutputTokens: Math.sqrt(variance) };
}

/** How many characters (code points, as the databases count them) of the verdict a list shows. */
export const VERDICT_PREVIEW_CHARS = 200;

/** The start of a verdict for a list: its summary, else its answer, else its raw text (as the stores' SQL picks it). */
export function verdictPreview(verdict: NonNullable<Session['verdict']>): string {
  return previewText(verdict.summary ?? verdict.answer ?? verdict.rawText ?? '');
}

/** The first `VERDICT_PREVIEW_CHARS` code points of `text`. */
export const previewText = (text: string): string => Array.from(text).slice(0, VERDICT_PREVIEW_CHARS).join('');

/**
 * How much of a session's text (its question, then its verdict, then its answers) the full-text index holds:
 * PostgreSQL refuses a `tsvector` over 1 MB, and a bounded document keeps a step's indexing bounded too.
 */
export const SEARCH_TEXT_CHARS = 100_000;

/**
 * The words of a full-text search: runs of letters and digits (what both databases' tokenizers keep as words),
 * lower-cased, at most 16; `prefix` when the text ends inside its last word (typing "shard" finds "sharding").
 * No words (`%`): nothing matches.
 */
export function searchTerms(text: string): { terms: string[]; prefix: boolean } {
  const terms = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
  return { terms, prefix: /[\p{L}\p{N}]$/u.test(text) };
}

export const INTERRUPTED_ERROR = 'interrupted: the server stopped while this session was running';

/**
 * How far a run's shown events may run ahead of its stored ones: the recorder holds back any event
 * whose `seq` is more than this above the last committed one (about a second of a five-slot round's
 * deltas; the verdict, the consensus and the end wait for their commit). So after a crash nothing
 * shown can have a `seq` above the stored maximum plus this, and recovery numbers its end event just
 * above that: no `seq` a client saw is ever given to another event, and resuming from any of them
 * ends with the session's end. (Sequence numbers may then skip; they only ever increase.)
 */
export const UNSAVED_SEQ_LIMIT = 256;

/** The events recovery and a continued run read to find what was incomplete (every type but the deltas). */
export const PROGRESS_EVENT_TYPES = [
  'session.started',
  'round.started',
  'round.ended',
  'answer.completed',
  'answer.failed',
  'synthesis.started',
  'verdict',
] as const;

/**
 * Every slot whose answer was incomplete when a run stopped: the session's missing slots, each slot
 * asked in a round that had not ended and had not answered, and a synthesizer that had not written
 * its verdict. `events` are the session's stored events in order (deltas may be left out).
 */
export function incompleteSlots(session: Session, events: readonly DebateEvent[]): Session['missingSlots'] {
  const missing = new Set(session.missingSlots);
  const open = new Map<number, Set<number>>();
  let synthesizer: number | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'round.started':
        open.set(event.round, new Set(event.slots));
        break;
      case 'round.ended':
        open.delete(event.round);
        break;
      case 'answer.completed':
        open.get(event.answer.round)?.delete(event.answer.slot);
        break;
      case 'answer.failed':
        missing.add(event.slot);
        open.get(event.round)?.delete(event.slot);
        break;
      case 'synthesis.started':
        synthesizer = event.synthesizer.slot;
        break;
      case 'verdict':
        synthesizer = undefined;
        break;
    }
  }
  for (const slots of open.values()) for (const slot of slots) missing.add(slot as (typeof session.missingSlots)[number]);
  if (synthesizer !== undefined) missing.add(synthesizer as (typeof session.missingSlots)[number]);
  return [...missing].sort((a, b) => a - b);
}

/** The jumps a sound record may have: to a recovery's end, and past an end removed for a continued run (this limit and earlier ones). */
const SEQ_JUMPS = new Set([257, 258, 100_001, 100_002]);

/**
 * What an ended session's record lacks, said in one line, or undefined when it is whole: events missing between two
 * stored ones. A step and its events commit together, so a failover to a standby that had not received some steps
 * leaves exactly that: a later step accepted after the hole (as a store once did) wrote only the rounds it touched.
 * `events` are all its stored events, in order; `known`, the ranges already found and said (they stay lost).
 */
export function damageOf(
  events: readonly DebateEvent[],
  known: readonly (readonly [number, number])[] = [],
): { lost: [number, number]; why: string } | undefined {
  for (let i = 1; i < events.length; i++) {
    const jump = events[i]!.seq - events[i - 1]!.seq;
    const lost: [number, number] = [events[i - 1]!.seq + 1, events[i]!.seq - 1];
    if (jump <= 1 || SEQ_JUMPS.has(jump) || known.some(([from, to]) => from === lost[0] && to === lost[1])) continue;
    return { lost, why: `events ${lost[0]}–${lost[1]} of the session were lost (a database failover?)` };
  }
  return undefined;
}

export const CANCELLED_ERROR = 'cancelled: the session was cancelled while the instance running it was out of reach';

/**
 * What `recoverInterrupted` makes of a session a stopped server left running: the session marked
 * `interrupted` with every incomplete slot missing, and the `session.ended` event it appends,
 * numbered above anything the stopped run could have shown (`lastSeq` is the highest stored).
 * A session whose cancel was asked (`stop: 'cancel'`) ends `cancelled` instead, for good.
 */
export function interruptedEnd(
  running: Session,
  events: readonly DebateEvent[],
  lastSeq: number,
  ts: string,
  status: 'interrupted' | 'cancelled' = 'interrupted',
): { session: Session; event: SessionEndedEvent } {
  const error = status === 'interrupted' ? INTERRUPTED_ERROR : CANCELLED_ERROR;
  const session: Session = {
    ...running,
    status,
    missingSlots: incompleteSlots(running, events),
    updatedAt: ts,
    completedAt: ts,
    endReason: error,
  };
  const event: SessionEndedEvent = {
    v: 1,
    type: 'session.ended',
    sessionId: session.id,
    seq: lastSeq + UNSAVED_SEQ_LIMIT + 1,
    ts,
    status,
    missingSlots: session.missingSlots,
    usage: session.usage,
    cost: session.cost,
    error,
  };
  return { session, event };
}
