/**
 * Usage totals and their cost. Prices are USD per million tokens, per `provider/model`, from the
 * configuration (`CONSILIUM_PRICES`, JSON); a model without a price costs 0 and makes the total a
 * lower bound (`priced: false`), never a guess. The offline stand-in asks no model: its cost is known,
 * exactly 0, so an offline answer leaves a total exact.
 */
import type { Cost, Usage } from '../../../sdk/src/generated/types.gen.js';
import type { PriceTable } from '../config/prices.js';

export type { Price, PriceTable } from '../config/prices.js';

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export function costOf(usage: Usage, provider: string, model: string, offline: boolean, prices: PriceTable): Cost {
  if (offline) return { usd: 0, priced: true };
  const price = prices[`${provider}/${model}`];
  if (!price) return { usd: 0, priced: usage.totalTokens === 0 };
  const usd = (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6;
  return { usd, priced: true };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { usd: a.usd + b.usd, priced: a.priced && b.priced };
}
