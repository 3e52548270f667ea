/**
 * The final round and the verdict ask for JSON, but a reader wants to watch the text being
 * written, not braces. `FieldStream` follows the streamed JSON text and yields the growth of chosen
 * top-level string fields (`"position"`; the verdict's `"summary"` and `"answer"`), decoded, as it
 * arrives. It scans each character once, so a long reply costs linear time.
 */
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export interface FieldDelta<K extends string> {
  field: K;
  delta: string;
}

export class FieldStream<K extends string> {
  readonly #fields: ReadonlySet<string>;
  #buffer = '';
  /** How far the buffer is scanned. */
  #at = 0;
  #depth = 0;
  /** Inside a string that is not streamed (a key, or another value). */
  #inString = false;
  #stringStart = 0;
  /** The last top-level string seen, while it may still turn out to be a key. */
  #candidate: string | undefined;
  /** The key whose `:` was seen, waiting for its value. */
  #key: string | undefined;
  /** The field whose string value is being streamed. */
  #streaming: K | undefined;

  constructor(fields: readonly K[]) {
    this.#fields = new Set(fields);
  }

  /** Feeds one fragment of the JSON text; returns what the streamed fields grew by, in order. */
  push(fragment: string): FieldDelta<K>[] {
    this.#buffer += fragment;
    const out: FieldDelta<K>[] = [];
    const b = this.#buffer;
    let i = this.#at;
    while (i < b.length) {
      const ch = b[i]!;
      if (this.#streaming !== undefined) {
        let text = '';
        while (i < b.length) {
          const c = b[i]!;
          if (c === '"') break;
          if (c !== '\\') {
            text += c;
            i++;
            continue;
          }
          // An escape split across fragments waits for the rest.
          if (i + 1 >= b.length) break;
          const e = b[i + 1]!;
          if (e === 'u') {
            if (i + 6 > b.length) break;
            text += String.fromCharCode(Number.parseInt(b.slice(i + 2, i + 6), 16));
            i += 6;
          } else {
            text += ESCAPES[e] ?? e;
            i += 2;
          }
        }
        if (text) {
          const last = out.at(-1);
          if (last?.field === this.#streaming) last.delta += text;
          else out.push({ field: this.#streaming, delta: text });
        }
        if (b[i] === '"') {
          this.#streaming = undefined;
          i++;
          continue;
        }
        break;
      }
      if (this.#inString) {
        if (ch === '\\') {
          if (i + 1 >= b.length) break;
          i += 2;
          continue;
        }
        if (ch === '"') {
          this.#inString = false;
          if (this.#depth === 1) this.#candidate = b.slice(this.#stringStart, i);
        }
        i++;
        continue;
      }
      if (ch === '"') {
        // A key (and a candidate) exists only at depth 1: a bracket clears both.
        const key = this.#key;
        this.#key = undefined;
        if (key !== undefined && this.#fields.has(key)) {
          this.#streaming = key as K;
          i++;
          continue;
        }
        this.#inString = true;
        this.#stringStart = i + 1;
      } else if (ch === ':') {
        if (this.#candidate !== undefined) this.#key = this.#candidate;
        this.#candidate = undefined;
      } else if (ch === '{' || ch === '[') {
        this.#depth++;
        this.#candidate = undefined;
        this.#key = undefined;
      } else if (ch === '}' || ch === ']') {
        this.#depth--;
        this.#candidate = undefined;
        this.#key = undefined;
      } else if (ch !== ' ' && ch !== '\n' && ch !== '\r' && ch !== '\t') {
        // A number, literal or comma: whatever key came before has its value.
        this.#candidate = undefined;
        this.#key = undefined;
      }
      i++;
    }
    // Keep only what is still needed: an unfinished escape, or the string that may become a key.
    const keep = this.#inString ? Math.min(i, this.#stringStart) : i;
    this.#buffer = b.slice(keep);
    this.#stringStart -= keep;
    this.#at = i - keep;
    return out;
  }
}

/** The final round's `"position"`, as one growing string. */
export class PositionStream {
  readonly #fields = new FieldStream(['position']);

  /** Feeds one fragment of the JSON text; returns the newly decoded part of `position` ('' when none). */
  push(fragment: string): string {
    // One field: a push's growth of it comes as one delta.
    return this.#fields.push(fragment)[0]?.delta ?? '';
  }
}
