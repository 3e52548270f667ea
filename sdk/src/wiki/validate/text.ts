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

/**
 * Whether `s` has anything but printable ASCII, tab, LF and CR (which never change): a plain loop, as
 * this runs for every string value of every request and a regex call costs more on short values.
 */
function maybeUnclean(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7e || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)) return true;
  }
  return false;
}
/** What UtfNormal replaces with U+FFFD: C0 controls but HT, LF, CR; U+FFFE, U+FFFF; ill-formed UTF-8 (lone surrogates here). */
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function cleanPiece(s: string): string {
  return s.replace(FORBIDDEN, '\uFFFD').normalize('NFC');
}

/**
 * A request value as MediaWiki reads it (WebRequest::normalizeUnicode, UtfNormal\Validator::cleanUp):
 * forbidden characters and invalid sequences become U+FFFD, then NFC. A value that starts with U+001F
 * (multiple values) is cleaned piece by piece, the separators kept (ApiParamValidatorCallbacks::getValue).
 * The same string back when nothing changes; when something does, the API warns `badutf8`.
 */
export function cleanText(s: string): string {
  if (!maybeUnclean(s)) return s;
  const clean = s.charCodeAt(0) === 0x1f ? s.split('\u001f').map(cleanPiece).join('\u001f') : cleanPiece(s);
  return clean === s ? s : clean;
}
