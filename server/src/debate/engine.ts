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
 *
 * The parts, by concern: `run.ts` (what a run accumulates), `single.ts`, `deep.ts`, `rounds.ts`,
 * `peer-ranking.ts`, `verdict.ts`; `context.ts` is what they share.
 */
import type { Answer, Round, Session, SessionMode, SlotInfo } from '../../../sdk/src/generated/types.gen.js';
import { publicSlot } from '../config/slots.js';
import type { EngineContext } from './context.js';
import { panelOf } from './context.js';
import { continueDebate, debate } from './deep.js';
import { PanelResolver, panelChoice } from './panel.js';
import { type DeepOptions, Run, type RunOptions, type StoredRun } from './run.js';
import type { EngineSettings, Slot } from './settings.js';
import { continueSingle, singleRound } from './single.js';
import { synthesis } from './verdict.js';

export type { Budget, DeepOptions, RunOptions, StoredRun, ThreadLink } from './run.js';
export type { CallFailure, EngineSettings, Slot } from './settings.js';

type SlotNumber = Answer['slot'];
type GivenAnswers = readonly { slot: SlotNumber; round?: number; text: string }[];

export class DebateEngine {
  readonly now: () => number;
  readonly #ctx: EngineContext;

  constructor(readonly settings: EngineSettings) {
    this.now = settings.now ?? Date.now;
    this.#ctx = {
      settings,
      now: this.now,
      random: settings.random ?? Math.random,
      resolver: new PanelResolver(settings.panel, settings.modelFor),
      latency: new Map(),
    };
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
    const run = new Run(this.#ctx, mode, question, 1, undefined, options);
    run.started(slots);
    // Grounded: the same retrieval as a deep debate's, before any model answers (no tools: no critique round).
    await run.grounding?.prepare(question, run.signal, (e) => run.log.emit(e));
    return singleRound(this.#ctx, run, slots, options, []);
  }

  /**
   * A deep debate: independent answers, critique rounds, a final round with the consensus, then the
   * verdict. With `earlyStop`, a critique round in which every model reports no change of position
   * is followed straight by the final round, and the session records what that saved. With `strategy:
   * "adaptive"`, a round 1 whose answers agree is the last: its vote is the verdict (see `adaptive.ts`).
   */
  async deep(question: string, options: DeepOptions = {}): Promise<Session> {
    const rounds = options.rounds ?? 3;
    const run = new Run(this.#ctx, 'deep', question, rounds, options.budget, options);
    run.choice = panelChoice(this.settings.panel, options.panel ?? {});
    if (options.strategy === 'adaptive') run.adaptive = { threshold: options.agreement ?? 1, stopped: false };
    run.started(panelOf(this.#ctx, run));
    await run.grounding?.prepare(question, run.signal, (e) => run.log.emit(e));
    return debate(this.#ctx, run, options, { ended: [] });
  }

  /**
   * Continues an interrupted session from what is stored, in the same session: its events go on after
   * `afterSeq`, and what it had spent is added to. Deep: rounds that ended are kept; in the round that
   * had not, finished answers are kept and only the missing slots are asked; then the debate goes on
   * as usual. Single and parallel: the slots that had not answered are asked. Synthesis: the verdict
   * is written again from `answers` (what the session was synthesized from; its own rounds are empty).
   * Options the session did not store (quorum, budget, output limits, early stop) take their defaults.
   */
  async continue(stored: StoredRun, options: RunOptions & { answers?: GivenAnswers } = {}): Promise<Session> {
    const s = stored.session;
    const run = new Run(this.#ctx, s.mode, s.question, s.roundsRequested, undefined, options, stored);
    if (s.mode === 'synthesis') return synthesis(this.#ctx, run, options.answers ?? []);
    const progress = {
      ended: new Set(stored.progress.flatMap((e) => (e.type === 'round.ended' ? [e.round] : []))),
      // An answer cut short by the stop is missing, not failed: it is asked again.
      finished: (round: Round | undefined) => round?.answers.filter((a) => a.error?.code !== 'aborted') ?? [],
    };
    if (s.mode !== 'deep') return continueSingle(this.#ctx, run, stored, progress);
    return continueDebate(this.#ctx, run, stored, progress);
  }

  /** A verdict from answers given by the caller (mode `synthesis`). */
  async synthesizeAnswers(question: string, answers: GivenAnswers, options: RunOptions = {}): Promise<Session> {
    const run = new Run(this.#ctx, 'synthesis', question, 1, undefined, options);
    run.started([]);
    return synthesis(this.#ctx, run, answers);
  }
}
