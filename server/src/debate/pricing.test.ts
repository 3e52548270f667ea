import { describe, expect, it } from 'vitest';
import { addCost, addUsage, costOf } from './pricing.js';

const usage = { inputTokens: 1_000, outputTokens: 500, totalTokens: 1_500 };
const prices = { 'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 } };

describe('costOf', () => {
  it('prices input and output per million tokens', () => {
    expect(costOf(usage, 'openai', 'gpt-4.1', false, prices)).toEqual({ usd: 0.002 + 0.004, priced: true });
  });

  it('is an honest lower bound without a price; the offline stand-in costs exactly 0', () => {
    expect(costOf(usage, 'openai', 'gpt-5', false, prices)).toEqual({ usd: 0, priced: false });
    expect(costOf(usage, 'openai', 'gpt-4.1', true, prices)).toEqual({ usd: 0, priced: true });
    expect(costOf(usage, 'openai', 'gpt-5', true, prices)).toEqual({ usd: 0, priced: true });
    // Nothing used: nothing unpriced.
    expect(costOf({ inputTokens: 0, outputTokens: 0, totalTokens: 0 }, 'x', 'y', false, {})).toEqual({ usd: 0, priced: true });
  });
});

describe('totals', () => {
  it('add usage field by field, and costs stay unpriced once any part is', () => {
    expect(addUsage(usage, usage)).toEqual({ inputTokens: 2_000, outputTokens: 1_000, totalTokens: 3_000 });
    expect(addCost({ usd: 1, priced: true }, { usd: 0.5, priced: false })).toEqual({ usd: 1.5, priced: false });
  });
});
