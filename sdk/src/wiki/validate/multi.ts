/**
 * How MediaWiki splits and joins multi-valued parameters (`ParamValidator::explodeMultiValue()` /
 * `implodeMultiValue()`): values are separated by `|`, or by U+001F when the whole value starts
 * with U+001F — the escape for values that themselves contain `|`.
 */

/** The alternative separator, and the marker that announces it. */
export const MULTI_SEPARATOR_ALT = '\u001f';

/**
 * Split a raw multi value like PHP's `explode($sep, $value, $limit)`: at most `limit` parts, the
 * last one keeping the rest (a negative limit drops that many parts from the end, 0 acts as 1).
 * Unlike `explode()`, `''` and a lone U+001F give no values at all.
 */
export function explodeMultiValue(raw: string, limit: number): string[] {
  if (raw === '' || raw === MULTI_SEPARATOR_ALT) return [];
  let sep = '|';
  let value = raw;
  if (raw.startsWith(MULTI_SEPARATOR_ALT)) {
    sep = MULTI_SEPARATOR_ALT;
    value = raw.slice(1);
  }
  const parts = value.split(sep);
  if (limit < 0) return parts.slice(0, limit);
  const max = Math.max(1, Math.trunc(limit));
  if (parts.length <= max) return parts;
  return [...parts.slice(0, max - 1), parts.slice(max - 1).join(sep)];
}

/**
 * Join values into one raw multi value: with `|`, or — when any value contains `|` — with U+001F,
 * prefixed by U+001F. `['']` becomes `'|'` (two empty values, which deduplicate to one), as no
 * string means exactly one empty value.
 */
export function implodeMultiValue(values: readonly string[]): string {
  if (values.length === 1 && values[0] === '') return '|';
  if (values.some((v) => v.includes('|'))) return MULTI_SEPARATOR_ALT + values.join(MULTI_SEPARATOR_ALT);
  return values.join('|');
}
