/**
 * What a run would cost, before it runs: per slot, the calls it would make and their input and output tokens
 * and cost, each a range. It follows the engine's plan of calls (round 1, critique rounds, the final round,
 * the peer ranking, the verdict and its one repair) and sizes each call as the engine would build it:
 *
 * - input: the call's own prompt (the question, the system prompt, the round's instructions), measured in
 *   characters, plus the answers it quotes, sized as their writers' output; cut to the slot's context budget
 *   as `budget.ts` cuts prompts;
 * - output: the mean and spread of the output tokens of that model's past answers (`AnswerStats`), or
 *   defaults while there are fewer than `MIN_HISTORY`; `maxOutputTokens` caps them;
 * - characters per token: 4 expected, 5 to 3 for the range (English prose to code and other scripts);
 * - cost: the price table, as `pricing.ts` prices usage.
 *
 * `low` is the cheapest run the request allows (an adaptive debate that stops after round 1, an early stop,
 * short answers), `high` the dearest (every round, the verdict repaired, long answers).
 */
import type {
  Budget,
  BudgetCheck,
  Estimate,
  EstimateRange,
  Saving,
  SlotEstimate,
  Usage,
} from '../../../sdk/src/generated/types.gen.js';
import { promptChars } from './budget.js';
import type { PanelSlot } from './panel.js';
import { costOf, type PriceTable } from './pricing.js';
import { critiquePrompt, finalPrompt, independentPrompt, rankingPrompt, synthesisPrompt, systemPrompt } from './prompts.js';

/** The output tokens of one model's stored answers (errors left out). */
export interface AnswerStats {
  answers: number;
  meanOutputTokens: number;
  /** Standard deviation. */
  sdOutputTokens: number;
}

/** One slot as the estimate needs it. */
export interface EstimateSlot {
  slot: number;
  provider: string;
  model: string;
  strength: string;
  offline: boolean;
  contextTokens?: number;
}

/** A slot of the engine's panel as the estimate sees it. */
export function estimateSlot({ config, model }: PanelSlot): EstimateSlot {
  return {
    slot: config.slot,
    provider: config.provider,
    model: model.model,
    strength: config.strength,
    offline: model.offline,
    ...(config.contextTokens !== undefined && { contextTokens: config.contextTokens }),
  };
}

export interface EstimatePlan {
  mode: 'single' | 'parallel' | 'deep';
  question: string;
  /** The slots asked (deep: the panel, in slot order). */
  slots: readonly EstimateSlot[];
  /** Deep: who writes the verdict (in the panel or not). */
  synthesizer?: EstimateSlot;
  rounds?: number;
  ranking?: boolean;
  strategy?: 'debate' | 'adaptive';
  earlyStop?: boolean;
  maxOutputTokens?: number;
  budget?: Budget;
  /** A follow-up's condensed thread, which every prompt quotes. */
  context?: string;
  prices: PriceTable;
  /** Past answers' output per model: its final-round answers (JSON) apart from the rest. */
  history: (provider: string, model: string, kind: AnswerKind) => AnswerStats | undefined;
}

/** Final-round answers (a position in JSON with the consensus) are sized apart from the others. */
export type AnswerKind = 'answer' | 'final';

/** Below this many past answers a model's averages are not trusted: the defaults are used. */
export const MIN_HISTORY = 3;
/** Output tokens of an answer without history: low, expected, high. */
export const DEFAULT_ANSWER_TOKENS: Range = { low: 100, expected: 450, high: 1500 };
/** A verdict's output tokens (a JSON verdict with actions). */
export const DEFAULT_VERDICT_TOKENS: Range = { low: 100, expected: 700, high: 2000 };
/** The JSON around a final round's position (agreements, disagreements), in tokens, while a model has no final-round history. */
const FINAL_JSON_TOKENS: Range = { low: 30, expected: 150, high: 300 };
/** A ballot's tokens per ranked answer, with its one-line reason. */
const BALLOT_TOKENS_PER_ANSWER = 30;

const CHARS_PER_TOKEN: Range = { low: 5, expected: 4, high: 3 };

