import { describe, expect, it } from 'vitest';
import {
  budgetCheck,
  DEFAULT_ANSWER_TOKENS,
  type EstimatePlan,
  type EstimateSlot,
  estimateRun,
  MIN_HISTORY,
  savedAfterRound1,
} from './estimate.js';
import { critiquePrompt, finalPrompt, independentPrompt, synthesisPrompt, systemPrompt } from './prompts.js';

const slot = (n: number, extra: Partial<EstimateSlot> = {}): EstimateSlot => ({
  slot: n,
  provider: `p${n}`,
  model: `m${n}`,
  strength: 'rigour',
  offline: false,
  ...extra,
});
const PRICES = Object.fromEntries([1, 2, 3, 9].map((n) => [`p${n}/m${n}`, { inputPerMTok: 1, outputPerMTok: 4 }]));

function plan(extra: Partial<EstimatePlan> = {}): EstimatePlan {
  return {
    mode: 'deep',
    question: 'Should we shard the sessions table by owner?',
    slots: [slot(1), slot(2), slot(3)],
    rounds: 3,
    prices: PRICES,
    history: () => undefined,
    ...extra,
  };
}

describe('estimateRun', () => {
  it('plans the engine’s calls: every round per slot, the verdict, and its repair at most', () => {
    const e = estimateRun(plan());
    expect(e.slots.map((s) => s.calls)).toEqual([
      { low: 4, expected: 4, high: 5 },
      { low: 3, expected: 3, high: 3 },
      { low: 3, expected: 3, high: 3 },
    ]);
    expect(e.total.calls).toEqual({ low: 10, expected: 10, high: 11 });
    expect(e.note).toMatch(/^Output tokens are defaults/);
    for (const s of e.slots) {
      expect(s.inputTokens.low).toBeLessThan(s.inputTokens.expected);
      expect(s.inputTokens.expected).toBeLessThan(s.inputTokens.high);
      expect(s.costUsd.low).toBeLessThan(s.costUsd.high);
      expect(s.outputTokensPerAnswer).toEqual(DEFAULT_ANSWER_TOKENS);
    }
  });

  it('adaptive may stop after round 1; a ranking adds a call per slot; an early stop skips critique rounds', () => {
    expect(estimateRun(plan({ strategy: 'adaptive' })).total.calls).toEqual({ low: 3, expected: 10, high: 11 });
    expect(estimateRun(plan({ ranking: true })).total.calls).toEqual({ low: 13, expected: 13, high: 14 });
    expect(estimateRun(plan({ rounds: 5, earlyStop: true })).total.calls).toEqual({ low: 10, expected: 16, high: 17 });
    // The offline stand-in is not asked to rank.
    expect(estimateRun(plan({ ranking: true, slots: [slot(1), slot(2), slot(3, { offline: true })] })).total.calls.expected).toBe(
      12,
    );
  });

  it('sizes outputs from the model’s past answers once it has enough, finals apart', () => {
    const history = (provider: string, _model: string, kind: 'answer' | 'final') =>
      provider === 'p2'
        ? { answers: MIN_HISTORY, meanOutputTokens: kind === 'final' ? 300 : 100, sdOutputTokens: 10 }
        : undefined;
    const e = estimateRun(plan({ history }));
    const p2 = e.slots.find((s) => s.slot === 2)!;
    expect(p2.pastAnswers).toBe(2 * MIN_HISTORY);
    expect(p2.outputTokensPerAnswer).toEqual({ low: 60, expected: 100, high: 160 });
    // Two answers and one final: 100 + 100 + 300 expected.
    expect(p2.outputTokens.expected).toBe(500);
    expect(e.note).toMatch(/^Output tokens from the averages of past answers for 1 of 3 slots, defaults for the rest\./);
    const few = estimateRun(plan({ history: () => ({ answers: MIN_HISTORY - 1, meanOutputTokens: 5, sdOutputTokens: 0 }) }));
    expect(few.slots[0]!.outputTokensPerAnswer).toEqual(DEFAULT_ANSWER_TOKENS);
  });

  it('caps outputs at maxOutputTokens and a prompt at the slot’s context budget', () => {
    const single = estimateRun(plan({ mode: 'single', slots: [slot(1)], maxOutputTokens: 50 }));
    expect(single.slots[0]!.outputTokens).toEqual({ low: 50, expected: 50, high: 50 });
    expect(single.total.calls).toEqual({ low: 1, expected: 1, high: 1 });
    const huge = 'x'.repeat(2_000_000);
    const bounded = estimateRun(plan({ mode: 'parallel', question: huge, slots: [slot(1, { contextTokens: 10_000 })] }));
    expect(bounded.slots[0]!.inputTokens.high).toBeLessThanOrEqual(10_000);
  });

  it('prices each bound, and says when a model has no price or is the offline stand-in', () => {
    const e = estimateRun(plan({ slots: [slot(1), slot(4)] }));
    expect(e.slots.find((s) => s.slot === 4)).toMatchObject({ priced: false, costUsd: { low: 0, expected: 0, high: 0 } });
    expect(e.total.priced).toBe(false);
    expect(e.note).toContain('Some model has no price');
    const offline = estimateRun(plan({ slots: [slot(1, { offline: true }), slot(2, { offline: true })] }));
    expect(offline.total).toMatchObject({ priced: true, costUsd: { low: 0, expected: 0, high: 0 } });
  });
});

