/**
 * `integer` and `limit` (IntegerDef, LimitDef, NumericDef::checkRange): 64-bit signed integers
 * with an optional sign, range checks against min / max / highmax.
 */
import type { ParamInfo, TypeContext, TypeDef } from '../types.js';

/** PHP_INT_MAX / PHP_INT_MIN on 64-bit builds. */
export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

const INTEGER_RE = /^[+-]?\d+$/;

/**
 * Parse an integer the way IntegerDef does: `[+-]?\d+`, no spaces, no hex or exponent, within
 * the 64-bit range. PHP's overflow check compares `ltrim($value, '-0')` with the saturated
 * result, so an explicit `+` on exactly PHP_INT_MAX is rejected too; that quirk is kept.
 */
export function parseInteger(value: string): bigint | undefined {
  if (!INTEGER_RE.test(value)) return undefined;
  const n = BigInt(value);
  if (n > INT64_MAX || n < INT64_MIN) return undefined;
  if ((n === INT64_MAX || n === INT64_MIN) && value.startsWith('+')) return undefined;
  return n;
}

/** A JS number when exactly representable, else the decimal string (int64 beyond 2^53). */
export function integerValue(n: bigint): number | string {
  const asNumber = Number(n);
  return Number.isSafeInteger(asNumber) ? asNumber : n.toString();
}

function toBig(x: unknown): bigint | undefined {
  if (typeof x === 'number' && Number.isFinite(x)) return BigInt(Math.trunc(x));
  if (typeof x === 'bigint') return x;
  if (typeof x === 'string') return parseInteger(x);
  return undefined;
}

const orNull = (n: bigint | undefined): number | string | null => (n === undefined ? null : integerValue(n));

/** Whether out-of-range values clamp (with a warning) rather than fail, for this parameter. */
function ignoresRange(settings: ParamInfo, ctx: TypeContext): boolean {
  const explicit = settings['x-ignoreRange'];
  if (explicit !== undefined) return Boolean(explicit);
  return ctx.policy.clampRange && !settings['x-rangeEnforce'];
}

/** The effective bounds after NumericDef::normalizeSettings (highmax needs max and is at least max). */
export function bounds(settings: ParamInfo): {
  min?: bigint | undefined;
  max?: bigint | undefined;
  highmax?: bigint | undefined;
} {
  const min = toBig(settings.min);
  const max = toBig(settings.max);
  let highmax = max === undefined ? undefined : (toBig(settings.highmax) ?? max);
  if (highmax !== undefined && max !== undefined && highmax < max) highmax = max;
  return { min, max, highmax };
}

/** NumericDef::checkRange: clamp to the range, failing or warning with `outofrange`. */
function checkRange(value: bigint, raw: string, settings: ParamInfo, ctx: TypeContext): bigint {
  const { min, max, highmax } = bounds(settings);
  const high = highmax !== undefined && max !== undefined && highmax > max && ctx.useHighLimits;
  let result = value;
  let err = false;
  if (min !== undefined && value < min) {
    err = true;
    result = min;
  } else if (max !== undefined && value > max) {
    if (high) {
      if (value > highmax!) {
        err = true;
        result = highmax!;
      }
    } else {
      err = true;
      result = max;
    }
  }
  if (err) {
    const curmax = high ? highmax : max;
    const data = { min: orNull(min), curmax: orNull(curmax), max: orNull(max), highmax: orNull(highmax) };
    if (!ignoresRange(settings, ctx)) {
      const range = `${min === undefined ? '−∞' : min} … ${curmax === undefined ? '∞' : curmax}`;
      ctx.fail('outofrange', `Invalid value "${raw}" for parameter "${ctx.param}": must be in ${range}.`, data);
    }
    ctx.warn('outofrange', data);
  }
  return result;
}

function validateInteger(value: string, settings: ParamInfo, ctx: TypeContext): number | string {
  const n = parseInteger(value);
  if (n === undefined) ctx.fail('badinteger', `Invalid value "${value}" for integer parameter "${ctx.param}".`);
  return integerValue(checkRange(n, value, settings, ctx));
}

export const integerDef: TypeDef = {
  validate: validateInteger,
};

export const limitDef: TypeDef = {
  normalizeSettings(settings) {
    return { ...settings, min: settings.min ?? 0, multi: false };
  },
  validate(value, settings, ctx) {
    if (value === 'max') {
      if (!ctx.parseLimit) return 'max';
      const { max, highmax } = bounds(settings);
      const limit = ctx.useHighLimits ? (highmax ?? max ?? INT64_MAX) : (max ?? INT64_MAX);
      return integerValue(limit);
    }
    return validateInteger(value, settings, ctx);
  },
};
