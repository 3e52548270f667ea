/**
 * The debate protocol: one model, all of them in parallel, or a deep debate of 2–5 rounds, then a
 * verdict. Every model call goes through `streamAnswer`, which never throws for a provider's
 * failure; the engine decides what a failure means for the round (quorum), the session (status,
 * missing slots) and the verdict (degradation, fallback synthesizer).
 *
 * Statuses: `completed` when every asked slot answered and the verdict is structured; `partial`
 * when something was missing (a slot, the consensus, a structured verdict, or the budget ran out)
 * but there is a result; `failed` when round 1 missed its quorum or nothing answered; `cancelled`
 * when the caller went away.
 */

import type { z } from 'zod';
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
  PositionChange,
  PromptCut,
  Ranking,
  Round,
  RoundKind,
  Session,
  SessionMode,
  SlotInfo,
  Synthesizer,
  Usage,
  Verdict,
} from '../../../sdk/src/generated/types.gen.js';
import type { SlotConfig } from '../config/slots.js';
import { publicSlot } from '../config/slots.js';
import { type AnswerResult, type AttemptFailure, streamAnswer } from '../providers/call.js';
import type { SlotModel } from '../providers/models.js';
import { adaptiveDecision, adaptiveOutcome, adaptiveSaving, voteVerdict } from './adaptive.js';
import { assignLabels, type Labelled, labelMaps, namedFinal, type Random } from './anonymise.js';
import { boundedPrompt, promptChars, type QuotedPart } from './budget.js';
import { mergeConsensus } from './consensus.js';
import { EventLog } from './events.js';
import type { GroundingHook } from './grounding.js';
import { newSessionId } from './ids.js';
import { integrityReport } from './integrity.js';
import { type PanelRequest, PanelResolver, panelChoice } from './panel.js';
import { FieldStream, PositionStream } from './position-stream.js';
import { addCost, addUsage, costOf, type PriceTable, ZERO_USAGE } from './pricing.js';
import {
  type AnonymousFinalPosition,
  anonymousFinalPositionSchema,
  critiquePrompt,
  type FinalPosition,
  finalPositionSchema,
  finalPrompt,
  independentPrompt,
  PROMPT_VERSION,
  type QuotedAnswer,
  rankingPrompt,
  repairPrompt,
  reportsUnchanged,
  synthesisPrompt,
  systemPrompt,
  type VerdictDraft,
  verdictDraftSchema,
} from './prompts.js';
import { ballotOf, rankingNote, rankingOf, rankingSchema } from './ranking.js';

type SlotNumber = Answer['slot'];

/** One slot of the panel: its configuration and its model. */
export interface Slot {
  config: SlotConfig;
  model: SlotModel;
}

export interface EngineSettings {
  panel: readonly Slot[];
  /** Default quorum: how many slots must answer for a round to proceed. */
  quorum: number;
  /** Deadline of one model call, retries included. */
  callTimeoutMs: number;
  maxRetries: number;
  prices: PriceTable;
  /** Who the sessions belong to until accounts exist. */
  owner: string;
  now?: () => number;
  /** Passed to every call; tests use it to skip real waits between retries. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Each failed model call attempt, with the session, round and slot it belongs to: the operator's log. */
  onCallFailed?: (failure: CallFailure) => void;
  /** Shuffles the anonymous labels; `Math.random` by default (tests give a seeded one). */
  random?: Random;
  /** Makes a slot's model for another model of its provider (a request's `models`); without it they are refused. */
  modelFor?: (config: SlotConfig) => SlotModel;
}

/** A failed attempt of one model call, placed in its session. Round 0 is the verdict. */
export interface CallFailure extends AttemptFailure {
  sessionId: string;
  round: number;
  slot: SlotNumber;
  provider: string;
  model: string;
}

export interface Budget {
  maxTokens?: number;
  maxCostUsd?: number;
}

/** How a deep debate runs, beyond what every run takes. */
export interface DeepOptions {
  rounds?: number;
  quorum?: number;
  earlyStop?: boolean;
  panel?: PanelRequest;
  /** `adaptive`: stop after round 1 when its answers agree (the share holding one position reaches `agreement`, 1 by default). */
  strategy?: 'debate' | 'adaptive';
  agreement?: number;
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
}

