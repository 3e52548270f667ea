/** A minimal reader of `text/event-stream` responses for tests: one message per blank-line-terminated block. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export async function* readSse(response: Response): AsyncGenerator<SseMessage> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const message: SseMessage = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue;
      message.data = data.join('\n');
      yield message;
    }
  }
}
