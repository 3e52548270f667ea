/** A minimal reader of `text/event-stream` for tests and benchmarks: one message per blank-line-terminated block. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** Splits a text/event-stream fed in pieces into messages; comments and heartbeats are skipped. */
export class SseParser {
  #buffer = '';

  feed(text: string): SseMessage[] {
    this.#buffer += text;
    const out: SseMessage[] = [];
    let end = this.#buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      end = this.#buffer.indexOf('\n\n');
      const message: SseMessage = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') message.event = value;
        else if (field === 'id') message.id = value;
      }
      if (data.length === 0) continue;
      message.data = data.join('\n');
      out.push(message);
    }
    return out;
  }
}

export async function* readSse(response: Response): AsyncGenerator<SseMessage> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    yield* parser.feed(decoder.decode(chunk, { stream: true }));
  }
}
