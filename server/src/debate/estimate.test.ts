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

const slot = (n: number, extra: Partial<EstimateSlot> = {}): EstimateSlot => ({
  slot: n,
  provider: `p${n}`,
  model: `m${n}`,
  strength: 'rigour',
  offline: false,
  ...extra,
});
const PRICES = Object.fromEntries([1, 2, 3].map((n) => [`p${n}/m${n}`, { inputPerMTok: 1, outputPerMTok: 4 }]));

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
});
