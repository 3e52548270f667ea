import { describe, expect, it } from 'vitest';
import { SseDecoder } from './sse-decoder.js';

const encoder = new TextEncoder();

/** Feeds `chunks` (strings, or byte arrays as given) and returns the events delivered. */
function decode(chunks: (string | Uint8Array)[], end = true): [string, string][] {
  const events: [string, string][] = [];
  const sse = new SseDecoder((event, data) => events.push([event, data]));
  for (const c of chunks) sse.push(typeof c === 'string' ? encoder.encode(c) : c);
  if (end) sse.end();
  return events;
}

/** Every split of `text` into two reads, at each byte. */
function everySplit(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text);
  return Array.from({ length: bytes.length + 1 }, (_, i) => [bytes.subarray(0, i), bytes.subarray(i)]);
}

describe('SseDecoder', () => {
  it('delivers data frames, with the event name when one is given', () => {
    expect(decode(['data: {"a":1}\n\n', 'event: ping\ndata: {"type":"ping"}\n\n'])).toEqual([
      ['message', '{"a":1}'],
      ['ping', '{"type":"ping"}'],
    ]);
  });

  it('gives the same events however the bytes are split, multi-byte characters included', () => {
    const text = 'event: content_block_delta\ndata: {"text":"Zürich — 東京 🚀"}\n\ndata: [DONE]\n\n';
    const whole = decode([text]);
    expect(whole).toEqual([
      ['content_block_delta', '{"text":"Zürich — 東京 🚀"}'],
      ['message', '[DONE]'],
    ]);
    for (const split of everySplit(text)) expect(decode(split)).toEqual(whole);
    // One byte per read: every character split across reads.
    const bytes = encoder.encode(text);
    expect(decode(Array.from(bytes, (b) => new Uint8Array([b])))).toEqual(whole);
  });

  it('accepts CRLF and CR line ends, also when a CRLF is split between reads', () => {
    const crlf = 'data: one\r\n\r\ndata: two\r\n\r\n';
    for (const split of everySplit(crlf))
      expect(decode(split)).toEqual([
        ['message', 'one'],
        ['message', 'two'],
      ]);
    expect(decode(['data: one\r\rdata: two\r\r'])).toEqual([
      ['message', 'one'],
      ['message', 'two'],
    ]);
  });

  it('joins multi-line data with \\n, skips comments, ignores id and retry, keeps a value without the space', () => {
    expect(decode([': keep-alive\n', 'id: 7\nretry: 100\ndata:first\ndata: second\n\n'])).toEqual([['message', 'first\nsecond']]);
  });

  it('delivers nothing for an event without data, and forgets the event name after dispatch', () => {
    expect(decode(['event: ping\n\n', 'data: x\n\n'])).toEqual([['message', 'x']]);
  });

  it('holds an incomplete frame until it completes, and delivers a last frame without its blank line at the end', () => {
    const events: [string, string][] = [];
    const sse = new SseDecoder((event, data) => events.push([event, data]));
    sse.push(encoder.encode('data: {"par'));
    expect(events).toEqual([]);
    sse.push(encoder.encode('t":1}\n'));
    expect(events).toEqual([]);
    sse.push(encoder.encode('\ndata: last'));
    expect(events).toEqual([['message', '{"part":1}']]);
    sse.end();
    expect(events).toEqual([
      ['message', '{"part":1}'],
      ['message', 'last'],
    ]);
  });
});
