/** String helpers that reproduce PHP's byte- and code-point-level behaviour on JS (UTF-16) strings. */

/** strlen() of the UTF-8 encoding; a lone surrogate counts as the 3 bytes of U+FFFD it would become. */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** mb_strlen(): code points. */
export function codePointLength(s: string): number {
  let count = 0;
  for (const _ of s) count++;
  return count;
}

/** A string with an unpaired surrogate cannot be UTF-8; PHP would have seen U+FFFD. */
export function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/**
 * Language::ucfirst(): the first character in upper case. Where the upper case is more than one
 * character (`ß` → `SS`) the character stays, as MediaWiki's frozen case tables keep it.
 */
export function ucfirst(s: string): string {
  const first = s.codePointAt(0);
  if (first === undefined) return s;
  const ch = String.fromCodePoint(first);
  const upper = ch.toUpperCase();
  if (codePointLength(upper) !== 1) return s;
  return upper + s.slice(ch.length);
}

/** PHP's strtolower(): ASCII letters only. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}