type Range = EstimateRange;
const ZERO: Range = { low: 0, expected: 0, high: 0 };
const add = (a: Range, b: Range): Range => ({ low: a.low + b.low, expected: a.expected + b.expected, high: a.high + b.high });
const scale = (a: Range, k: number): Range => ({ low: a.low * k, expected: a.expected * k, high: a.high * k });
const tokensOf = (chars: number): Range => ({
  low: chars / CHARS_PER_TOKEN.low,
  expected: chars / CHARS_PER_TOKEN.expected,
  high: chars / CHARS_PER_TOKEN.high,
});
const cap = (a: Range, max: number): Range => ({
  low: Math.min(a.low, max),
  expected: Math.min(a.expected, max),
  high: Math.min(a.high, max),
});
const rounded = (a: Range, digits = 0): Range => {
  const f = 10 ** digits;
  return { low: Math.round(a.low * f) / f, expected: Math.round(a.expected * f) / f, high: Math.round(a.high * f) / f };
};

/** A range around a history's mean: two standard deviations, and never narrower than 0.6–1.6 times the mean. */
function historyRange({ meanOutputTokens: m, sdOutputTokens: s }: AnswerStats): Range {
  return { low: Math.max(1, Math.min(m - 2 * s, 0.6 * m)), expected: m, high: Math.max(m + 2 * s, 1.6 * m) };
}

/** A slot's output per answer and per final-round answer: from its model's history when there is enough, else defaults. */
export function outputPerAnswer(
  slot: EstimateSlot,
  plan: Pick<EstimatePlan, 'history' | 'maxOutputTokens'>,
): { range: Range; final: Range; pastAnswers: number } {
  const stats = slot.offline ? undefined : plan.history(slot.provider, slot.model, 'answer');
  const finals = slot.offline ? undefined : plan.history(slot.provider, slot.model, 'final');
  let range = stats && stats.answers >= MIN_HISTORY ? historyRange(stats) : DEFAULT_ANSWER_TOKENS;
  if (plan.maxOutputTokens !== undefined) range = cap(range, plan.maxOutputTokens);
  const final = finals && finals.answers >= MIN_HISTORY ? historyRange(finals) : add(range, FINAL_JSON_TOKENS);
  return { range, final, pastAnswers: (stats?.answers ?? 0) + (finals?.answers ?? 0) };
}

/** One planned call (round 0: the verdict): its tokens, and which of the cheapest, the expected and the dearest run make it. */
interface PlannedCall {
  slot: number;
  round: number;
  input: Range;
  output: Range;
  in: Record<keyof Range, boolean>;
}

const ALWAYS = { low: true, expected: true, high: true };

/** Characters of a prompt that quotes nothing, with its system prompt. */
function overhead(slot: EstimateSlot, panelSize: number, user: string): number {
  return systemPrompt({ slot: slot.slot, provider: slot.provider, strength: slot.strength }, panelSize).length + user.length;
}

/** Every call the plan makes, sized by each slot's output per answer and per final-round answer. */
function plannedCalls(plan: EstimatePlan, outputs: ReadonlyMap<number, { range: Range; final: Range }>): PlannedCall[] {
  const q = plan.question;
  const ctx = plan.context;
  const calls: PlannedCall[] = [];
  const out = (s: EstimateSlot) => outputs.get(s.slot)?.range ?? ZERO;
  const finalOut = (s: EstimateSlot) => outputs.get(s.slot)?.final ?? ZERO;
  const inputOf = (s: EstimateSlot, chars: number, quoted: Range): Range =>
    cap(add(tokensOf(chars), quoted), promptChars(s.provider, s.contextTokens) / CHARS_PER_TOKEN.high);
  const panelSize = plan.slots.length;
  if (plan.mode !== 'deep') {
    for (const s of plan.slots) {
      const input = inputOf(s, overhead(s, panelSize, independentPrompt(q, ctx)), ZERO);
      calls.push({ slot: s.slot, round: 1, input, output: out(s), in: ALWAYS });
    }
    return calls;
  }
  const rounds = plan.rounds ?? 3;
  const adaptive = plan.strategy === 'adaptive';
  // An early stop skips the critique rounds after the first one that holds (never the first or the final round).
  const earliest = plan.earlyStop && rounds > 3 ? 3 : rounds;
  const others = (s: EstimateSlot) => plan.slots.filter((o) => o.slot !== s.slot).reduce((sum, o) => add(sum, out(o)), ZERO);
  for (const s of plan.slots) {
    calls.push({
      slot: s.slot,
      round: 1,
      input: inputOf(s, overhead(s, panelSize, independentPrompt(q, ctx, { positionLine: true })), ZERO),
      output: out(s),
      in: ALWAYS,
    });
    for (let n = 2; n <= rounds; n++) {
      const final = n === rounds;
      const user = final
        ? finalPrompt(q, n, '', [], rounds === 2, ctx, { anonymous: true })
        : critiquePrompt(q, n, '', [], { context: ctx, positionLine: plan.earlyStop === true });
      const input = inputOf(s, overhead(s, panelSize, user), add(out(s), others(s)));
      const output = final ? finalOut(s) : out(s);
      // The cheapest run: round 1 alone (adaptive), or the rounds an early stop keeps.
      const low = !adaptive && (final || n < earliest);
      calls.push({ slot: s.slot, round: n, input, output, in: { low, expected: true, high: true } });
    }
    // The offline stand-in is not asked to rank.
    if (plan.ranking && panelSize > 2 && !s.offline) {
      const input = inputOf(s, overhead(s, panelSize, rankingPrompt(q, 1, [], ctx)), others(s));
      const ballot = (panelSize - 1) * BALLOT_TOKENS_PER_ANSWER;
      calls.push({
        slot: s.slot,
        round: 1,
        input,
        output: { low: ballot, expected: ballot, high: ballot * 2 },
        in: ALWAYS,
      });
    }
  }
  const synth = plan.synthesizer ?? plan.slots[0];
  if (synth) {
    const transcript = plan.slots.reduce((sum, s) => add(sum, scale(out(s), rounds)), ZERO);
    const input = inputOf(synth, overhead(synth, panelSize, synthesisPrompt(q, [], '', ctx)), transcript);
    const output = DEFAULT_VERDICT_TOKENS;
    calls.push({ slot: synth.slot, round: 0, input, output, in: { low: !adaptive, expected: true, high: true } });
    // The repair of a verdict that failed validation: the prompt again, with the first reply.
    const repair = { low: false, expected: false, high: true };
    calls.push({ slot: synth.slot, round: 0, input: add(input, output), output, in: repair });
  }
  return calls;
}

