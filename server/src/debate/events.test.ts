import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { EventLog, sseMessage } from './events.js';

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
  });
});
