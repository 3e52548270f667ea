/**
 * Usage totals and their cost. Prices are USD per million tokens, per `provider/model`, from the
 * configuration (`CONSILIUM_PRICES`, JSON); a model without a price costs 0 and makes the total a
 * lower bound (`priced: false`), never a guess. The offline stand-in asks no model: its cost is known,
 * exactly 0, so an offline answer leaves a total exact. Cache reads and writes are billed at their own
 * rates: the price's `cacheReadPerMTok` / `cacheWritePerMTok` where the operator gave them, else the
 * provider's usual share of its input price (`CACHE_SHARES`); reasoning tokens are output, billed as such.
 */
import type { Cost, Usage } from '../../../sdk/src/generated/types.gen.js';
import type { PriceTable } from '../config/prices.js';

export type { Price, PriceTable } from '../config/prices.js';

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export { addUsage } from '../providers/usage.js';

/**
 * What a cached input token costs as a share of the input price, by provider, from their price pages:
 * Anthropic reads at 10 % and writes (5-minute cache) at 125 %; OpenAI (GPT-4.1), Google (Gemini 2.5)
 * and xAI read at 25 %, DeepSeek at 10 %, writing at the input price. Another provider: the input price.
 */
export const CACHE_SHARES: Readonly<Record<string, { read: number; write: number }>> = {
  anthropic: { read: 0.1, write: 1.25 },
  openai: { read: 0.25, write: 1 },
  google: { read: 0.25, write: 1 },
  xai: { read: 0.25, write: 1 },
  deepseek: { read: 0.1, write: 1 },
};

export function costOf(usage: Usage, provider: string, model: string, offline: boolean, prices: PriceTable): Cost {
  if (offline) return { usd: 0, priced: true };
  const price = prices[`${provider}/${model}`];
  if (!price) return { usd: 0, priced: usage.totalTokens === 0 };
  const share = CACHE_SHARES[provider] ?? { read: 1, write: 1 };
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - read - write);
  const usd =
    (plain * price.inputPerMTok +
      read * (price.cacheReadPerMTok ?? price.inputPerMTok * share.read) +
      write * (price.cacheWritePerMTok ?? price.inputPerMTok * share.write) +
      usage.outputTokens * price.outputPerMTok) /
    1e6;
  return { usd, priced: true };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { usd: a.usd + b.usd, priced: a.priced && b.priced };
}