const usageOf = (input: number, output: number): Usage => ({
  inputTokens: Math.round(input),
  outputTokens: Math.round(output),
  totalTokens: Math.round(input) + Math.round(output),
});

/** The estimate of a run's cost, per slot and in total, and whether it fits the budget. */
export function estimateRun(plan: EstimatePlan): Estimate {
  const everyone = [
    ...plan.slots,
    ...(plan.synthesizer && !plan.slots.some((s) => s.slot === plan.synthesizer!.slot) ? [plan.synthesizer] : []),
  ];
  const perAnswer = new Map(everyone.map((s) => [s.slot, outputPerAnswer(s, plan)]));
  const calls = plannedCalls(plan, perAnswer);
  const slots: SlotEstimate[] = everyone.map((s) => {
    const mine = calls.filter((c) => c.slot === s.slot);
    const pick = (c: PlannedCall, bound: keyof Range) => c.in[bound];
    const sum = (bound: keyof Range, of: (c: PlannedCall) => number) =>
      mine.filter((c) => pick(c, bound)).reduce((total, c) => total + of(c), 0);
    const range = (of: (c: PlannedCall, bound: keyof Range) => number): Range => ({
      low: sum('low', (c) => of(c, 'low')),
      expected: sum('expected', (c) => of(c, 'expected')),
      high: sum('high', (c) => of(c, 'high')),
    });
    const cost = (bound: keyof Range) => {
      let usd = 0;
      let priced = true;
      for (const c of mine.filter((x) => pick(x, bound))) {
        const one = costOf(usageOf(c.input[bound], c.output[bound]), s.provider, s.model, s.offline, plan.prices);
        usd += one.usd;
        priced &&= one.priced;
      }
      return { usd, priced };
    };
    const costs = { low: cost('low'), expected: cost('expected'), high: cost('high') };
    return {
      slot: s.slot as SlotEstimate['slot'],
      provider: s.provider,
      model: s.model,
      offline: s.offline,
      calls: range(() => 1),
      inputTokens: rounded(range((c, b) => c.input[b])),
      outputTokens: rounded(range((c, b) => c.output[b])),
      costUsd: rounded({ low: costs.low.usd, expected: costs.expected.usd, high: costs.high.usd }, 6),
      priced: costs.low.priced && costs.expected.priced && costs.high.priced,
      pastAnswers: perAnswer.get(s.slot)!.pastAnswers,
      outputTokensPerAnswer: rounded(perAnswer.get(s.slot)!.range),
    };
  });
  const total = slots.reduce(
    (t, s) => ({
      calls: add(t.calls, s.calls),
      inputTokens: add(t.inputTokens, s.inputTokens),
      outputTokens: add(t.outputTokens, s.outputTokens),
      costUsd: add(t.costUsd, s.costUsd),
      priced: t.priced && s.priced,
    }),
    { calls: ZERO, inputTokens: ZERO, outputTokens: ZERO, costUsd: ZERO, priced: true },
  );
  total.costUsd = rounded(total.costUsd, 6);
  const histories = slots.filter((s) => s.pastAnswers >= MIN_HISTORY).length;
  const note = [
    histories === 0
      ? 'Output tokens are defaults: no model has enough past answers yet.'
      : `Output tokens from the averages of past answers for ${histories} of ${slots.length} slots${histories < slots.length ? ', defaults for the rest' : ''}.`,
    'Input tokens from the prompts at 3–5 characters per token.',
    ...(plan.strategy === 'adaptive' ? ['Low is round 1 alone (the answers agree); high is the whole debate.'] : []),
    ...(total.priced ? [] : ['Some model has no price: its cost reads 0.']),
  ].join(' ');
  const budget = plan.budget ? budgetCheck(plan.budget, total) : undefined;
  return { mode: plan.mode, slots, total, ...(budget && { budget }), note };
}