describe('estimateRun, sized', () => {
  const PRICE_IN = 1;
  const PRICE_OUT = 4;
  /** What `bound` of a slot's calls costs at the test's prices, within rounding of each call's tokens. */
  const priceOf = (s: { inputTokens: Record<string, number>; outputTokens: Record<string, number> }, bound: string) =>
    (s.inputTokens[bound]! * PRICE_IN + s.outputTokens[bound]! * PRICE_OUT) / 1e6;

  it('sizes a prompt from its system prompt and question, at 3 to 5 characters per token', () => {
    const e = estimateRun(plan({ mode: 'parallel', slots: [slot(1)] }));
    const chars =
      systemPrompt({ slot: 1, provider: 'p1', strength: 'rigour' }, 1).length + independentPrompt(plan().question).length;
    expect(e.slots[0]!.inputTokens).toEqual({
      low: Math.round(chars / 5),
      expected: Math.round(chars / 4),
      high: Math.round(chars / 3),
    });
    for (const bound of ['low', 'expected', 'high'])
      expect(e.slots[0]!.costUsd[bound as 'low']).toBeCloseTo(priceOf(e.slots[0]!, bound), 7);
  });

  it('sizes each round’s prompt as the engine builds it, before the answers it quotes', () => {
    const q = plan().question;
    const context = 'Earlier: the sessions table has 40 million rows.';
    const sys = (n: number) => systemPrompt({ slot: n, provider: `p${n}`, strength: 'rigour' }, 2).length;
    // The prompts of deep.ts and verdict.ts, own answer and peers not yet quoted; each answer quoted adds its 450 default tokens.
    const expected = (rounds: number, earlyStop: boolean, n: number) => {
      let chars = sys(n) + independentPrompt(q, context, { positionLine: true }).length;
      for (let r = 2; r <= rounds; r++)
        chars +=
          sys(n) +
          (r === rounds
            ? finalPrompt(q, r, '', [], rounds === 2, context, { anonymous: true })
            : critiquePrompt(q, r, '', [], { context, positionLine: earlyStop })
          ).length;
      return Math.round(chars / 4 + (rounds - 1) * 2 * 450);
    };
    for (const [rounds, earlyStop] of [
      [2, false],
      [3, true],
      [3, false],
    ] as const) {
      const e = estimateRun(plan({ slots: [slot(1), slot(2)], synthesizer: slot(9), rounds, earlyStop, context }));
      expect(e.slots[1]!.inputTokens.expected, `${rounds} rounds`).toBe(expected(rounds, earlyStop, 2));
      const verdict = sys(9) + synthesisPrompt(q, [], '', context).length;
      expect(e.slots[2]!.inputTokens.expected).toBe(Math.round(verdict / 4 + rounds * 2 * 450));
    }
  });

  it('prices each bound from the calls that bound makes', () => {
    const e = estimateRun(plan());
    for (const s of e.slots)
      for (const bound of ['low', 'expected', 'high'])
        expect(Math.abs(s.costUsd[bound as 'low'] - priceOf(s, bound))).toBeLessThan(s.calls.high * 3e-6);
  });

  it('quotes each answer once in every later prompt: larger answers from one slot grow the others’ prompts by as much', () => {
    const sized = (mean: number) =>
      estimateRun(
        plan({
          slots: [slot(1), slot(2)],
          synthesizer: slot(9),
          rounds: 2,
          history: (provider, _model, kind) =>
            provider === 'p2' && kind === 'answer'
              ? { answers: MIN_HISTORY, meanOutputTokens: mean, sdOutputTokens: 0 }
              : undefined,
        }),
      );
    const small = sized(100);
    const large = sized(200);
    const grew = (n: number) =>
      large.slots.find((s) => s.slot === n)!.inputTokens.expected - small.slots.find((s) => s.slot === n)!.inputTokens.expected;
    // Round 2 quotes slot 2's round-1 answer; the verdict quotes it in both rounds.
    expect(grew(1)).toBeCloseTo(100, -1);
    expect(grew(2)).toBeCloseTo(100, -1);
    expect(grew(9)).toBeCloseTo(200, -1);
  });

  it('counts a synthesizer outside the panel: its verdict and the repair at most, quoting every round', () => {
    const three = estimateRun(plan({ synthesizer: slot(9) }));
    expect(three.slots.map((s) => s.slot)).toEqual([1, 2, 3, 9]);
    expect(three.slots[3]!.calls).toEqual({ low: 1, expected: 1, high: 2 });
    expect(three.slots[0]!.calls).toEqual({ low: 3, expected: 3, high: 3 });
    const two = estimateRun(plan({ synthesizer: slot(9), rounds: 2 }));
    // One round fewer: three answers of 450 tokens fewer in the transcript.
    expect(three.slots[3]!.inputTokens.expected - two.slots[3]!.inputTokens.expected).toBeCloseTo(3 * 450, -1);
    expect(estimateRun(plan({ slots: [] })).total.calls).toEqual({ low: 0, expected: 0, high: 0 });
  });

  it('keeps every critique round in the cheapest run without an early stop', () => {
    expect(estimateRun(plan({ rounds: 4 })).total.calls).toEqual({ low: 13, expected: 13, high: 14 });
  });

  it('ranks with three slots or more, each ballot 30 tokens per other answer', () => {
    const two = plan({ slots: [slot(1), slot(2)] });
    expect(estimateRun({ ...two, ranking: true }).total).toEqual(estimateRun(two).total);
    const ranked = estimateRun(plan({ ranking: true })).slots[1]!.outputTokens;
    const plain = estimateRun(plan()).slots[1]!.outputTokens;
    expect({ low: ranked.low - plain.low, expected: ranked.expected - plain.expected, high: ranked.high - plain.high }).toEqual({
      low: 60,
      expected: 60,
      high: 120,
    });
  });

  it('widens a history’s range to two standard deviations, and sizes finals from their own history only once it has enough', () => {
    const wide = estimateRun(plan({ history: () => ({ answers: MIN_HISTORY, meanOutputTokens: 100, sdOutputTokens: 40 }) }));
    expect(wide.slots[0]!.outputTokensPerAnswer).toEqual({ low: 20, expected: 100, high: 180 });
    const stats = { answer: { answers: MIN_HISTORY, meanOutputTokens: 100, sdOutputTokens: 0 } };
    const fewFinals = { ...stats, final: { answers: MIN_HISTORY - 1, meanOutputTokens: 300, sdOutputTokens: 0 } };
    const e = estimateRun(plan({ history: (_p, _m, kind) => fewFinals[kind] }));
    // Round 1, a critique and a final: 100 + 100 + (100 + the final's 150 of JSON).
    expect(e.slots[1]!.outputTokens.expected).toBe(450);
    expect(e.slots[1]!.pastAnswers).toBe(2 * MIN_HISTORY - 1);
    expect(estimateRun(plan({ history: (_p, _m, kind) => (kind === 'answer' ? stats.answer : undefined) })).note).toBe(
      'Output tokens from the averages of past answers for 3 of 3 slots. Input tokens from the prompts at 3–5 characters per token.',
    );
  });

  it('says what its figures rest on, and checks the budget only when given one', () => {
    expect(estimateRun(plan()).note).toBe(
      'Output tokens are defaults: no model has enough past answers yet. Input tokens from the prompts at 3–5 characters per token.',
    );
    expect(estimateRun(plan({ strategy: 'adaptive', slots: [slot(4)] })).note).toBe(
      'Output tokens are defaults: no model has enough past answers yet. Input tokens from the prompts at 3–5 characters per token. Low is round 1 alone (the answers agree); high is the whole debate. Some model has no price: its cost reads 0.',
    );
    expect(Object.keys(estimateRun(plan()))).not.toContain('budget');
    expect(estimateRun(plan({ budget: { maxTokens: 1 } })).budget).toMatchObject({ maxTokens: 1, verdict: 'exceeds' });
  });
});

