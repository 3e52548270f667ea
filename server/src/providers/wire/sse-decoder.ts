/**
 * Server-sent events from raw bytes, pushed as they arrive: one `TextDecoder` in streaming mode (a
 * multi-byte character split across reads is held until its last byte), a line splitter and the
 * `event`/`data` fields. It replaces a provider SDK's chain of web streams (`TextDecoderStream` →
 * `EventSourceParserStream` → a transform per chunk), whose per-frame cost dominated the server's
 * CPU with real HTTP providers (bench/README.md, providers).
 */
export class SseDecoder {
  readonly #decoder = new TextDecoder();
  /** Text after the last complete line. */
  #rest = '';
  /** A `\r` ended the previous read: a `\n` starting the next one belongs to it. */
  #afterCr = false;
  #event = '';
  #data: string | undefined;

  /** `onEvent` gets each event's name (`message` when none was given) and its data lines joined by `\n`. */
  constructor(private readonly onEvent: (event: string, data: string) => void) {}

  push(bytes: Uint8Array): void {
    this.#lines(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The body ended: a last event without its closing blank line is still delivered. */
  end(): void {
    this.#lines(this.#decoder.decode());
    if (this.#rest !== '') {
      const line = this.#rest;
      this.#rest = '';
      this.#line(line);
    }
    this.#dispatch();
  }

  #lines(chunk: string): void {
    let text = chunk;
    if (this.#afterCr) {
      this.#afterCr = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    if (this.#rest !== '') text = this.#rest + text;
    const length = text.length;
    let start = 0;
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(text.slice(start, i));
      if (c === 13) {
        if (i + 1 === length) this.#afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#rest = start === length ? '' : text.slice(start);
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (field === 'event') this.#event = value;
    // `id` and `retry` matter to a reconnecting browser, not to one provider response.
  }

  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    this.#data = undefined;
    this.#event = '';
    if (data !== undefined) this.onEvent(event || 'message', data);
  }
}
