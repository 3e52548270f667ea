import type { FieldError } from '../../../sdk/src/generated/types.gen.js';

/** A UTF-16 surrogate without its other half: UTF-8 cannot encode it, so storage would turn it into U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored as sent, or undefined if it can. NUL is refused too: PostgreSQL `text` cannot
 * hold it at all, SQLite's C API ends a string at it, and no question or answer needs it.
 */
export function unstorableText(text: string): string | undefined {
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) {
    const code = surrogate[0].charCodeAt(0).toString(16).toUpperCase();
    return `Contains a lone surrogate (U+${code}) at index ${surrogate.index}, which cannot be stored as UTF-8.`;
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) return `Contains a NUL character (U+0000) at index ${nul}, which cannot be stored.`;
  return undefined;
}

/** One `invalid_text` field error per string in `value` (validated request data) that cannot be stored as sent. */
export function unstorableFields(value: unknown, location: string): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'string') {
      const message = unstorableText(v);
      if (message) errors.push({ path, message, code: 'invalid_text' });
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, `${path}.${i}`);
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) walk(item, `${path}.${key}`);
    }
  };
  walk(value, location);
  return errors;
}