describe('budgetCheck', () => {
  const total = {
    calls: { low: 1, expected: 1, high: 1 },
    inputTokens: { low: 100, expected: 200, high: 300 },
    outputTokens: { low: 100, expected: 200, high: 300 },
    costUsd: { low: 0.01, expected: 0.02, high: 0.04 },
    priced: true,
  };
  it('is within when even high fits, exceeds when even low does not, and may exceed between', () => {
    expect(budgetCheck({ maxCostUsd: 0.05 }, total)).toMatchObject({
      verdict: 'within',
      message: 'The estimate is within the budget.',
    });
    expect(budgetCheck({ maxCostUsd: 0.03 }, total)).toMatchObject({ verdict: 'may_exceed' });
    expect(budgetCheck({ maxCostUsd: 0.005 }, total).message).toBe(
      'The estimate exceeds the budget ($0.01–$0.04 against a budget of $0.0050): the run stops once the budget is spent, with what it has.',
    );
    expect(budgetCheck({ maxTokens: 300 }, total)).toMatchObject({ verdict: 'may_exceed', maxTokens: 300 });
    expect(budgetCheck({ maxTokens: 150, maxCostUsd: 1 }, total).verdict).toBe('exceeds');
    expect(budgetCheck({ maxCostUsd: 1 }, { ...total, priced: false }).verdict).toBe('may_exceed');
  });

  it('is within at exactly the budget, and exceeds only past it', () => {
    // Tokens: 200 low, 600 high.
    expect(budgetCheck({ maxTokens: 600 }, total).verdict).toBe('within');
    expect(budgetCheck({ maxTokens: 200 }, total).verdict).toBe('may_exceed');
    const zero = { ...total, inputTokens: { low: 0, expected: 0, high: 0 }, outputTokens: { low: 0, expected: 0, high: 0 } };
    expect(budgetCheck({ maxTokens: 10 }, zero).verdict).toBe('within');
  });

  it('names each bound it may exceed, and only those, with the budget it was given', () => {
    expect(budgetCheck({ maxTokens: 1000 }, total)).toStrictEqual({
      maxTokens: 1000,
      verdict: 'within',
      message: 'The estimate is within the budget.',
    });
    expect(budgetCheck({ maxTokens: 300 }, total)).toStrictEqual({
      maxTokens: 300,
      verdict: 'may_exceed',
      message:
        'The estimate may exceed the budget (200–600 tokens against a budget of 300): the run stops once the budget is spent, with what it has.',
    });
    expect(budgetCheck({ maxTokens: 150, maxCostUsd: 1 }, total).message).toBe(
      'The estimate exceeds the budget (200–600 tokens against a budget of 150): the run stops once the budget is spent, with what it has.',
    );
    expect(budgetCheck({ maxTokens: 150, maxCostUsd: 0.005 }, total)).toStrictEqual({
      maxTokens: 150,
      maxCostUsd: 0.005,
      verdict: 'exceeds',
      message:
        'The estimate exceeds the budget (200–600 tokens against a budget of 150; $0.01–$0.04 against a budget of $0.0050): the run stops once the budget is spent, with what it has.',
    });
  });

  it('cannot say an unpriced run is within a cost budget, unless even its priced part exceeds it', () => {
    const unpriced = { ...total, priced: false };
    expect(budgetCheck({ maxCostUsd: 1 }, unpriced).message).toBe(
      'The estimate may exceed the budget ($0.01–$0.04 (some model has no price) against a budget of $1.00): the run stops once the budget is spent, with what it has.',
    );
    expect(budgetCheck({ maxCostUsd: 0.01 }, unpriced).verdict).toBe('may_exceed');
    expect(budgetCheck({ maxCostUsd: 0.001 }, unpriced).verdict).toBe('exceeds');
    // A token budget alone says nothing of prices.
    expect(budgetCheck({ maxTokens: 1000 }, unpriced).verdict).toBe('within');
  });
});

