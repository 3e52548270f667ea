import { JSONParseError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { wireFrames } from './formats.js';

/** Runs `frames` (SSE data strings) through the chat-completions decoder. */
function read(frames: [event: string, data: string][], provider = '') {
  const text: string[] = [];
  const errors: unknown[] = [];
  const reader = wireFrames('chat-completions', { text: (d) => text.push(d), error: (e) => errors.push(e) }, provider);
  for (const [event, data] of frames) reader.frame(event, data);
  return { text, errors, finish: reader.finish() };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk = (usage: Record<string, unknown>) => JSON.stringify({ id: 'c1', choices: [], usage });

describe('Chat Completions frames', () => {
  it('text from delta.content, the finish reason, the usage chunk after it, [DONE]', () => {
    const r = read([
      ['message', chunk({ role: 'assistant', content: '' })],
      ['message', chunk({ content: 'Ship ' })],
      ['message', chunk({ content: 'it.' })],
      ['message', chunk({}, 'stop')],
      ['message', usageChunk({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 })],
      ['message', '[DONE]'],
    ]);
    expect(r).toEqual({
      text: ['Ship ', 'it.'],
      errors: [],
      finish: { reason: 'stop', usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 }, done: true },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['tool_calls', 'other'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s', (wire, reason) => {
    expect(read([['message', chunk({ content: 'x' }, wire)]]).finish.reason).toBe(reason);
  });

  it('a refusal turns stop into content-filter; no finish at all is other with zero usage', () => {
    expect(
      read([
        ['message', chunk({ refusal: 'I cannot help with that.' })],
        ['message', chunk({}, 'stop')],
      ]).finish.reason,
    ).toBe('content-filter');
    expect(read([['message', chunk({ content: 'cut' })]]).finish).toEqual({
      reason: 'other',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      done: false,
    });
  });

  it('done once a finish_reason or [DONE] came; a stream with neither was cut', () => {
    expect(read([['message', chunk({ content: 'x' }, 'stop')]]).finish.done).toBe(true);
    expect(
      read([
        ['message', chunk({ content: 'x' })],
        ['message', '[DONE]'],
      ]).finish,
    ).toMatchObject({ done: true, reason: 'other' });
    expect(
      read([
        ['message', chunk({ content: 'x' })],
        ['message', usageChunk({ prompt_tokens: 1 })],
      ]).finish.done,
    ).toBe(false);
  });

  it('refusal deltas are kept as the refusal, not the answer', () => {
    const r = read([
      ['message', chunk({ refusal: "I can't " })],
      ['message', chunk({ refusal: 'help.' })],
      ['message', chunk({}, 'stop')],
    ]);
    expect(r.text).toEqual([]);
    expect(r.finish).toMatchObject({ reason: 'content-filter', refusal: "I can't help." });
    expect(read([['message', chunk({ content: 'ok', refusal: null })]]).finish.refusal).toBeUndefined();
  });

  it("DeepSeek's cache hits are cache reads; its reasoning is within the completion's count", () => {
    const usage = {
      prompt_tokens: 18,
      completion_tokens: 219,
      total_tokens: 237,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 205 },
      prompt_cache_hit_tokens: 16,
      prompt_cache_miss_tokens: 2,
    };
    expect(read([['message', usageChunk(usage)]], 'deepseek').finish.usage).toEqual({
      inputTokens: 18,
      outputTokens: 219,
      totalTokens: 237,
      cacheReadTokens: 16,
      reasoningTokens: 205,
    });
  });

  it('reasoning deltas are not answer text', () => {
    const r = read([
      ['message', chunk({ reasoning_content: 'thinking…' })],
      ['message', chunk({ content: 'Answer.' })],
    ]);
    expect(r.text).toEqual(['Answer.']);
  });

  it('xAI: reasoning tokens count as output, cached tokens left out of the prompt count as input', () => {
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 20 },
      completion_tokens_details: { reasoning_tokens: 6 },
    };
    expect(read([['message', usageChunk(usage)]], 'xai').finish.usage).toEqual({
      inputTokens: 30,
      outputTokens: 10,
      totalTokens: 40,
      cacheReadTokens: 20,
      reasoningTokens: 6,
    });
    // Others report reasoning inside completion_tokens, cached inside prompt_tokens...
    expect(read([['message', usageChunk({ ...usage, total_tokens: 14 })]], 'openai').finish.usage).toEqual({
      inputTokens: 30,
      outputTokens: 4,
      totalTokens: 34,
      cacheReadTokens: 20,
      reasoningTokens: 6,
    });
    // ...but a compatible server whose total shows reasoning apart (xAI behind an OpenAI-compatible slot) is read so.
    expect(read([['message', usageChunk({ ...usage, total_tokens: 20 })]], 'grok-proxy').finish.usage).toMatchObject({
      outputTokens: 10,
      reasoningTokens: 6,
    });
  });

  it('an error chunk mid-stream goes to the sink as the provider sent it, and the reason becomes error', () => {
    const error = { message: 'The server had an error', type: 'server_error', code: null };
    const r = read([
      ['message', chunk({ content: 'Half' })],
      ['message', JSON.stringify({ error })],
    ]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toEqual([error]);
    expect(r.finish.reason).toBe('error');
  });

  it('a frame that is not JSON, or not an object, is a JSONParseError with the text', () => {
    const r = read([
      ['message', '{"choices": ['],
      ['message', '42'],
    ]);
    expect(r.errors).toHaveLength(2);
    expect(JSONParseError.isInstance(r.errors[0])).toBe(true);
    expect((r.errors[0] as JSONParseError).text).toBe('{"choices": [');
    expect(JSONParseError.isInstance(r.errors[1])).toBe(true);
  });
});
