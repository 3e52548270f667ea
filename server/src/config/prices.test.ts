import { describe, expect, it } from 'vitest';
import { parsePrices } from './prices.js';
import { ConfigError } from './slots.js';

describe('parsePrices', () => {
  it('takes cache read and write prices beside input and output; without them none is set', () => {
    const table = parsePrices(
      JSON.stringify({
        'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
        'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
      }),
    );
    expect(table).toEqual({
      'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
      'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
    });
  });

  it('refuses a cache price that is not a number >= 0, and any other field', () => {
    const bad = (price: object) => () =>
      parsePrices(JSON.stringify({ 'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, ...price } }));
    expect(bad({ cacheReadPerMTok: -1 })).toThrow(/cacheReadPerMTok must be a number >= 0/);
    expect(bad({ cacheWritePerMTok: '1' })).toThrow(ConfigError);
    expect(bad({ reasoningPerMTok: 1 })).toThrow(/reasoningPerMTok is not a price field/);
  });
});