const dollars = (usd: number) => `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** Whether the estimate fits `budget`: within (even `high` fits), exceeds (even `low` does not), or may exceed. */
export function budgetCheck(budget: Budget, total: Estimate['total']): BudgetCheck {
  const verdicts: BudgetCheck['verdict'][] = [];
  const parts: string[] = [];
  const judge = (low: number, high: number): BudgetCheck['verdict'] =>
    high <= 0 ? 'within' : low > 1 ? 'exceeds' : high > 1 ? 'may_exceed' : 'within';
  if (budget.maxTokens !== undefined) {
    const low = total.inputTokens.low + total.outputTokens.low;
    const high = total.inputTokens.high + total.outputTokens.high;
    const v = judge(low / budget.maxTokens, high / budget.maxTokens);
    verdicts.push(v);
    if (v !== 'within') parts.push(`${Math.round(low)}–${Math.round(high)} tokens against a budget of ${budget.maxTokens}`);
  }
  if (budget.maxCostUsd !== undefined) {
    const v = total.priced
      ? judge(total.costUsd.low / budget.maxCostUsd, total.costUsd.high / budget.maxCostUsd)
      : total.costUsd.low > budget.maxCostUsd
        ? 'exceeds'
        : 'may_exceed';
    verdicts.push(v);
    if (v !== 'within')
      parts.push(
        `${dollars(total.costUsd.low)}–${dollars(total.costUsd.high)}${total.priced ? '' : ' (some model has no price)'} against a budget of ${dollars(budget.maxCostUsd)}`,
      );
  }
  const verdict = verdicts.includes('exceeds') ? 'exceeds' : verdicts.includes('may_exceed') ? 'may_exceed' : 'within';
  const message =
    verdict === 'within'
      ? 'The estimate is within the budget.'
      : `The estimate ${verdict === 'exceeds' ? 'exceeds' : 'may exceed'} the budget (${parts.join('; ')}): the run stops once the budget is spent, with what it has.`;
  return {
    ...(budget.maxTokens !== undefined && { maxTokens: budget.maxTokens }),
    ...(budget.maxCostUsd !== undefined && { maxCostUsd: budget.maxCostUsd }),
    verdict,
    message,
  };
}

/**
 * What stopping after round 1 saved: the rounds after it and the verdict, as the estimate sizes them, with
 * each slot's output per answer taken from its measured round-1 answer.
 */
export function savedAfterRound1(plan: EstimatePlan, measured: ReadonlyMap<number, number>): Saving {
  const outputs = new Map(
    [...measured].map(([slot, tokens]) => {
      const range = { low: tokens, expected: tokens, high: tokens };
      return [slot, { range, final: add(range, FINAL_JSON_TOKENS) }] as const;
    }),
  );
  // The expected run's calls after round 1: the later rounds and the verdict (not its repair, nor the ranking, which ran).
  const skipped = plannedCalls({ ...plan, strategy: 'debate' }, outputs).filter((c) => c.round !== 1 && c.in.expected);
  let tokens = 0;
  let usd = 0;
  let priced = true;
  const bySlot = new Map([...plan.slots, ...(plan.synthesizer ? [plan.synthesizer] : [])].map((s) => [s.slot, s]));
  for (const c of skipped) {
    const s = bySlot.get(c.slot)!;
    const usage = usageOf(c.input.expected, c.output.expected);
    tokens += usage.totalTokens;
    const cost = costOf(usage, s.provider, s.model, s.offline, plan.prices);
    usd += cost.usd;
    priced &&= cost.priced;
  }
  return { calls: skipped.length, tokens, usd: Math.round(usd * 1e6) / 1e6, priced };
}
