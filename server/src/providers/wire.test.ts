import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError, JSONParseError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { claimStream, releaseStream, StreamHandedOver, takeStreams, type WireFormat, wireFrames } from './wire.js';

/** Runs `frames` (SSE data strings, event names as Anthropic sends them) through a reader. */
function read(format: WireFormat, frames: [event: string, data: string][], provider = '') {
  const text: string[] = [];
  const errors: unknown[] = [];
  const reader = wireFrames(format, { text: (d) => text.push(d), error: (e) => errors.push(e) }, provider);
  for (const [event, data] of frames) reader.frame(event, data);
  return { text, errors, finish: reader.finish() };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk = (usage: Record<string, unknown>) => JSON.stringify({ id: 'c1', choices: [], usage });

describe('Chat Completions frames', () => {
  it('text from delta.content, the finish reason, the usage chunk after it, [DONE]', () => {
    const r = read('chat-completions', [
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
      finish: { reason: 'stop', usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 } },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['tool_calls', 'other'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s', (wire, reason) => {
    expect(read('chat-completions', [['message', chunk({ content: 'x' }, wire)]]).finish.reason).toBe(reason);
  });

  it('a refusal turns stop into content-filter; no finish at all is other with zero usage', () => {
    expect(
      read('chat-completions', [
        ['message', chunk({ refusal: 'I cannot help with that.' })],
        ['message', chunk({}, 'stop')],
      ]).finish.reason,
    ).toBe('content-filter');
    expect(read('chat-completions', [['message', chunk({ content: 'cut' })]]).finish).toEqual({
      reason: 'other',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
  });

  it('reasoning deltas are not answer text', () => {
    const r = read('chat-completions', [
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
    expect(read('chat-completions', [['message', usageChunk(usage)]], 'xai').finish.usage).toEqual({
      inputTokens: 30,
      outputTokens: 10,
      totalTokens: 40,
    });
    // Others report reasoning inside completion_tokens, cached inside prompt_tokens.
    expect(read('chat-completions', [['message', usageChunk(usage)]], 'openai').finish.usage).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 14,
    });
  });

  it('an error chunk mid-stream goes to the sink as the provider sent it, and the reason becomes error', () => {
    const error = { message: 'The server had an error', type: 'server_error', code: null };
    const r = read('chat-completions', [
      ['message', chunk({ content: 'Half' })],
      ['message', JSON.stringify({ error })],
    ]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toEqual([error]);
    expect(r.finish.reason).toBe('error');
  });

  it('a frame that is not JSON, or not an object, is a JSONParseError with the text', () => {
    const r = read('chat-completions', [
      ['message', '{"choices": ['],
      ['message', '42'],
    ]);
    expect(r.errors).toHaveLength(2);
    expect(JSONParseError.isInstance(r.errors[0])).toBe(true);
    expect((r.errors[0] as JSONParseError).text).toBe('{"choices": [');
    expect(JSONParseError.isInstance(r.errors[1])).toBe(true);
  });
});

const anthropic = (value: Record<string, unknown>): [string, string] => [String(value.type), JSON.stringify(value)];
const start = (usage: Record<string, unknown>) =>
  anthropic({ type: 'message_start', message: { id: 'msg_1', role: 'assistant', content: [], stop_reason: null, usage } });
const textDelta = (text: string) => anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

describe('Anthropic Messages frames', () => {
  it('text deltas, the stop reason and output tokens from message_delta, input with cache reads and writes', () => {
    const r = read('anthropic-messages', [
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
      finish: { reason: 'stop', usage: { inputTokens: 27, outputTokens: 9, totalTokens: 36 } },
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
    const r = read('anthropic-messages', [
      start({ input_tokens: 1, output_tokens: 1 }),
      anthropic({ type: 'message_delta', delta: { stop_reason: wire }, usage: { output_tokens: 2 } }),
    ]);
    expect(r.finish.reason).toBe(reason);
  });

  it('thinking and signature deltas are not answer text', () => {
    const r = read('anthropic-messages', [
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      textDelta('Yes.'),
    ]);
    expect(r.text).toEqual(['Yes.']);
  });

  it('an error event mid-stream goes to the sink as its error object', () => {
    const r = read('anthropic-messages', [
      start({ input_tokens: 3, output_tokens: 1 }),
      textDelta('Half'),
      anthropic({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toEqual([{ type: 'overloaded_error', message: 'Overloaded' }]);
    expect(r.finish.usage.inputTokens).toBe(3);
  });
});

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
    const r = read('gemini-generate-content', [
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
      finish: { reason: 'stop', usage: { inputTokens: 9, outputTokens: 8, totalTokens: 17 } },
    });
  });

  it('several parts in one frame, empty ones skipped (a thought signature alone)', () => {
    const r = read('gemini-generate-content', [
      gemini(candidate([{ text: 'A' }, { text: '', thoughtSignature: 'c2ln' }, { text: 'B' }])),
    ]);
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
    expect(read('gemini-generate-content', [gemini(candidate([{ text: 'x' }], wire))]).finish.reason).toBe(reason);
  });

  it('a blocked prompt is a content filter, and nothing after it is text', () => {
    const r = read('gemini-generate-content', [
      gemini({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } }),
      gemini(candidate([{ text: 'late' }], 'STOP')),
    ]);
    expect(r).toEqual({
      text: [],
      errors: [],
      finish: { reason: 'content-filter', usage: { inputTokens: 7, outputTokens: 0, totalTokens: 7 } },
    });
    // Unspecified is no block.
    const open = read('gemini-generate-content', [
      gemini({ promptFeedback: { blockReason: 'BLOCK_REASON_UNSPECIFIED' } }),
      gemini(candidate([{ text: 'fine' }], 'STOP')),
    ]);
    expect(open.text).toEqual(['fine']);
    expect(open.finish.reason).toBe('stop');
  });

  it('an error frame mid-stream is an APICallError with the status its code or status names; no finish at all is other', () => {
    const error = { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' };
    const r = read('gemini-generate-content', [gemini(candidate([{ text: 'Half' }])), ['message', JSON.stringify({ error })]]);
    expect(r.text).toEqual(['Half']);
    expect(r.errors).toHaveLength(1);
    const streamed = r.errors[0] as APICallError;
    expect(APICallError.isInstance(streamed)).toBe(true);
    expect(streamed).toMatchObject({ message: 'The model is overloaded.', statusCode: 503, isRetryable: true, data: error });
    expect(r.finish.reason).toBe('error');
    const exhausted = read('gemini-generate-content', [
      ['message', JSON.stringify({ error: { message: 'Quota', status: 'RESOURCE_EXHAUSTED' } })],
    ]);
    expect(exhausted.errors[0]).toMatchObject({ statusCode: 429 });
    const odd = read('gemini-generate-content', [['message', JSON.stringify({ error: 'broken' })]]);
    expect(odd.errors[0]).toMatchObject({ message: '"broken"', statusCode: undefined });
    expect(read('gemini-generate-content', [gemini(candidate([{ text: 'cut' }]))]).finish).toEqual({
      reason: 'other',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
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
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 1, totalTokenCount: 15 },
      }),
    ]);
    expect(reader.finish().reason).toBe('length');
    expect(reader.continuation!()).toBe('tok-1');
    expect(reader.continuation!()).toBeUndefined();
    feed([
      gemini({
        ...candidate([{ text: ' two.' }], 'STOP'),
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, totalTokenCount: 15 },
      }),
    ]);
    expect(reader.continuation!()).toBeUndefined();
    expect(reader.finish()).toEqual({ reason: 'stop', usage: { inputTokens: 22, outputTokens: 8, totalTokens: 30 } });
    // Without a token there is nothing to go on with: the answer ends there, as length.
    const cut = read('gemini-generate-content', [gemini(candidate([{ text: 'x' }], 'CONTINUATION'))]);
    expect(cut.finish.reason).toBe('length');
  });

  it('a frame that is not JSON is a JSONParseError; frames without candidates or parts carry no text', () => {
    const r = read('gemini-generate-content', [
      ['message', '{"candidates": ['],
      gemini({ candidates: [] }),
      gemini({ candidates: [{ index: 0, finishReason: 'STOP' }] }),
    ]);
    expect(r.text).toEqual([]);
    expect(JSONParseError.isInstance(r.errors[0])).toBe(true);
    expect(r.finish.reason).toBe('stop');
  });
});

describe('takeStreams', () => {
  const sse = (status = 200, type = 'text/event-stream') =>
    new Response('data: [DONE]\n\n', { status, headers: { 'content-type': type, 'x-request-id': 'req_1' } });

  it('hands a claimed event stream to the claim and gives the SDK the status and headers with an empty body', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    const fetched = await takeStreams(async () => sse())('http://p/v1/chat/completions', {
      method: 'POST',
      body: '{"stream":true}',
      signal: controller.signal,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('x-request-id')).toBe('req_1');
    expect(await fetched.text()).toBe('');
    const read = await claim.body!.read();
    expect(new TextDecoder().decode(read.value)).toBe('data: [DONE]\n\n');
    expect(claim.headers?.['x-request-id']).toBe('req_1');
    releaseStream(controller.signal);
  });

  it('leaves unclaimed requests, HTTP errors, JSON bodies and requests with tools to the SDK', async () => {
    const controller = new AbortController();
    const unclaimed = await takeStreams(async () => sse())('http://p', { signal: controller.signal });
    expect(await unclaimed.text()).toBe('data: [DONE]\n\n');

    for (const [response, body] of [
      [sse(500), '{}'],
      [sse(200, 'application/json'), '{}'],
      [sse(), '{"tools":[],"tool_choice":{"type":"tool","name":"json"}}'],
      // Anthropic without a tool choice, and Gemini's function declarations.
      [sse(), '{"model":"m","tools":[{"name":"f","input_schema":{}}]}'],
      [sse(), '{"contents":[],"tools":[{"functionDeclarations":[{"name":"f"}]}]}'],
    ] as const) {
      const claim = claimStream(controller.signal);
      const fetched = await takeStreams(async () => response)('http://p', { method: 'POST', body, signal: controller.signal });
      expect(claim.body).toBeUndefined();
      expect(await fetched.text()).toBe('data: [DONE]\n\n');
    }
    releaseStream(controller.signal);
    const released = await takeStreams(async () => sse())('http://p', { signal: controller.signal });
    expect(await released.text()).toBe('data: [DONE]\n\n');
  });

  it('passes network errors through, for the SDK to wrap', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const controller = new AbortController();
    claimStream(controller.signal);
    await expect(
      takeStreams(async () => {
        throw refused;
      })('http://p', { signal: controller.signal }),
    ).rejects.toBe(refused);
    expect(APICallError.isInstance(refused)).toBe(false);
  });

  it('a capture claim records the request instead of sending it, and answers with an empty event stream', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    claim.capture = {};
    const sent: string[] = [];
    const fetched = await takeStreams(async (input) => {
      sent.push(String(input));
      return sse();
    })('http://p/v1/messages', { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{"a":1}', signal: controller.signal });
    expect(sent).toEqual([]);
    expect(claim.capture.request).toEqual({
      url: 'http://p/v1/messages',
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: '{"a":1}',
    });
    expect(fetched.headers.get('content-type')).toBe('text/event-stream');
    expect(await fetched.text()).toBe('');
    releaseStream(controller.signal);
  });

  it('a replay claim answers the next request with what an earlier one got, once, without sending it', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    let sent = 0;
    const fetch = takeStreams(async () => {
      sent++;
      return sse();
    });
    const earlier = new Response('{"error":{}}', { status: 429 });
    claim.replay = { response: earlier };
    expect(await fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal })).toBe(earlier);
    const refused = new Error('connect ECONNREFUSED');
    claim.replay = { error: refused };
    await expect(fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal })).rejects.toBe(refused);
    expect(sent).toBe(0);
    await fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal });
    expect(sent).toBe(1);
    releaseStream(controller.signal);
  });

  it('over node:http, aborting the signal mid-stream closes the connection; a signal aborted before sends nothing', async () => {
    let requests = 0;
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => {
      closed = r;
    });
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n');
      res.on('close', closed);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    try {
      const controller = new AbortController();
      const claim = claimStream(controller.signal, true);
      await expect(takeStreams()(url, { method: 'POST', body: '{}', signal: controller.signal })).rejects.toBeInstanceOf(
        StreamHandedOver,
      );
      expect((await claim.body!.read()).done).toBe(false);
      const next = claim.body!.read();
      controller.abort();
      // Nothing cancels the body here: the abort alone ends the request.
      await expect(next).rejects.toMatchObject({ code: 'ECONNRESET' });
      await serverSawClose;
      releaseStream(controller.signal);

      const early = new AbortController();
      early.abort();
      claimStream(early.signal, true);
      await expect(takeStreams()(url, { method: 'POST', body: '{}', signal: early.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(requests).toBe(1);
      releaseStream(early.signal);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
