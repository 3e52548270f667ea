/** Model prices from `CONSILIUM_PRICES`; the debate engine prices usage with them (`debate/pricing.ts`). */
import { ConfigError } from './slots.js';

export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input read from the provider's prompt cache; by default the provider's usual share of the input price (`debate/pricing.ts`). */
  cacheReadPerMTok?: number;
  /** Input written to the provider's prompt cache; by default likewise. */
  cacheWritePerMTok?: number;
}

const PRICE_FIELDS = ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok'];

/** `provider/model` → price. */
export type PriceTable = Readonly<Record<string, Price>>;

/**
 * Parses `CONSILIUM_PRICES`: `{"openai/gpt-4.1": {"inputPerMTok": 2, "outputPerMTok": 8}, …}`. With `models` (the
 * `provider/model` of every configured slot and the models it offers), a price for anything else is refused: it
 * would never be used, and is a misspelling as a rule.
 */
export function parsePrices(raw: string | undefined, models?: readonly string[]): PriceTable {
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
    const extra = Object.keys(v).filter((k) => !PRICE_FIELDS.includes(k));
    if (extra.length > 0) {
      throw new ConfigError(`CONSILIUM_PRICES["${key}"].${extra[0]} is not a price field (${PRICE_FIELDS.join(', ')})`);
    }
    for (const field of ['cacheReadPerMTok', 'cacheWritePerMTok'] as const) {
      if (v[field] !== undefined && !ok(v[field]))
        throw new ConfigError(`CONSILIUM_PRICES["${key}"].${field} must be a number >= 0`);
    }
    if (models && !models.includes(key)) {
      throw new ConfigError(
        `CONSILIUM_PRICES["${key}"] prices no configured model (the slots' provider/model: ${models.join(', ')})`,
      );
    }
    table[key] = {
      inputPerMTok: v.inputPerMTok!,
      outputPerMTok: v.outputPerMTok!,
      ...(v.cacheReadPerMTok !== undefined && { cacheReadPerMTok: v.cacheReadPerMTok }),
      ...(v.cacheWritePerMTok !== undefined && { cacheWritePerMTok: v.cacheWritePerMTok }),
    };
  }
  return table;
}
