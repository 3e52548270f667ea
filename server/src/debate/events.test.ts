import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { EventLog, eventJson, sseMessage } from './events.js';

describe('EventLog', () => {
  it('stamps the envelope: v 1, the session, seq from 1, ts from the clock', () => {
    let t = Date.UTC(2026, 10, 22, 10, 0, 0);
    const log = new EventLog('ses_x', { now: () => t++, retain: true });
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    const second = log.emit({ type: 'answer.delta', round: 1, slot: 1, delta: 'a' });
    expect(second).toEqual({
      v: 1,
      sessionId: 'ses_x',
      seq: 2,
      ts: '2026-11-22T10:00:00.001Z',
      type: 'answer.delta',
      round: 1,
      slot: 1,
      delta: 'a',
    });
    expect(log.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(log.lastSeq).toBe(2);
  });

  it('hands each event to listeners at once; a failing listener stops neither the log nor the others', () => {
    const log = new EventLog('ses_x');
    const got: number[] = [];
    log.subscribe(() => {
      throw new Error('closed stream');
    });
    const stop = log.subscribe((e) => got.push(e.seq));
    log.emit({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true });
    stop();
    log.emit({ type: 'round.ended', round: 2, missingSlots: [], quorumMet: true });
    expect(got).toEqual([1]);
    // Not retained unless asked: a long debate's deltas would otherwise stay in memory.
    expect(log.events).toEqual([]);
  });
});

describe('deltas', () => {
  // Quotes, backslashes, control characters, line and paragraph separators, lone surrogates, astral characters.
  const hostile = [
    '',
    'plain',
    '"quoted" \\ back',
    '\u0000\u0001\u001f\u007f',
    'a\nb\r\n\t',
    '\u2028\u2029',
    '\ud800 lone',
    'end \udc00',
    '東京 🚀',
  ];

  it('a delta’s JSON, written around the text, is JSON.stringify of the event, key for key', () => {
    const log = new EventLog('ses_"odd\\id', { now: () => Date.UTC(2026, 10, 24, 5, 0, 0, 7) });
    for (const delta of hostile) {
      const answer = log.answerDelta(3, 5, delta);
      expect(eventJson(answer)).toBe(JSON.stringify(answer));
      expect(JSON.parse(eventJson(answer))).toEqual({ ...answer });
      for (const field of ['summary', 'answer'] as const) {
        const verdict = log.verdictDelta(1, 2, field, delta);
        expect(eventJson(verdict)).toBe(JSON.stringify(verdict));
      }
    }
  });

  it('emit of a delta body takes the same path: the same event, the same JSON, the envelope in order', () => {
    const log = new EventLog('ses_x', { now: () => 0 });
    const answer = log.emit({ type: 'answer.delta', round: 2, slot: 4, delta: 'x' });
    const verdict = log.emit({ type: 'verdict.delta', slot: 1, attempt: 2, field: 'answer', delta: 'y' });
    expect(Object.keys(answer)).toEqual(['v', 'sessionId', 'seq', 'ts', 'type', 'round', 'slot', 'delta']);
    expect(Object.keys(verdict)).toEqual(['v', 'sessionId', 'seq', 'ts', 'type', 'slot', 'attempt', 'field', 'delta']);
    expect(eventJson(answer)).toBe(
      '{"v":1,"sessionId":"ses_x","seq":1,"ts":"1970-01-01T00:00:00.000Z","type":"answer.delta","round":2,"slot":4,"delta":"x"}',
    );
    expect(eventJson(verdict)).toBe(JSON.stringify(verdict));
  });

  it('deltas and other events share one seq count, and each event reads the clock', () => {
    const times = [1000, 1000, 1001, 1000];
    const log = new EventLog('ses_x', { now: () => times.shift()! });
    const a = log.answerDelta(1, 1, 'a');
    const b = log.emit({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true });
    const c = log.verdictDelta(1, 1, 'summary', 'c');
    const d = log.answerDelta(1, 2, 'd');
    expect([a, b, c, d].map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect([a, b, c, d].map((e) => e.ts)).toEqual([
      '1970-01-01T00:00:01.000Z',
      '1970-01-01T00:00:01.000Z',
      '1970-01-01T00:00:01.001Z',
      '1970-01-01T00:00:01.000Z',
    ]);
  });
});

describe('sseMessage', () => {
  it("is byte for byte what Hono's writeSSE writes for the event, line breaks in the text included", async () => {
    const log = new EventLog('ses_x', { now: () => 0 });
    const event = log.emit({ type: 'answer.delta', round: 1, slot: 2, delta: 'line one\nline two\r\n\u2028end' });
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const sse = new SSEStreamingApi(writable, readable);
    const read = new Response(sse.responseReadable).text();
    await sse.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
    await sse.close();
    expect(sseMessage(event)).toBe(await read);
    expect(sseMessage(event)).toBe(sseMessage(event));
    const other = log.emit({ type: 'round.ended', round: 1, missingSlots: [2], quorumMet: true });
    expect(sseMessage(other)).toBe(`event: round.ended\ndata: ${JSON.stringify(other)}\nid: 2\n\n`);
  });
});
