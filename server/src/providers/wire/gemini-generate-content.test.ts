import { APICallError, JSONParseError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { wireFrames } from './formats.js';

/** Runs `frames` (SSE data strings) through the gemini-generate-content decoder. */
function read(frames: [event: string, data: string][], provider = '') {
  const text: string[] = [];
  const errors: unknown[] = [];
  const reader = wireFrames('gemini-generate-content', { text: (d) => text.push(d), error: (e) => errors.push(e) }, provider);
  for (const [event, data] of frames) reader.frame(event, data);
  return { text, errors, finish: reader.finish() };
}

/** One Gemini `GenerateContentResponse` frame of `streamGenerateContent?alt=sse`, as Google sends it. */
const gemini = (value: Record<string, unknown>): [string, string] => [
  'message',
  JSON.stringify({ ...value, modelVersion: 'gemini-2.5-flash', responseId: 'resp-1' }),
];
const candidate = (parts: Record<string, unknown>[], finishReason?: string) => ({
  candidates: [{ content: { parts, role: 'model' }, index: 0, ...(finishReason && { finishReason }) }],
});

describe('Gemini streamGenerateContent frames', () => {
  it('text parts, the finish reason, and the last usage: thoughts count as output', () => {
    const r = read([
      gemini({ ...candidate([{ text: 'Ship ' }]), usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } }),
      gemini({ ...candidate([{ text: 'the thinking', thought: true }]) }),
      gemini({
        ...candidate([{ text: 'it.' }], 'STOP'),
        usageMetadata: {
          promptTokenCount: 9,
          candidatesTokenCount: 3,
          thoughtsTokenCount: 5,
          cachedContentTokenCount: 4,
          totalTokenCount: 17,
        },
      }),
    ]);
    expect(r).toEqual({
      text: ['Ship ', 'it.'],
      errors: [],
      finish: {
        reason: 'stop',
        usage: { inputTokens: 9, outputTokens: 8, totalTokens: 17, cacheReadTokens: 4, reasoningTokens: 5 },
        done: true,
      },
    });
  });

  it('several parts in one frame, empty ones skipped (a thought signature alone)', () => {
    const r = read([gemini(candidate([{ text: 'A' }, { text: '', thoughtSignature: 'c2ln' }, { text: 'B' }]))]);
    expect(r.text).toEqual(['A', 'B']);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['CONTINUATION', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['FINISH_REASON_UNSPECIFIED', 'other'],
    ['SOMETHING_NEW', 'other'],
  ])('maps finishReason %s to %s', (wire, reason) => {
    const finish = read([gemini(candidate([{ text: 'x' }], wire))]).finish;
    expect(finish).toMatchObject({ reason, done: true });
    // A filtered answer says which filter stopped it.
    if (reason === 'content-filter') expect(finish.refusal).toBe(`The answer was stopped (${wire})`);
    else expect(finish.refusal).toBeUndefined();
  });

  it('a blocked prompt is a content filter, and nothing after it is text', () => {
    const r = read([
      gemini({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } }),
      gemini(candidate([{ text: 'late' }], 'STOP')),
    ]);
    expect(r).toEqual({
      text: [],
      errors: [],
      finish: {
        reason: 'content-filter',
        usage: { inputTokens: 7, outputTokens: 0, totalTokens: 7 },
        done: true,
        refusal: 'The prompt was blocked (SAFETY)',
      },
    });
    // Unspecified is no block.
    const open = read([
      gemini({ promptFeedback: { blockReason: 'BLOCK_REASON_UNSPECIFIED' } }),
      gemini(candidate([{ text: 'fine' }], 'STOP')),
    ]);
    expect(open.text).toEqual(['fine']);
    expect(open.finish.reason).toBe('stop');
  });

  it('an error frame mid-stream is an APICallError with the status its code or status names; no finish at all is other', () => {
    const error = { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' };
    const r = read([gemini(candidate([{ text: 'Half' }])), ['message', JSON.stringify({ error })]]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toHaveLength(1);
    const streamed = r.errors[0] as APICallError;
    expect(APICallError.isInstance(streamed)).toBe(true);
    expect(streamed).toMatchObject({ message: 'The model is overloaded.', statusCode: 503, isRetryable: true, data: error });
    expect(r.finish.reason).toBe('error');
    const exhausted = read([['message', JSON.stringify({ error: { message: 'Quota', status: 'RESOURCE_EXHAUSTED' } })]]);
    expect(exhausted.errors[0]).toMatchObject({ statusCode: 429 });
    const odd = read([['message', JSON.stringify({ error: 'broken' })]]);
    expect(odd.errors[0]).toMatchObject({ message: '"broken"', statusCode: undefined });
    expect(read([gemini(candidate([{ text: 'cut' }]))]).finish).toEqual({
      reason: 'other',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      done: false,
    });
  });

  it('a CONTINUATION with its token: the token is taken once, and the counts of both requests add up', () => {
    const reader = wireFrames('gemini-generate-content', { text: () => {}, error: () => {} });
    const feed = (frames: [string, string][]) => {
      for (const [event, data] of frames) reader.frame(event, data);
    };
    feed([
      gemini(candidate([{ text: 'Long ' }])),
      gemini({
        candidates: [
          {
            content: { parts: [{ text: 'part' }], role: 'model' },
            index: 0,
            finishReason: 'CONTINUATION',
            continuationToken: 'tok-1',
          },
        ],
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: 4,
          thoughtsTokenCount: 1,
          cachedContentTokenCount: 3,
          totalTokenCount: 15,
        },
      }),
    ]);
    expect(reader.finish()).toMatchObject({ reason: 'length', done: false });
    expect(reader.continuation!()).toBe('tok-1');
    expect(reader.continuation!()).toBeUndefined();
    feed([
      gemini({
        ...candidate([{ text: ' two.' }], 'STOP'),
        usageMetadata: {
          promptTokenCount: 12,
          candidatesTokenCount: 3,
          thoughtsTokenCount: 2,
          cachedContentTokenCount: 5,
          totalTokenCount: 17,
        },
      }),
    ]);
    expect(reader.continuation!()).toBeUndefined();
    expect(reader.finish()).toEqual({
      reason: 'stop',
      usage: { inputTokens: 22, outputTokens: 10, totalTokens: 32, cacheReadTokens: 8, reasoningTokens: 3 },
      done: true,
    });
    // Without a token there is nothing to go on with: the answer ends there, as length.
    const cut = read([gemini(candidate([{ text: 'x' }], 'CONTINUATION'))]);
    expect(cut.finish).toMatchObject({ reason: 'length', done: true });
  });

  it('a frame that is not JSON is a JSONParseError; frames without candidates or parts carry no text', () => {
    const r = read([
      ['message', '{"candidates": ['],
      gemini({ candidates: [] }),
      gemini({ candidates: [{ index: 0, finishReason: 'STOP' }] }),
    ]);
    expect(r.text).toEqual([]);
    expect(JSONParseError.isInstance(r.errors[0])).toBe(true);
    expect(r.finish.reason).toBe('stop');
  });
});
