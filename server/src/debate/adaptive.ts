/**
 * `strategy: "adaptive"`: vote first, debate only on disagreement. After round 1 the independent answers'
 * positions are compared as the final round's consensus compares statements (`positions.ts`); when the most
 * held one is held by at least `threshold` of the answers, and by no fewer than two, and no other is held as
 * often, the session ends there and its verdict is that vote. No model writes it: the verdict says so
 * (`synthesizer.reason: "vote"`), and the session says what the skipped rounds and verdict would have cost.
 */
import type { AdaptiveOutcome, Answer, Saving, Verdict } from '../../../sdk/src/generated/types.gen.js';
import { estimateSlot, savedAfterRound1 } from './estimate.js';
import { plurality } from './integrity.js';
import type { PanelSlot } from './panel.js';
import type { PriceTable } from './pricing.js';

/** The default: every answer must agree. */
export const DEFAULT_AGREEMENT = 1;

export interface AdaptiveDecision {
  agreement: number;
  stop: boolean;
  vote: ReturnType<typeof plurality>;
}

/** A request's strategy mistakes, as a problem's `errors`: an `agreement` is for an adaptive debate only. */
export function strategyProblems(request: { strategy?: string; agreement?: number }): { path: string; message: string }[] {
  return request.agreement !== undefined && request.strategy !== 'adaptive'
    ? [
        {
          path: 'body.agreement',
          message: '`agreement` is the threshold of `strategy: "adaptive"`; this request does not ask for it.',
        },
      ]
    : [];
}

/** Whether round 1's `answers` agree enough to stop there. */
export function adaptiveDecision(answers: readonly Answer[], threshold: number): AdaptiveDecision {
  const vote = plurality(answers);
  const holders = vote.slots?.length ?? 0;
  return { agreement: vote.share, stop: vote.position !== undefined && holders >= 2 && vote.share >= threshold, vote };
}

/** The session's `adaptive` once round 1 has decided it. */
export function adaptiveOutcome(threshold: number, decision: AdaptiveDecision, saved?: Saving): AdaptiveOutcome {
  return { threshold, agreement: decision.agreement, stopped: decision.stop, ...(decision.stop && saved && { saved }) };
}

/**
 * The verdict of a session that stopped after round 1: the agreed position as its answer, credited to the
 * slots that hold it; the others' positions as dissent. `answers` are round 1's; `slot` identifies whose
 * wording the position keeps (the first that holds it).
 */
export function voteVerdict(
  decision: AdaptiveDecision,
  answers: readonly Answer[],
  degradation: Verdict['degradation'],
): Verdict {
  const { vote } = decision;
  const holders = vote.slots ?? [];
  const by = answers.find((a) => a.slot === holders[0])!;
  const percent = Math.round(decision.agreement * 100);
  return {
    format: 'structured',
    summary: `${holders.length} of ${vote.answered} independent answers agree (${percent} %), so the debate stopped after round 1: the verdict is their vote.`,
    answer: vote.position ?? '',
    actions: { P0: [], P1: [], P2: [] },
    dissent: vote.positions.slice(1).map((p) => ({ slots: p.slots, text: p.position })),
    synthesizer: { slot: by.slot, provider: by.provider, model: by.model, reason: 'vote', participated: true },
    degradation,
    positionChanges: [],
  };
}

/** What the rounds after round 1 and the verdict would have cost, sized from round 1's measured answers. */
export function adaptiveSaving(
  run: {
    question: string;
    context: string | undefined;
    panel: readonly PanelSlot[];
    synthesizer: PanelSlot;
    rounds: number;
    answered: readonly Answer[];
  },
  prices: PriceTable,
): Saving {
  const measured = new Map(run.answered.map((a) => [a.slot as number, a.usage.outputTokens]));
  return savedAfterRound1(
    {
      mode: 'deep',
      question: run.question,
      ...(run.context !== undefined && { context: run.context }),
      // The slots that answered go on; a failed one would be asked again, at no known size.
      slots: run.panel.filter((p) => measured.has(p.config.slot)).map(estimateSlot),
      synthesizer: estimateSlot(run.synthesizer),
      rounds: run.rounds,
      prices,
      history: () => undefined,
    },
    measured,
  );
}
