/**
 * Usage totals and their cost. Prices are USD per million tokens, per `provider/model`, from the
 * configuration (`CONSILIUM_PRICES`, JSON); a model without a price, or the offline one, costs 0
 * and makes the total a lower bound (`priced: false`), never a guess.
 */
import type { Cost, Usage } from '../../../sdk/src/generated/types.gen.js';
import { ConfigError } from '../meta/slots.js';

export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** `provider/model` → price. */
export type PriceTable = Readonly<Record<string, Price>>;

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export function costOf(usage: Usage, provider: string, model: string, offline: boolean, prices: PriceTable): Cost {
  const price = offline ? undefined : prices[`${provider}/${model}`];
  if (!price) return { usd: 0, priced: usage.totalTokens === 0 };
  const usd = (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6;
  return { usd, priced: true };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { usd: a.usd + b.usd, priced: a.priced && b.priced };
}

/** Parses `CONSILIUM_PRICES`: `{"openai/gpt-4.1": {"inputPerMTok": 2, "outputPerMTok": 8}, …}`. */
export function parsePrices(raw: string | undefined): PriceTable {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`CONSILIUM_PRICES is not JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('CONSILIUM_PRICES must be an object of "provider/model": {inputPerMTok, outputPerMTok}');
  }
  const table: Record<string, Price> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const v = value as Partial<Price> | null;
    const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (!/^[^/]+\/.+$/.test(key) || !v || !ok(v.inputPerMTok) || !ok(v.outputPerMTok)) {
      throw new ConfigError(
        `CONSILIUM_PRICES["${key}"] must be {"inputPerMTok": n, "outputPerMTok": n} with n >= 0, keyed "provider/model"`,
      );
    }
    table[key] = { inputPerMTok: v.inputPerMTok!, outputPerMTok: v.outputPerMTok! };
  }
  return table;
}
