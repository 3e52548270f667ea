/**
 * One run of the engine: what it accumulates as it goes (rounds, failures, usage, labels, the verdict), which
 * becomes the contract's Session, and the events it raises.
 */
import type {
  AdaptiveOutcome,
  Answer,
  AnswerError,
  Consensus,
  Cost,
  DebateEvent,
  DegradationReason,
  LabelMap,
  PanelChoice,
  PromptCut,
  Ranking,
  Round,
  Session,
  SessionMode,
  UnmatchedLabel,
  Usage,
  Verdict,
} from '../../../sdk/src/generated/types.gen.js';
import { publicSlot } from '../config/slots.js';
import type { AnswerResult } from '../providers/call.js';
import { EventLog } from './events.js';
import type { GroundingHook } from './grounding.js';
import { newSessionId } from './ids.js';
import { integrityReport } from './integrity.js';
import type { PanelRequest } from './panel.js';
import { addCost, addUsage, costOf, ZERO_USAGE } from './pricing.js';
import type { anonymousFinalPositionSchema, FinalPosition } from './prompts.js';
import { PROMPT_VERSION } from './prompts.js';
import type { EngineSettings, Slot } from './settings.js';

type SlotNumber = Answer['slot'];

/** What a run reads of the engine: its clock, and the owner and prices every run shares. */
export interface RunSettings {
  readonly now: () => number;
  readonly settings: Pick<EngineSettings, 'owner' | 'prices'>;
}

export interface Budget {
  maxTokens?: number;
  maxCostUsd?: number;
}

export interface RunOptions {
  /** Cancels the run and every model call in flight. */
  signal?: AbortSignal;
  /**
   * Gets the session's event log before the first event, to stream it, and `snapshot`, the session
   * as it stands at any moment (a running round holds the answers finished so far), to store it.
   */
  onLog?: (log: EventLog, snapshot: () => Session) => void;
  /** Who runs it; the engine's `owner` setting by default. */
  owner?: string;
  /** A follow-up: the thread it joins, the session it follows, and the thread so far, condensed for the prompts. */
  thread?: ThreadLink;
  /** The stored session a synthesis is made from. */
  sourceSessionId?: string;
  /** A run grounded in a wiki, any mode (see `grounding.ts`). */
  grounding?: GroundingHook;
  /** Labels the session keeps (`eval` keeps it out of the history list). */
  tags?: readonly string[];
}

/** A deep debate's own options: its rounds, quorum, budget and early stop, and the panel it is asked of. */
export interface DeepOptions extends RunOptions {
  rounds?: number;
  quorum?: number;
  budget?: Budget;
  earlyStop?: boolean;
  panel?: PanelRequest;
  /** `adaptive`: stop after round 1 when its answers agree (the share holding one position reaches `agreement`, 1 by default). */
  strategy?: 'debate' | 'adaptive';
  agreement?: number;
}

export interface ThreadLink {
  threadId: string;
  parentId: string;
  context: string;
}

/** An interrupted session as stored, to continue (see `DebateEngine.continue`). */
export interface StoredRun {
  session: Session;
  /** Its stored events but the deltas, in order. */
  progress: readonly DebateEvent[];
  /** The continued run's events come after this `seq`. */
  afterSeq: number;
  /** The highest `seq` stored before the continued run's first event (see `Resumed.storedTop`). */
  storedTop?: number;
}

/** What a continued run reads of its stored progress: the rounds that ended, and a round's answers to keep. */
export interface StoredProgress {
  ended: ReadonlySet<number>;
  finished: (round: Round | undefined) => Answer[];
}

