/**
 * The front of a JSON document cut off at some byte, made into a whole document: what a wiki's answer becomes when
 * only its first bytes are read. A string value cut in its middle (a page's text, almost always: it is what makes an
 * answer long) is closed where the cut fell; anything else unfinished (a key, a number, a value not yet begun) is
 * dropped back to the last complete member; every open object and array is then closed. So the pages read keep
 * their text up to the cut, and their fields before it.
 */

/** `bytes` cut back to the end of its last whole UTF-8 character. */
export function wholeCharacters(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  // Up to three continuation bytes (10xxxxxx) may follow the lead byte of a character cut short.
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
  const lead = end - back - 1;
  if (lead >= 0) {
    const b = bytes[lead]!;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (length > back + 1) end = lead;
  }
  return bytes.subarray(0, end);
}

/** `text`, a JSON document's front, closed into a document `JSON.parse` takes (see above). */
export function closeCutJson(text: string): string {
  let stack = '';
  let inString = false;
  let isKey = false;
  let escaped = false;
  /** Where the last escape began (its backslash). */
  let escapeAt = -1;
  /** Where the document can be cut and closed, and what is open there. */
  let safe = 0;
  let safeStack = '';
  /** Inside an object, whether the next string is a key. */
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') {
        escaped = true;
        escapeAt = i;
      } else if (c === '"') {
        inString = false;
        if (!isKey) {
          safe = i + 1;
          safeStack = stack;
        }
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        isKey = stack.endsWith('{') && expectKey;
        break;
      case '{':
      case '[':
        stack += c;
        expectKey = c === '{';
        safe = i + 1;
        safeStack = stack;
        break;
      case '}':
      case ']':
        stack = stack.slice(0, -1);
        expectKey = false;
        safe = i + 1;
        safeStack = stack;
        break;
      case ':':
        expectKey = false;
        break;
      case ',':
        // What came before the comma was whole (a number or literal ends only here).
        if (!stack.endsWith('{') || !expectKey) {
          safe = i;
          safeStack = stack;
        }
        expectKey = stack.endsWith('{');
        break;
    }
  }
  const close = (open: string) =>
    [...open]
      .reverse()
      .map((b) => (b === '{' ? '}' : ']'))
      .join('');
  if (inString && !isKey) {
    // A value cut in its middle: without an escape cut short (`\` or `\u` with under four digits), closed where it stopped.
    const unfinished = escaped || (text[escapeAt + 1] === 'u' && /^[0-9a-fA-F]{0,3}$/.test(text.slice(escapeAt + 2)));
    return `${unfinished ? text.slice(0, escapeAt) : text}"${close(stack)}`;
  }
  return text.slice(0, safe) + close(safeStack);
}
