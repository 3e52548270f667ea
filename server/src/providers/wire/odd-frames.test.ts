/** Frames of an unexpected shape: each decoder skips what is not what its format documents, and never throws. */
import type { JSONParseError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { type WireFormat, wireFrames } from './formats.js';
import { count } from './frames.js';

function read(format: WireFormat, frames: unknown[], provider = '') {
  const text: string[] = [];
  const errors: unknown[] = [];
  const reader = wireFrames(format, { text: (d) => text.push(d), error: (e) => errors.push(e) }, provider);
  for (const f of frames) reader.frame('message', typeof f === 'string' ? f : JSON.stringify(f));
  return { text, errors, finish: reader.finish(), reader };
}

describe('Anthropic frames of odd shapes', () => {
  it('text only from text_delta deltas with non-empty string text', () => {
    const r = read('anthropic-messages', [
      { type: 'content_block_delta', delta: 'x' },
      { type: 'content_block_delta', delta: { type: 'thinking_delta', text: 'no' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 5 } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'yes' } },
    ]);
    expect(r.text).toEqual(['yes']);
  });

  it('message_start and message_delta without objects where objects belong change nothing, and never throw', () => {
    const r = read('anthropic-messages', [
      '{not json',
      { type: 'message_start', message: 'x' },
      { type: 'message_start', message: { usage: 'x', stop_reason: 7 } },
      { type: 'message_delta', delta: null, usage: 'x' },
    ]);
    expect(r.errors).toHaveLength(1);
    expect(r.finish).toEqual({ reason: 'other', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, done: false });
    expect('refusal' in r.finish).toBe(false);
  });

  it("message_start's own stop reason counts; message_delta without one is other; counts not given are kept", () => {
    expect(read('anthropic-messages', [{ type: 'message_start', message: { stop_reason: 'max_tokens' } }]).finish.reason).toBe(
      'length',
    );
    const r = read('anthropic-messages', [
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 3 } } },
      { type: 'message_delta', delta: {}, usage: { input_tokens: 6, output_tokens_details: { thinking_tokens: null } } },
      { type: 'message_delta', delta: { stop_details: { explanation: 5 } }, usage: { iterations: [null, 'x'] } },
    ]);
    expect(r.finish).toEqual({ reason: 'other', usage: { inputTokens: 6, outputTokens: 3, totalTokens: 9 }, done: false });
    // Iterations that are not objects are skipped in the sum.
    const summed = read('anthropic-messages', [
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 1, output_tokens: 1, iterations: [null, { input_tokens: 3, output_tokens: 2 }] },
      },
    ]);
    expect(summed.finish.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });
});

describe('Chat Completions frames of odd shapes', () => {
  const chunk = (delta: unknown, finish: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });

  it('a refusal with a length finish stays length; cached tokens equal to the prompt are within it', () => {
    expect(read('chat-completions', [chunk({ refusal: 'no' }), chunk({}, 'length')]).finish.reason).toBe('length');
    const usage = { prompt_tokens: 12, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 12 } };
    expect(read('chat-completions', [{ choices: [], usage }], 'xai').finish.usage).toMatchObject({
      inputTokens: 12,
      cacheReadTokens: 12,
    });
  });

  it('frames without choices, or with a delta that is no object, carry no text', () => {
    const r = read('chat-completions', ['{x', { choices: 'x' }, { choices: [null] }, chunk('text'), chunk({ content: 5 })]);
    expect(r.text).toEqual([]);
    expect(r.errors).toHaveLength(1);
  });
});

describe('Gemini frames of odd shapes', () => {
  const candidate = (c: Record<string, unknown>) => ({ candidates: [{ index: 0, ...c }] });

  it('parts that are no text part are skipped', () => {
    const r = read('gemini-generate-content', [
      candidate({ content: { parts: 'x' } }),
      candidate({ content: { parts: [null, 'x', { text: 5 }, { text: 'ok' }] } }),
    ]);
    expect(r.text).toEqual(['ok']);
  });

  it('a continuation token without a CONTINUATION finish is none; an empty or unspecified block reason is no block', () => {
    const r = read('gemini-generate-content', [candidate({ finishReason: 'STOP', continuationToken: 't' })]);
    expect(r.reader.continuation!()).toBeUndefined();
    expect('refusal' in r.finish).toBe(false);
    for (const blockReason of ['', 'BLOCKED_REASON_UNSPECIFIED', 'BLOCK_REASON_UNSPECIFIED']) {
      const open = read('gemini-generate-content', [
        { promptFeedback: { blockReason } },
        candidate({ content: { parts: [{ text: 'fine' }] } }),
      ]);
      expect(open.text, blockReason).toEqual(['fine']);
      expect(open.finish.done).toBe(false);
    }
  });

  it.each(['IMAGE_SAFETY', 'BLOCKLIST', 'SPII'])('finishReason %s is a content filter', (reason) => {
    expect(read('gemini-generate-content', [candidate({ finishReason: reason })]).finish.reason).toBe('content-filter');
  });

  it('an error frame with a code that is no number takes its status; the body is kept', () => {
    const error = { code: '503', message: 'busy', status: 'UNAVAILABLE' };
    const r = read('gemini-generate-content', [{ error }]);
    expect(r.errors[0]).toMatchObject({ statusCode: 503, url: '', responseBody: JSON.stringify({ error }) });
  });
});

describe('frame helpers', () => {
  it('count takes finite numbers only', () => {
    expect([count(3), count(Number.POSITIVE_INFINITY), count(Number.NaN), count('5'), count(null)]).toEqual([3, 0, 0, 0, 0]);
  });

  it('a frame that is no object is a JSONParseError with its text and a cause that says so', () => {
    const r = read('chat-completions', ['42', '{bad']);
    const [notObject, notJson] = r.errors as JSONParseError[];
    expect(notObject!.text).toBe('42');
    expect((notObject!.cause as Error).message).toBe('A stream frame is not a JSON object');
    expect(notJson!.text).toBe('{bad');
    expect(notJson!.cause).toBeInstanceOf(SyntaxError);
  });
});