/** What a run accumulates; becomes the contract's Session. */
export class Run {
  readonly log: EventLog;
  readonly createdAt: string;
  readonly rounds: Round[] = [];
  readonly missing = new Set<SlotNumber>();
  readonly reasons: DegradationReason[] = [];
  usage: Usage = ZERO_USAGE;
  cost: Cost = { usd: 0, priced: true };
  consensus: Consensus | undefined;
  verdict: Verdict | undefined;
  /** An adaptive debate's decision after round 1 (its threshold from the start). */
  adaptive: AdaptiveOutcome | undefined;
  readonly tags: readonly string[] | undefined;
  error: string | undefined;
  /** The session `end` returned, so a snapshot taken after the end equals it. */
  ended: Session | undefined;
  earlyStop: Session['earlyStop'];
  /** How a deep debate's panel was chosen; undefined for other modes (and deep sessions stored before it existed). */
  choice: PanelChoice | undefined;
  readonly labels: LabelMap[] = [];
  /** Holders an anonymous final round named that map to no slot (see `anonymise.ts`). */
  readonly unmatchedLabels: UnmatchedLabel[] = [];
  readonly rankings: Ranking[] = [];
  readonly promptCuts: PromptCut[] = [];
  /** Work running beside the rounds (the peer ranking), settled before the session ends. */
  side: Promise<void> = Promise.resolve();
  /** How the final round's structured reply is asked for and read back (anonymous labels mapped to slots). */
  finalOutput:
    | { schema: typeof anonymousFinalPositionSchema; read: (slot: SlotNumber, reply: unknown) => FinalPosition }
    | undefined;
  readonly owner: string;
  readonly thread: ThreadLink | undefined;
  readonly sourceSessionId: string | undefined;
  readonly grounding: GroundingHook | undefined;
  readonly budgetStop = new AbortController();
  readonly signal: AbortSignal;

  constructor(
    readonly ctx: RunSettings,
    readonly mode: SessionMode,
    readonly question: string,
    readonly roundsRequested: number,
    readonly budget: Budget | undefined,
    options: RunOptions,
    stored?: StoredRun,
  ) {
    const now = ctx.now();
    const from = stored?.session;
    this.createdAt = from?.createdAt ?? new Date(now).toISOString();
    this.log = new EventLog(from?.id ?? newSessionId(now), {
      now: ctx.now,
      afterSeq: stored?.afterSeq ?? 0,
      ...(stored?.storedTop !== undefined && { base: stored.storedTop }),
    });
    this.owner = from?.owner ?? options.owner ?? ctx.settings.owner;
    this.thread = options.thread;
    this.sourceSessionId = from?.sourceSessionId ?? options.sourceSessionId;
    this.grounding = options.grounding;
    const tags = from?.tags ?? (options.tags && [...new Set(options.tags)]);
    this.tags = tags && tags.length > 0 ? tags : undefined;
    if (from) {
      // A continued session keeps what it has spent, answers asked again included.
      this.usage = from.usage;
      this.cost = from.cost;
      this.earlyStop = from.earlyStop;
      this.choice = from.panel;
      this.labels.push(...(from.labels ?? []));
      this.rankings.push(...(from.rankings ?? []));
      this.promptCuts.push(...(from.promptCuts ?? []));
      this.adaptive = from.adaptive;
    }
    this.signal = options.signal ? AbortSignal.any([options.signal, this.budgetStop.signal]) : this.budgetStop.signal;
    options.onLog?.(this.log, () => this.ended ?? this.session('running'));
  }

  /** Answers a continued run keeps: their failures are still the session's. */
  keep(answers: readonly Answer[]): void {
    for (const a of answers) if (a.error) this.fail(a.slot, a.round, a.error);
  }

  get cancelled(): boolean {
    return this.signal.aborted && !this.budgetStop.signal.aborted;
  }

  get overBudget(): boolean {
    return this.budgetStop.signal.aborted;
  }

  /** Adds one call's usage to the session's; returns that call's cost. */
  account(usage: Usage, slot: Slot): Cost {
    this.usage = addUsage(this.usage, usage);
    const cost = costOf(usage, slot.model.provider, slot.model.model, slot.model.offline, this.ctx.settings.prices);
    this.cost = addCost(this.cost, cost);
    const b = this.budget;
    if (!b || this.overBudget) return cost;
    const tokens = b.maxTokens !== undefined && this.usage.totalTokens >= b.maxTokens;
    const dollars = b.maxCostUsd !== undefined && this.cost.usd >= b.maxCostUsd;
    if (tokens || dollars) {
      this.error = tokens
        ? `budget_exceeded: ${this.usage.totalTokens} tokens used, the budget is ${b.maxTokens}`
        : `budget_exceeded: $${this.cost.usd.toFixed(4)} spent, the budget is $${b.maxCostUsd}`;
      this.budgetStop.abort(new Error(this.error));
    }
    return cost;
  }

  fail(slot: SlotNumber, round: number, error: AnswerError): void {
    this.missing.add(slot);
    this.reasons.push({ slot, round, code: error.code, message: error.message });
  }

