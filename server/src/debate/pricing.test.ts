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

describe('cached and reasoning tokens', () => {
  // The recorded Anthropic stream of test/providers/recordings: 6 plain, 6,289 read, 3,337 written, 198 out.
  const cached = {
    inputTokens: 9_632,
    outputTokens: 198,
    totalTokens: 9_830,
    cacheReadTokens: 6_289,
    cacheWriteTokens: 3_337,
  };
  const sonnet = { 'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 } };

  it("price cache reads and writes at the provider's shares of the input price, not as plain input", () => {
    const usd = (6 * 3 + 6_289 * 0.3 + 3_337 * 3.75 + 198 * 15) / 1e6;
    expect(costOf(cached, 'anthropic', 'claude-sonnet-4-5', false, sonnet).usd).toBeCloseTo(usd, 12);
    expect(costOf(cached, 'anthropic', 'claude-sonnet-4-5', false, sonnet).usd).toBeLessThan((9_632 * 3 + 198 * 15) / 1e6);
  });

  it("the operator's cache prices win; a provider without shares pays the input price for cached tokens", () => {
    const own = {
      'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 1, cacheWritePerMTok: 2 },
    };
    expect(costOf(cached, 'anthropic', 'claude-sonnet-4-5', false, own).usd).toBeCloseTo(
      (6 * 3 + 6_289 * 1 + 3_337 * 2 + 198 * 15) / 1e6,
      12,
    );
    const local = { 'local-llm/m': { inputPerMTok: 3, outputPerMTok: 15 } };
    expect(costOf(cached, 'local-llm', 'm', false, local).usd).toBeCloseTo((9_632 * 3 + 198 * 15) / 1e6, 12);
  });

  it('reasoning tokens are output (within outputTokens), billed once; the parts add up in totals', () => {
    const thought = { inputTokens: 12, outputTokens: 342, totalTokens: 354, reasoningTokens: 340 };
    expect(
      costOf(thought, 'xai', 'grok-3-mini', false, { 'xai/grok-3-mini': { inputPerMTok: 0.3, outputPerMTok: 0.5 } }).usd,
    ).toBeCloseTo((12 * 0.3 + 342 * 0.5) / 1e6, 12);
    expect(addUsage(cached, thought)).toEqual({
      inputTokens: 9_644,
      outputTokens: 540,
      totalTokens: 10_184,
      cacheReadTokens: 6_289,
      cacheWriteTokens: 3_337,
      reasoningTokens: 340,
    });
  });
});

describe('totals', () => {
  it('add usage field by field, and costs stay unpriced once any part is', () => {
    expect(addUsage(usage, usage)).toEqual({ inputTokens: 2_000, outputTokens: 1_000, totalTokens: 3_000 });
    expect(addCost({ usd: 1, priced: true }, { usd: 0.5, priced: false })).toEqual({ usd: 1.5, priced: false });
  });
});
