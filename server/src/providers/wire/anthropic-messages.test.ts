import { describe, expect, it } from 'vitest';
import { wireFrames } from './formats.js';

/** Runs `frames` (SSE data strings, with the event names Anthropic sends) through the anthropic-messages decoder. */
function read(frames: [event: string, data: string][], provider = '') {
  const text: string[] = [];
  const errors: unknown[] = [];
  const reader = wireFrames('anthropic-messages', { text: (d) => text.push(d), error: (e) => errors.push(e) }, provider);
  for (const [event, data] of frames) reader.frame(event, data);
  return { text, errors, finish: reader.finish() };
}

const anthropic = (value: Record<string, unknown>): [string, string] => [String(value.type), JSON.stringify(value)];
const start = (usage: Record<string, unknown>) =>
  anthropic({ type: 'message_start', message: { id: 'msg_1', role: 'assistant', content: [], stop_reason: null, usage } });
const textDelta = (text: string) => anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

describe('Anthropic Messages frames', () => {
  it('text deltas, the stop reason and output tokens from message_delta, input with cache reads and writes', () => {
    const r = read([
      start({ input_tokens: 20, cache_read_input_tokens: 5, cache_creation_input_tokens: 2, output_tokens: 1 }),
      anthropic({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      anthropic({ type: 'ping' }),
      textDelta('Ship '),
      textDelta('it.'),
      anthropic({ type: 'content_block_stop', index: 0 }),
      anthropic({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
      anthropic({ type: 'message_stop' }),
    ]);
    expect(r).toEqual({
      text: ['Ship ', 'it.'],
      errors: [],
      finish: {
        reason: 'stop',
        usage: { inputTokens: 27, outputTokens: 9, totalTokens: 36, cacheReadTokens: 5, cacheWriteTokens: 2 },
        done: true,
      },
    });
  });

  it.each([
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['refusal', 'content-filter'],
    ['tool_use', 'other'],
  ])('maps stop_reason %s to %s', (wire, reason) => {
    const r = read([
      start({ input_tokens: 1, output_tokens: 1 }),
      anthropic({ type: 'message_delta', delta: { stop_reason: wire }, usage: { output_tokens: 2 } }),
    ]);
    expect(r.finish.reason).toBe(reason);
  });

  it('done only on message_stop: a message_delta with its stop reason is not the end', () => {
    const frames = [
      start({ input_tokens: 4, output_tokens: 1 }),
      textDelta('Hi'),
      anthropic({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
    ];
    expect(read(frames).finish).toMatchObject({ reason: 'stop', done: false, usage: { inputTokens: 4, outputTokens: 2 } });
    expect(read([...frames, anthropic({ type: 'message_stop' })]).finish.done).toBe(true);
  });

  it("a refusal's stop_details explanation is kept; compaction iterations are summed; thinking tokens given apart", () => {
    const refusal = read([
      start({ input_tokens: 18, output_tokens: 1 }),
      anthropic({
        type: 'message_delta',
        delta: { stop_reason: 'refusal', stop_details: { type: 'refusal', explanation: 'Blocked under the policy.' } },
        usage: { output_tokens: 5 },
      }),
      anthropic({ type: 'message_stop' }),
    ]);
    expect(refusal.finish).toMatchObject({ reason: 'content-filter', refusal: 'Blocked under the policy.', done: true });
    const compacted = read([
      start({ input_tokens: 100, output_tokens: 1 }),
      anthropic({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: {
          input_tokens: 7,
          output_tokens: 30,
          cache_read_input_tokens: 0,
          output_tokens_details: { thinking_tokens: 12 },
          iterations: [
            { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 3, type: 'compaction' },
            { input_tokens: 7, output_tokens: 30, cache_read_input_tokens: 4, type: 'message' },
          ],
        },
      }),
    ]);
    expect(compacted.finish.usage).toEqual({
      inputTokens: 114,
      outputTokens: 50,
      totalTokens: 164,
      cacheReadTokens: 7,
      reasoningTokens: 12,
    });
    expect(compacted.finish.refusal).toBeUndefined();
  });

  it('thinking and signature deltas are not answer text', () => {
    const r = read([
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      textDelta('Yes.'),
    ]);
    expect(r.text).toEqual(['Yes.']);
  });

  it('an error event mid-stream goes to the sink as its error object', () => {
    const r = read([
      start({ input_tokens: 3, output_tokens: 1 }),
      textDelta('Half'),
      anthropic({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toEqual([{ type: 'overloaded_error', message: 'Overloaded' }]);
    expect(r.finish.usage.inputTokens).toBe(3);
  });
});
