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