describe('savedAfterRound1', () => {
  it('is the expected rounds after round 1 and the verdict, sized by round 1’s measured answers', () => {
    const saved = savedAfterRound1(
      plan(),
      new Map([
        [1, 100],
        [2, 100],
        [3, 100],
      ]),
    );
    // Two more rounds of three answers, and the verdict.
    expect(saved.calls).toBe(7);
    expect(saved.priced).toBe(true);
    const longer = savedAfterRound1(
      plan(),
      new Map([
        [1, 1000],
        [2, 1000],
        [3, 1000],
      ]),
    );
    expect(longer.tokens).toBeGreaterThan(saved.tokens + 3000);
    expect(longer.usd).toBeGreaterThan(saved.usd);
  });

  it('prices the tokens it counts; a synthesizer outside the panel and an unpriced model count too', () => {
    const one = savedAfterRound1(plan({ slots: [slot(1)], synthesizer: slot(9) }), new Map([[1, 100]]));
    // A critique (100), the final (100 + 150 of JSON) and the verdict (700).
    const output = 100 + 250 + 700;
    const input = one.usd * 1e6 - 4 * output;
    expect(one.calls).toBe(3);
    expect(one.tokens).toBeCloseTo(input + output, 3);
    expect(input).toBeGreaterThan(0);
    expect(
      savedAfterRound1(
        plan({ slots: [slot(1), slot(4)] }),
        new Map([
          [1, 100],
          [4, 100],
        ]),
      ).priced,
    ).toBe(false);
  });
});