  session(status: Session['status']): Session {
    const now = new Date(this.ctx.now()).toISOString();
    const session: Session = {
      id: this.log.sessionId,
      owner: this.owner,
      mode: this.mode,
      question: this.question,
      roundsRequested: this.roundsRequested,
      rounds: this.rounds,
      status,
      missingSlots: sorted(this.missing),
      usage: this.usage,
      cost: this.cost,
      createdAt: this.createdAt,
      updatedAt: now,
      promptVersion: PROMPT_VERSION,
    };
    if (this.thread) {
      session.threadId = this.thread.threadId;
      session.parentId = this.thread.parentId;
    }
    if (this.sourceSessionId) session.sourceSessionId = this.sourceSessionId;
    if (this.earlyStop) session.earlyStop = this.earlyStop;
    if (this.choice) session.panel = this.choice;
    if (this.labels.length > 0) session.labels = [...this.labels];
    if (this.unmatchedLabels.length > 0) session.unmatchedLabels = [...this.unmatchedLabels];
    if (this.rankings.length > 0) session.rankings = [...this.rankings];
    if (this.promptCuts.length > 0) session.promptCuts = [...this.promptCuts];
    if (this.grounding) session.grounding = this.grounding.snapshot();
    if (this.consensus) session.consensus = this.consensus;
    if (this.verdict) session.verdict = this.verdict;
    if (this.adaptive) session.adaptive = this.adaptive;
    if (this.tags) session.tags = [...this.tags];
    if (status !== 'running') session.completedAt = now;
    const reason = endReason(status, this);
    if (reason !== undefined) session.endReason = reason;
    return session;
  }

  /** The run's first event: what it is and which slots it asks. */
  started(slots: readonly Slot[]): void {
    this.log.emit({
      type: 'session.started',
      mode: this.mode,
      question: this.question,
      roundsRequested: this.roundsRequested,
      slots: slots.map((s) => publicSlot(s.config)),
    });
  }

  /** `end`, once the work beside the rounds has settled, so no event follows `session.ended`. */
  async finish(status: Session['status']): Promise<Session> {
    await this.side;
    return this.end(status);
  }

  end(status: Session['status']): Session {
    const session = this.session(status);
    // Told before `ended` is set: a snapshot taken for this event is still the running session.
    const integrity = integrityReport(session);
    if (integrity) {
      session.integrity = integrity;
      this.log.emit({ type: 'integrity', integrity });
    }
    this.ended = session;
    this.log.emit({
      type: 'session.ended',
      status,
      missingSlots: session.missingSlots,
      usage: this.usage,
      cost: this.cost,
      ...(this.error !== undefined && status !== 'completed' && { error: this.error }),
    });
    return session;
  }
}

/**
 * Why a session did not complete, stored with it: the run's own error when it stopped on one (quorum, budget, no
 * synthesizer), else what degraded it (the failures, an unstructured verdict).
 */
export function endReason(
  status: Session['status'],
  run: Pick<Run, 'error' | 'reasons' | 'verdict' | 'consensus' | 'mode'>,
): string | undefined {
  if (status === 'running' || status === 'completed') return undefined;
  if (run.error !== undefined) return run.error;
  if (status === 'cancelled') return 'cancelled: the session was cancelled';
  if (run.reasons.length > 0) {
    const where = (r: DegradationReason) => (r.round === 0 ? 'the verdict' : `round ${r.round}`);
    return `slots_failed: ${run.reasons.map((r) => `slot ${r.slot} in ${where(r)} (${r.code})`).join(', ')}`;
  }
  if (run.verdict?.format === 'unstructured') return 'verdict_unstructured: the verdict did not meet its schema';
  if (run.mode === 'deep' && !run.consensus) return 'no_consensus: the final round reported no consensus';
  return `${status}: the run ended ${status}`;
}

export function sorted(slots: Iterable<SlotNumber>): SlotNumber[] {
  return [...new Set(slots)].sort((a, b) => a - b);
}

/** A failure that happened because the run stopped, named for why it stopped. */
export function stoppedError(run: Run, result: AnswerResult<unknown>): AnswerError | undefined {
  if (!result.error) return undefined;
  if (result.error.code === 'aborted' && run.overBudget) {
    return { ...result.error, code: 'budget_exceeded', message: run.error ?? 'The session budget was reached.' };
  }
  return result.error;
}
