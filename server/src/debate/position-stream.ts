/**
 * The final round asks for JSON, but a reader wants to watch the model's position being written,
 * not braces. This follows the streamed JSON text and yields only the growth of the top-level
 * `"position"` string, decoded, as it arrives.
 */
const KEY = /"position"\s*:\s*"/g;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export class PositionStream {
  #buffer = '';
  /** Where the string's content starts in the buffer, once the key is seen. */
  #start = -1;
  /** How far into the buffer the content is decoded. */
  #read = 0;
  #done = false;

  /** Feeds one fragment of the JSON text; returns the newly decoded part of `position` ('' when none). */
  push(fragment: string): string {
    if (this.#done) return '';
    this.#buffer += fragment;
    if (this.#start < 0) {
      // Only the top level's: a disagreement's nested `position` is not the model's own.
      const match = [...this.#buffer.matchAll(KEY)].find((m) => this.#depthAt(m.index) === 1);
      if (!match) return '';
      this.#start = match.index + match[0].length;
      this.#read = this.#start;
    }
    let out = '';
    let i = this.#read;
    const b = this.#buffer;
    while (i < b.length) {
      const ch = b[i]!;
      if (ch === '"') {
        this.#done = true;
        break;
      }
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      // An escape split across fragments waits for the rest.
      if (i + 1 >= b.length) break;
      const e = b[i + 1]!;
      if (e === 'u') {
        if (i + 6 > b.length) break;
        out += String.fromCharCode(Number.parseInt(b.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        out += ESCAPES[e] ?? e;
        i += 2;
      }
    }
    this.#read = i;
    return out;
  }

  #depthAt(index: number): number {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < index; i++) {
      const ch = this.#buffer[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') depth--;
    }
    return depth;
  }
}