/** What the run accumulates; becomes the contract's Session. */
class Run {
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
    readonly engine: DebateEngine,
    readonly mode: SessionMode,
    readonly question: string,
    readonly roundsRequested: number,
    readonly budget: Budget | undefined,
    options: RunOptions,
    stored?: StoredRun,
  ) {
    const now = engine.now();
    const from = stored?.session;
    this.createdAt = from?.createdAt ?? new Date(now).toISOString();
    this.log = new EventLog(from?.id ?? newSessionId(now), { now: engine.now, afterSeq: stored?.afterSeq ?? 0 });
    this.owner = from?.owner ?? options.owner ?? engine.settings.owner;
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
    const cost = costOf(usage, slot.model.provider, slot.model.model, slot.model.offline, this.engine.settings.prices);
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
    const now = new Date(this.engine.now()).toISOString();
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
    if (this.rankings.length > 0) session.rankings = [...this.rankings];
    if (this.promptCuts.length > 0) session.promptCuts = [...this.promptCuts];
    if (this.grounding) session.grounding = this.grounding.snapshot();
    if (this.consensus) session.consensus = this.consensus;
    if (this.verdict) session.verdict = this.verdict;
    if (this.adaptive) session.adaptive = this.adaptive;
    if (this.tags) session.tags = [...this.tags];
    if (status !== 'running') session.completedAt = now;
    return session;
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

function sorted(slots: Iterable<SlotNumber>): SlotNumber[] {
  return [...new Set(slots)].sort((a, b) => a - b);
}

function roundKind(round: number, rounds: number): RoundKind {
  return round === 1 ? 'independent' : round === rounds ? 'final' : 'critique';
}

/** A failure that happened because the run stopped, named for why it stopped. */
function stoppedError(run: Run, result: AnswerResult<unknown>): AnswerError | undefined {
  if (!result.error) return undefined;
  if (result.error.code === 'aborted' && run.overBudget) {
    return { ...result.error, code: 'budget_exceeded', message: run.error ?? 'The session budget was reached.' };
  }
  return result.error;
}

export class DebateEngine {
  readonly now: () => number;
  /** Each slot's recent answer latency (ms, moving average), to start the slowest slot first. */
  readonly #latency = new Map<SlotNumber, number>();
  readonly #random: Random;
  readonly #resolver: PanelResolver;

  constructor(readonly settings: EngineSettings) {
    this.now = settings.now ?? Date.now;
    this.#random = settings.random ?? Math.random;
    this.#resolver = new PanelResolver(settings.panel, settings.modelFor);
  }

  /** The slots that debate in `run`: its chosen panel, or every configured slot. */
  #panelOf(run: Run): Slot[] {
    return run.choice ? this.#resolver.panel(run.choice) : [...this.settings.panel];
  }

  get slots(): SlotInfo[] {
    return this.settings.panel.map((p) => publicSlot(p.config));
  }

  /** The panel's slot whose provider is `provider`, if one is configured. */
  slotByProvider(provider: string): Slot | undefined {
    return this.settings.panel.find((p) => p.config.provider === provider);
  }

  /** Asks one model; the session holds one round with one answer. */
  async ask(slot: Slot, question: string, options: RunOptions & { maxOutputTokens?: number } = {}): Promise<Session> {
    return this.#newSingleRound('single', [slot], question, options);
  }

  /** All asked slots answer at once; no debate. */
  async parallel(
    question: string,
    slots: readonly SlotNumber[] | undefined,
    options: RunOptions & { maxOutputTokens?: number } = {},
  ): Promise<Session> {
    const wanted = slots ? new Set(slots) : undefined;
    const asked = this.settings.panel.filter((p) => !wanted || wanted.has(p.config.slot));
    return this.#newSingleRound('parallel', asked, question, options);
  }

  /** One independent round, no verdict: `completed` when all answered, `partial` when some, `failed` when none. */
  async #newSingleRound(
    mode: SessionMode,
    slots: readonly Slot[],
    question: string,
    options: RunOptions & { maxOutputTokens?: number },
  ): Promise<Session> {
    const run = new Run(this, mode, question, 1, undefined, options);
    this.#started(run, slots);
    // Grounded: the same retrieval as a deep debate's, before any model answers (no tools: no critique round).
    await run.grounding?.prepare(question, run.signal, (e) => run.log.emit(e));
    return this.#singleRound(run, slots, options, []);
  }

  /** The round of a single or parallel run; `kept` are answers a continued run already has. */
  async #singleRound(
    run: Run,
    slots: readonly Slot[],
    options: { maxOutputTokens?: number },
    kept: readonly Answer[],
  ): Promise<Session> {
    const round = await this.#round(
      run,
      1,
      'independent',
      slots,
      () => independentPrompt(run.question, run.thread?.context),
      options.maxOutputTokens,
      undefined,
      kept,
    );
    if (run.cancelled) return run.end('cancelled');
    return this.#singleEnd(run, round, slots.length);
  }

  #singleEnd(run: Run, round: Round, asked: number): Session {
    if (!run.rounds.includes(round)) run.rounds.push(round);
    // The answers' citations, told before the session ends (a deep debate tells them with its verdict).
    run.grounding?.settle?.();
    const answered = round.answers.filter((a) => !a.error).length;
    return run.end(answered === 0 ? 'failed' : answered < asked ? 'partial' : 'completed');
  }

  /**
   * A deep debate: independent answers, critique rounds, a final round with the consensus, then the
   * verdict. With `earlyStop`, a critique round in which every model reports no change of position
   * is followed straight by the final round, and the session records what that saved. With `strategy:
   * "adaptive"`, a round 1 whose answers agree is the last: its vote is the verdict (see `adaptive.ts`).
   */
  async deep(question: string, options: RunOptions & DeepOptions & { budget?: Budget } = {}): Promise<Session> {
    const rounds = options.rounds ?? 3;
    const run = new Run(this, 'deep', question, rounds, options.budget, options);
    run.choice = panelChoice(this.settings.panel, options.panel ?? {});
    if (options.strategy === 'adaptive') run.adaptive = { threshold: options.agreement ?? 1, stopped: false };
    this.#started(run, this.#panelOf(run));
    await run.grounding?.prepare(question, run.signal, (e) => run.log.emit(e));
    return this.#debate(run, options, { ended: [] });
  }

  /**
   * Continues an interrupted session from what is stored, in the same session: its events go on after
   * `afterSeq`, and what it had spent is added to. Deep: rounds that ended are kept; in the round that
   * had not, finished answers are kept and only the missing slots are asked; then the debate goes on
   * as usual. Single and parallel: the slots that had not answered are asked. Synthesis: the verdict
   * is written again from `answers` (what the session was synthesized from; its own rounds are empty).
   * Options the session did not store (quorum, budget, output limits, early stop) take their defaults.
   */
  async continue(
    stored: StoredRun,
    options: RunOptions & { answers?: readonly { slot: SlotNumber; round?: number; text: string }[] } = {},
  ): Promise<Session> {
    const s = stored.session;
    const run = new Run(this, s.mode, s.question, s.roundsRequested, undefined, options, stored);
    const ended = new Set(stored.progress.flatMap((e) => (e.type === 'round.ended' ? [e.round] : [])));
    // An answer cut short by the stop is missing, not failed: it is asked again.
    const finished = (round: Round | undefined) => round?.answers.filter((a) => a.error?.code !== 'aborted') ?? [];
    if (s.mode === 'synthesis') return this.#synthesis(run, options.answers ?? []);
    if (s.mode !== 'deep') {
      const asked = new Set<number>();
      for (const e of stored.progress) {
        if (e.type === 'round.started') for (const slot of e.slots) asked.add(slot);
        else if (e.type === 'session.started' && s.mode === 'parallel') for (const slot of e.slots) asked.add(slot.slot);
      }
      const first = s.rounds.find((r) => r.number === 1);
      if (ended.has(1) && first) {
        run.keep(first.answers);
        return this.#singleEnd(run, first, first.answers.length);
      }
      const slots = this.settings.panel.filter((p) => asked.has(p.config.slot));
      run.keep(finished(first));
      return this.#singleRound(run, slots, {}, finished(first));
    }
    const last = s.earlyStop ? s.earlyStop.afterRound + 1 : s.roundsRequested;
    // The final round's structured positions (for the consensus and the verdict) are not stored: it is asked again whole.
    const kept: Round[] = [];
    for (let n = 1; n < last && ended.has(n); n++) {
      const round = s.rounds.find((r) => r.number === n);
      if (!round) break;
      kept.push(round);
    }
    const next = kept.length + 1;
    const open = finished(next < last ? s.rounds.find((r) => r.number === next) : undefined);
    run.keep([...kept.flatMap((r) => r.answers), ...open]);
    return this.#debate(run, { rounds: s.roundsRequested }, { ended: kept, open: { number: next, answers: open } });
  }

  /** The rounds, the consensus and the verdict of a deep debate, going on from what `kept` holds. */
  async #debate(
    run: Run,
    options: Omit<DeepOptions, 'panel'>,
    kept: { ended: readonly Round[]; open?: { number: number; answers: readonly Answer[] } },
  ): Promise<Session> {
    const rounds = options.rounds ?? 3;
    const panel = this.#panelOf(run);
    const quorum = Math.min(options.quorum ?? this.settings.quorum, panel.length);
    const question = run.question;
    const context = run.thread?.context;
    const anonymous = run.choice?.anonymous === true;

    /** Each slot's latest answer, as the others see it. */
    const latest = new Map<SlotNumber, QuotedAnswer & { round: number }>();
    const finals = new Map<SlotNumber, FinalPosition>();
    let stopped = false;
    /** The final round's number: `rounds`, or sooner after an early stop. */
    let last = run.earlyStop ? run.earlyStop.afterRound + 1 : rounds;
    for (let n = 1; n <= last; n++) {
      const kind = roundKind(n, last);
      // In slot order: a slot that first answers in a later round would otherwise come last.
      const others = (slot: SlotNumber) => [...latest.values()].filter((a) => a.slot !== slot).sort((a, b) => a.slot - b.slot);
      // Only a critique round followed by another critique round can end early.
      const positionLine = options.earlyStop === true && kind === 'critique' && n + 1 < last;
      const ended = kept.ended.find((r) => r.number === n);
      // Anonymous: each reader's peers as labels, shuffled per reader and per round (see anonymise.ts).
      const labels =
        anonymous && kind !== 'independent' && !ended
          ? assignLabels(
              panel.map((p) => p.config.slot),
              [...latest.keys()],
              this.#random,
            )
          : undefined;
      const labelled = labels ? labelMaps(n, 'debate', labels) : [];
      run.labels.push(...labelled);
      run.finalOutput = labels && kind === 'final' ? anonymousFinal(labels) : undefined;
      const prompt = (slot: Slot) => {
        if (kind === 'independent') return independentPrompt(question, context, { positionLine: true });
        const own = latest.get(slot.config.slot);
        const mine = labels?.get(slot.config.slot);
        const quoted = mine ? mine.map((l) => ({ ...latest.get(l.slot)!, label: l.label })) : others(slot.config.slot);
        return this.#bounded(run, slot, n, [...(own ? [own] : []), ...quoted], (texts) => {
          const ownText = own ? texts[0] : undefined;
          const peers = quoted.map((q, i) => ({ ...q, text: texts[i + (own ? 1 : 0)]! }));
          return kind === 'critique'
            ? critiquePrompt(question, n, ownText, peers, { context, positionLine })
            : finalPrompt(question, n, ownText, peers, rounds === 2, context, { anonymous: labels !== undefined });
        });
      };
      let round: Round;
      if (ended) {
        round = ended;
        run.rounds.push(round);
      } else {
        const answers = kept.open?.number === n ? kept.open.answers : [];
        round = await this.#round(
          run,
          n,
          kind,
          panel,
          prompt,
          undefined,
          kind === 'final' ? finals : undefined,
          answers,
          labelled,
        );
      }
      const answered = round.answers.filter((a) => !a.error);
      for (const a of answered) latest.set(a.slot, { slot: a.slot, provider: a.provider, text: a.text, round: n });
      const quorumMet = answered.length >= quorum;
      if (!ended) run.log.emit({ type: 'round.ended', round: n, missingSlots: round.missingSlots, quorumMet });
      // The peer ranking runs beside the next rounds; the verdict waits for it.
      if (n === 1 && quorumMet && !ended && run.choice?.ranking && !run.signal.aborted)
        run.side = this.#rank(run, panel, answered, n);
      if (run.cancelled) return run.finish('cancelled');
      if (run.overBudget) {
        stopped = true;
        break;
      }
      if (!quorumMet) {
        run.error = `quorum_not_met: round ${n} had ${answered.length} answers, the quorum is ${quorum}`;
        if (n === 1) return run.finish('failed');
        stopped = true;
        break;
      }
      if (n === 1 && run.adaptive && this.#voted(run, panel, answered, rounds)) {
        await run.side;
        return run.end(run.missing.size === 0 ? 'completed' : 'partial');
      }
      if (positionLine && round.missingSlots.length === 0 && answered.every((a) => reportsUnchanged(a.text))) {
        last = n + 1;
        const roundsSaved = rounds - last;
        run.earlyStop = {
          afterRound: n,
          roundsSaved,
          // Estimated as this round again, once per round saved.
          callsSaved: roundsSaved * answered.length,
          tokensSaved: roundsSaved * answered.reduce((sum, a) => sum + a.usage.totalTokens, 0),
        };
      }
    }

    if (!stopped && finals.size > 0) {
      run.consensus = mergeConsensus(last, [...finals.values()], new Set(finals.keys()));
      run.log.emit({ type: 'consensus', consensus: run.consensus });
    }
    await run.side;
    if (run.overBudget) return run.end('partial');

    await this.#synthesize(run, finals, last);
    if (run.cancelled) return run.end('cancelled');
    const complete = !stopped && run.missing.size === 0 && run.verdict?.format === 'structured' && run.consensus;
    return run.end(complete ? 'completed' : 'partial');
  }

  /** A verdict from answers given by the caller (mode `synthesis`). */
  async synthesizeAnswers(
    question: string,
    answers: readonly { slot: SlotNumber; round?: number; text: string }[],
    options: RunOptions = {},
  ): Promise<Session> {
    const run = new Run(this, 'synthesis', question, 1, undefined, options);
    this.#started(run, []);
    return this.#synthesis(run, answers);
  }

  async #synthesis(run: Run, answers: readonly { slot: SlotNumber; round?: number; text: string }[]): Promise<Session> {
    const byRound = new Map<number, QuotedAnswer[]>();
    for (const a of answers) {
      const n = a.round ?? 1;
      const provider = this.settings.panel.find((p) => p.config.slot === a.slot)?.config.provider ?? `slot-${a.slot}`;
      byRound.set(n, [...(byRound.get(n) ?? []), { slot: a.slot, provider, text: a.text }]);
    }
    const transcript = [...byRound.entries()].sort(([a], [b]) => a - b).map(([number, list]) => ({ number, answers: list }));
    await this.#writeVerdict(run, transcript, new Set(answers.map((a) => a.slot)), new Set(), undefined);
    if (run.cancelled) return run.end('cancelled');
    return run.end(
      run.verdict?.format === 'structured' && run.missing.size === 0 ? 'completed' : run.verdict ? 'partial' : 'failed',
    );
  }

  /** An adaptive debate's decision after round 1; true when the answers agree and its vote is now the verdict. */
  #voted(run: Run, panel: readonly Slot[], answered: readonly Answer[], rounds: number): boolean {
    const { threshold } = run.adaptive!;
    const decision = adaptiveDecision(answered, threshold);
    const chosen = run.choice?.synthesizer;
    const synthesizer = (chosen !== undefined && run.choice ? this.#resolver.slot(chosen, run.choice) : undefined) ?? panel[0]!;
    const saved = decision.stop
      ? adaptiveSaving(
          { question: run.question, context: run.thread?.context, panel, synthesizer, rounds, answered },
          this.settings.prices,
        )
      : undefined;
    run.adaptive = adaptiveOutcome(threshold, decision, saved);
    if (!decision.stop) return false;
    const degradation = { degraded: run.missing.size > 0, missingSlots: sorted(run.missing), reasons: [...run.reasons] };
    const verdict = voteVerdict(decision, answered, degradation);
    run.verdict = run.grounding ? run.grounding.verdict(verdict) : verdict;
    run.log.emit({ type: 'verdict', verdict: run.verdict });
    return true;
  }

  #system({ config }: Slot, run: Run): string {
    const { slot, provider, strength } = config;
    return systemPrompt({ slot, provider, strength }, run.choice?.slots.length ?? this.settings.panel.length);
  }

  /** A prompt quoting `parts`, within `slot`'s context budget; what had to be cut is recorded with the session. */
  #bounded(
    run: Run,
    slot: Slot,
    round: number,
    parts: readonly QuotedPart[],
    build: (texts: readonly string[]) => string,
  ): string {
    const { prompt, cuts } = boundedPrompt(parts, build, {
      maxChars: promptChars(slot.config.provider, slot.config.contextTokens),
      overhead: this.#system(slot, run).length,
      round,
      reader: slot.config.slot,
    });
    run.promptCuts.push(...cuts);
    return prompt;
  }

  /**
   * The peer ranking after round `round`: each slot that answered ranks the others' answers, anonymous
   * and shuffled for it, never its own. A ballot that fails or does not rank exactly what it was shown
   * is missing, with why (and the slot's failure is the session's, as a failed answer's is); an
   * offline stand-in has no judgement to give, so it is not asked.
   */
  async #rank(run: Run, panel: readonly Slot[], answers: readonly Answer[], round: number): Promise<void> {
    const bySlot = new Map(answers.map((a) => [a.slot, a]));
    const rankers = panel.filter((p) => bySlot.has(p.config.slot));
    const labels = assignLabels(
      rankers.map((p) => p.config.slot),
      [...bySlot.keys()],
      this.#random,
    );
    run.labels.push(...labelMaps(round, 'ranking', labels));
    const ballots: Ranking['ballots'] = [];
    const missing: Ranking['missing'] = [];
    await Promise.all(
      rankers.map(async (slot) => {
        const n = slot.config.slot;
        const mine = labels.get(n) ?? [];
        if (mine.length < 2) return void missing.push({ slot: n, reason: 'fewer than two other answers to rank' });
        if (slot.model.offline) return void missing.push({ slot: n, reason: 'an offline stand-in cannot judge answers' });
        const quoted = mine.map((l) => ({ slot: l.slot, provider: '', text: bySlot.get(l.slot)!.text, label: l.label, round }));
        const prompt = this.#bounded(run, slot, round, quoted, (texts) =>
          rankingPrompt(
            run.question,
            round,
            quoted.map((q, i) => ({ ...q, text: texts[i]! })),
            run.thread?.context,
          ),
        );
        const result = await streamAnswer({
          model: slot.model,
          system: this.#system(slot, run),
          prompt,
          signal: run.signal,
          timeoutMs: this.settings.callTimeoutMs,
          maxRetries: this.settings.maxRetries,
          output: rankingSchema,
          ...(this.settings.sleep && { sleep: this.settings.sleep }),
          ...this.#reportFailures(run, slot, round),
        });
        run.account(result.usage, slot);
        const error = stoppedError(run, result);
        if (!result.object || error) {
          const e = error ?? { code: 'invalid_output' as const, message: 'no ranking', retryable: false, attempts: 1 };
          if (!run.cancelled) run.fail(n, round, { ...e, message: `ranking: ${e.message}` });
          return void missing.push({ slot: n, reason: `${e.code}: ${e.message}` });
        }
        const ballot = ballotOf(result.object, n, mine);
        if ('invalid' in ballot) {
          run.fail(n, round, { code: 'invalid_output', message: `ranking: ${ballot.invalid}`, retryable: false, attempts: 1 });
          return void missing.push({ slot: n, reason: `invalid ranking: ${ballot.invalid}` });
        }
        ballots.push(ballot);
      }),
    );
    if (run.cancelled) return;
    const ranking = rankingOf(round, ballots, missing, [...bySlot.keys()]);
    run.rankings.push(ranking);
    run.log.emit({ type: 'ranking', ranking });
  }

  #started(run: Run, slots: readonly Slot[]): void {
    run.log.emit({
      type: 'session.started',
      mode: run.mode,
      question: run.question,
      roundsRequested: run.roundsRequested,
      slots: slots.map((s) => publicSlot(s.config)),
    });
  }

  /** One round: every slot at once, each streaming its deltas; failures are named, never thrown. */
  async #round(
    run: Run,
    n: number,
    kind: RoundKind,
    slots: readonly Slot[],
    prompt: (slot: Slot) => string,
    maxOutputTokens: number | undefined,
    finals?: Map<SlotNumber, FinalPosition>,
    kept: readonly Answer[] = [],
    labels: readonly LabelMap[] = [],
  ): Promise<Round> {
    // A continued round asks only the slots it has no answer of; its `round.started` lists just those,
    // so a client resets their text and keeps the rest.
    const keptBySlot = new Map(kept.map((a) => [a.slot, a]));
    const asked = slots.filter((s) => !keptBySlot.has(s.config.slot));
    run.log.emit({
      type: 'round.started',
      round: n,
      kind,
      slots: asked.map((s) => s.config.slot),
      ...(labels.length > 0 && { labels: [...labels] }),
    });
    // Setting a call up takes the event loop a fraction of a millisecond each; starting the slot that
    // usually answers last first keeps those set-ups off the round's critical path.
    const expected = (slot: Slot) => this.#latency.get(slot.config.slot) ?? 0;
    const byLatency = [...asked].sort((a, b) => expected(b) - expected(a));
    // The round is part of the session from its start: answers join it as they finish (a snapshot
    // taken mid-round holds them), then take the panel's order when the round ends.
    const round: Round = { number: n, kind, answers: [...kept], missingSlots: [] };
    run.rounds.push(round);
    const settled = new Map<Slot, Answer>();
    await Promise.all(
      byLatency.map(async (slot) => {
        settled.set(slot, await this.#answer(run, round, slot, prompt(slot), maxOutputTokens, finals));
      }),
    );
    const panelSlots = new Set<number>(slots.map((s) => s.config.slot));
    round.answers = [
      ...slots.map((slot) => settled.get(slot) ?? keptBySlot.get(slot.config.slot)!),
      // A kept answer of a slot no longer configured stays part of the round.
      ...kept.filter((a) => !panelSlots.has(a.slot)),
    ];
    round.missingSlots = sorted(round.answers.filter((a) => a.error).map((a) => a.slot));
    return round;
  }

  async #answer(
    run: Run,
    round: Round,
    slot: Slot,
    prompt: string,
    maxOutputTokens: number | undefined,
    finals: Map<SlotNumber, FinalPosition> | undefined,
  ): Promise<Answer> {
    const { model } = slot;
    const slotNumber = slot.config.slot;
    const n = round.number;
    const position = finals ? new PositionStream() : undefined;
    const onDelta = (text: string) => {
      const delta = position ? position.push(text) : text;
      if (delta) run.log.answerDelta(n, slotNumber, delta);
    };
    const tooled =
      round.kind === 'critique' ? run.grounding?.toolModel?.(model.languageModel, { round: n, slot: slotNumber }) : undefined;
    const result = await streamAnswer({
      model: tooled ? { languageModel: tooled } : model,
      system: this.#system(slot, run),
      prompt: run.grounding?.decorate(prompt) ?? prompt,
      signal: run.signal,
      timeoutMs: this.settings.callTimeoutMs,
      maxRetries: this.settings.maxRetries,
      onDelta,
      ...(finals && { output: (run.finalOutput?.schema ?? finalPositionSchema) as z.ZodType<unknown> }),
      ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      ...(this.settings.sleep && { sleep: this.settings.sleep }),
      ...this.#reportFailures(run, slot, n),
    });
    const cost = run.account(result.usage, slot);
    const error = stoppedError(run, result);
    const final =
      result.object === undefined || !run.finalOutput
        ? (result.object as FinalPosition | undefined)
        : run.finalOutput.read(slotNumber, result.object);
    if (final && finals) finals.set(slotNumber, final);
    const answer: Answer = {
      slot: slotNumber,
      provider: model.provider,
      model: model.model,
      offline: model.offline,
      round: n,
      // The final round's answer is its position; raw JSON only when it could not be read.
      text: final ? final.position : result.text,
      usage: result.usage,
      latencyMs: Math.round(result.latencyMs),
      finishReason: result.finishReason,
      cost,
      ...(error && { error }),
    };
    if (!error) {
      const previous = this.#latency.get(slotNumber);
      this.#latency.set(slotNumber, previous === undefined ? answer.latencyMs : 0.7 * previous + 0.3 * answer.latencyMs);
    }
    round.answers.push(answer);
    if (error) {
      run.fail(slotNumber, n, error);
      run.log.emit({ type: 'answer.failed', round: n, slot: slotNumber, provider: model.provider, model: model.model, error });
    } else {
      run.grounding?.answered(answer);
      run.log.emit({ type: 'answer.completed', answer });
    }
    return answer;
  }

  async #synthesize(run: Run, finals: ReadonlyMap<SlotNumber, FinalPosition>, rounds: number): Promise<void> {
    const transcript = run.rounds.map((r) => ({
      number: r.number,
      answers: r.answers.filter((a) => !a.error).map((a) => ({ slot: a.slot, provider: a.provider, text: a.text })),
    }));
    const participants = new Set(run.rounds.flatMap((r) => r.answers.filter((a) => !a.error).map((a) => a.slot)));
    const lastRound = run.rounds.at(-1);
    const healthy = new Set(lastRound?.answers.filter((a) => !a.error).map((a) => a.slot));
    const changes: PositionChange[] = [];
    for (const { config } of this.#panelOf(run)) {
      const slot = config.slot;
      const final = finals.get(slot);
      if (final) changes.push({ slot, changed: final.changed, round: rounds, reason: oneLine(final.changeReason) });
      else changes.push({ slot, changed: false, reason: 'No final position: the model did not complete the final round.' });
    }
    await this.#writeVerdict(run, transcript, participants, healthy, changes);
  }

  /**
   * The verdict: the synthesizer the request chose (any slot, in the panel or not), else the panel's
   * first slot (slot 1 on a full panel), writes it unless it is down (it debated and failed the last
   * round, or fails now); then the next healthy panel slot does, and the verdict says so. Output that
   * fails validation gets one repair attempt; after that the raw text is kept as an `unstructured`
   * verdict, never invented.
   */
  async #writeVerdict(
    run: Run,
    transcript: { number: number; answers: QuotedAnswer[] }[],
    participants: ReadonlySet<SlotNumber>,
    healthy: ReadonlySet<SlotNumber>,
    positionChanges: PositionChange[] | undefined,
  ): Promise<void> {
    const panel = this.#panelOf(run);
    const chosen = run.choice?.synthesizer;
    const first = (chosen !== undefined && run.choice ? this.#resolver.slot(chosen, run.choice) : undefined) ?? panel[0]!;
    const debated = panel.some((p) => p.config.slot === first.config.slot);
    const firstDown = run.mode === 'deep' && debated && !healthy.has(first.config.slot);
    const candidates = [
      ...(firstDown ? [] : [first]),
      ...panel.filter((p) => p.config.slot !== first.config.slot && (run.mode !== 'deep' || healthy.has(p.config.slot))),
    ];
    const consensusNote = [
      run.consensus
        ? `The final round's consensus:\n${JSON.stringify({ agreements: run.consensus.agreements, disagreements: run.consensus.disagreements })}`
        : 'There is no consensus report: the debate ended before its final round completed.',
      ...run.rankings.map(rankingNote),
    ].join('\n\n');
    const parts = transcript.flatMap((r) =>
      r.answers.map((a) => ({ slot: a.slot as SlotNumber, round: r.number, text: a.text })),
    );
    const promptFor = (slot: Slot) =>
      this.#bounded(run, slot, 0, parts, (texts) => {
        let i = 0;
        const cut = transcript.map((r) => ({ number: r.number, answers: r.answers.map((a) => ({ ...a, text: texts[i++]! })) }));
        const asked = synthesisPrompt(run.question, cut, consensusNote, run.thread?.context);
        return run.grounding?.decorate(asked) ?? asked;
      });
    const validSlots = new Set(participants);
    const validRounds = new Set(transcript.map((r) => r.number));

    for (const slot of candidates) {
      if (run.signal.aborted) return;
      const slotNumber = slot.config.slot;
      const synthesizer: Synthesizer = {
        slot: slotNumber,
        provider: slot.model.provider,
        model: slot.model.model,
        reason: slot !== first ? 'fallback' : chosen !== undefined ? 'chosen' : 'default',
        participated: participants.has(slotNumber),
        ...(slot !== first && { fallbackFrom: first.config.slot }),
      };
      const prompt = promptFor(slot);
      run.log.emit({ type: 'synthesis.started', synthesizer });
      let result = await this.#callVerdict(run, slot, prompt, 1);
      if (result.error?.code === 'invalid_output') {
        const repaired = await this.#callVerdict(run, slot, repairPrompt(prompt, result.text, result.error.message), 2);
        result = repaired.error?.code === 'invalid_output' || !repaired.error ? repaired : result;
      }
      const error = stoppedError(run, result);
      if (result.object) {
        run.verdict = this.#verdict(
          run,
          synthesizer,
          slot.model.offline,
          result.object,
          validSlots,
          validRounds,
          positionChanges,
        );
      } else if (error?.code === 'invalid_output') {
        // Still invalid after the repair: name the failure (round 0 = synthesis) before the verdict
        // copies the reasons, or the verdict says `degraded: true` with no slot and no reason.
        run.fail(slotNumber, 0, error);
        run.verdict = this.#verdict(
          run,
          synthesizer,
          slot.model.offline,
          undefined,
          validSlots,
          validRounds,
          positionChanges,
          result.text,
        );
      } else if (error) {
        run.fail(slotNumber, 0, error);
        continue;
      }
      if (run.verdict && run.grounding) run.verdict = run.grounding.verdict(run.verdict);
      if (run.verdict) run.log.emit({ type: 'verdict', verdict: run.verdict });
      return;
    }
    if (!run.signal.aborted) run.error ??= 'no_synthesizer: every slot that could write the verdict failed';
  }

  /** `streamAnswer`'s failure hook for one slot's call in `round`, when the engine reports failures. */
  #reportFailures(run: Run, slot: Slot, round: number): { onAttemptFailed?: (failure: AttemptFailure) => void } {
    const report = this.settings.onCallFailed;
    if (!report) return {};
    const where = {
      sessionId: run.log.sessionId,
      round,
      slot: slot.config.slot,
      provider: slot.model.provider,
      model: slot.model.model,
    };
    return { onAttemptFailed: (failure) => report({ ...where, ...failure }) };
  }

  /** One synthesizer call; its summary and answer stream as `verdict.delta` events as they are written. */
  #callVerdict(run: Run, slot: Slot, prompt: string, attempt: 1 | 2): Promise<AnswerResult<VerdictDraft>> {
    const fields = new FieldStream(['summary', 'answer'] as const);
    return streamAnswer({
      onDelta: (text) => {
        for (const { field, delta } of fields.push(text)) run.log.verdictDelta(slot.config.slot, attempt, field, delta);
      },
      model: slot.model,
      system: this.#system(slot, run),
      prompt,
      signal: run.signal,
      timeoutMs: this.settings.callTimeoutMs,
      maxRetries: this.settings.maxRetries,
      output: verdictDraftSchema,
      ...(this.settings.sleep && { sleep: this.settings.sleep }),
      ...this.#reportFailures(run, slot, 0),
    }).then((result) => {
      run.account(result.usage, slot);
      return result;
    });
  }

  #verdict(
    run: Run,
    synthesizer: Synthesizer,
    offline: boolean,
    draft: VerdictDraft | undefined,
    slots: ReadonlySet<number>,
    rounds: ReadonlySet<number>,
    positionChanges: PositionChange[] | undefined,
    rawText?: string,
  ): Verdict {
    const degradation = {
      degraded: run.missing.size > 0 || synthesizer.reason === 'fallback' || !draft,
      missingSlots: sorted(run.missing),
      reasons: [...run.reasons],
    };
    const base = { synthesizer, degradation, positionChanges: positionChanges ?? [] };
    if (!draft) return { format: 'unstructured', rawText: rawText ?? '', dissent: [], ...base };
    // The model may credit slots or rounds that gave nothing; provenance keeps only real ones.
    const keepSlots = (list: readonly number[]) => sorted(list.filter((s) => slots.has(s)) as SlotNumber[]);
    const keepRounds = (list: readonly number[]) => [...new Set(list.filter((r) => rounds.has(r)))].sort((a, b) => a - b);
    // An action listed twice (same title, in any priority) is kept once, at its highest priority.
    const titles = new Set<string>();
    const actions = (list: VerdictDraft['actions']['P0']) =>
      list
        .filter((a) => {
          const key = a.title.trim().toLowerCase();
          if (titles.has(key)) return false;
          titles.add(key);
          return true;
        })
        .map((a) => ({
          ...a,
          supportingSlots: keepSlots(a.supportingSlots),
          supportingRounds: keepRounds(a.supportingRounds),
        }));
    return {
      format: 'structured',
      summary: draft.summary,
      answer: draft.answer,
      actions: { P0: actions(draft.actions.P0), P1: actions(draft.actions.P1), P2: actions(draft.actions.P2) },
      dissent: draft.dissent.map((d) => ({ ...d, slots: keepSlots(d.slots) })).filter((d) => d.slots.length > 0),
      // A stand-in's number would read as a judgement it cannot make.
      ...(!offline && { confidence: draft.confidence }),
      ...base,
    } as Verdict;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** How an anonymous final round is asked: labels for who holds a view, mapped back to slots per reader. */
function anonymousFinal(labels: ReadonlyMap<SlotNumber, Labelled>): NonNullable<Run['finalOutput']> {
  return {
    schema: anonymousFinalPositionSchema,
    read: (slot, reply) => namedFinal(reply as AnonymousFinalPosition, slot, labels.get(slot) ?? []),
  };
}
