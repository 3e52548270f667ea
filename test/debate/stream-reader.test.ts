/**
 * The direct stream reader (`server/src/providers/wire/`, `transport.ts`) at the wire: a loopback HTTP server sends
 * each provider's SSE bytes cut at awkward places — frames split across writes, multi-byte UTF-8
 * split between two writes, CRLF split — and `streamAnswer` must give the same deltas, text,
 * usage, finish reason and errors as when each frame arrives whole.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { zConsensus } from '../../server/src/generated/schemas/zod.gen.js';
import { type AnswerResult, streamAnswer } from '../../server/src/providers/call.js';
import { createSlotModel, type ProviderLanguageModel } from '../../server/src/providers/models.js';

/** What the next request gets: the response's byte pieces, each written and flushed on its own. */
let respond: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
let server: Server;
let base: string;
const bodies: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (c: string) => {
      raw += c;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(raw) as Record<string, unknown>);
      void respond(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const tick = () => new Promise((r) => setTimeout(r, 2));

/** Streams `pieces` (byte arrays) as separate writes with a pause between them, then ends. */
function streamPieces(pieces: Uint8Array[], headers: Record<string, string> = {}) {
  return async (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_wire_1', ...headers });
    for (const p of pieces) {
      res.write(p);
      await tick();
    }
    res.end();
  };
}

/** `text`'s UTF-8 bytes cut every `size` bytes (so characters and frames split wherever they fall). */
function cut(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

const data = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
const event = (name: string, v: unknown) => `event: ${name}\ndata: ${JSON.stringify(v)}\n\n`;
const DELTAS = ['Zürich ', 'oder ', '東京? ', 'Beide 🚀.'];

function chatStream(deltas: string[], opts: { eol?: string; tail?: string[] } = {}): string {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local' };
  const frames = [
    data({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...deltas.map((content) => data({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    ...(opts.tail ?? [
      data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      data({ ...base, choices: [], usage: { prompt_tokens: 21, completion_tokens: 8, total_tokens: 29 } }),
      'data: [DONE]\n\n',
    ]),
  ].join('');
  return opts.eol ? frames.replaceAll('\n', opts.eol) : frames;
}

function anthropicStream(deltas: string[], tail?: string[]): string {
  return [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 17, cache_read_input_tokens: 3, output_tokens: 1 },
      },
    }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', { type: 'ping' }),
    ...deltas.map((text) =>
      event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
    ),
    ...(tail ?? [
      event('content_block_stop', { type: 'content_block_stop', index: 0 }),
      event('message_delta', { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 11 } }),
      event('message_stop', { type: 'message_stop' }),
    ]),
  ].join('');
}

/** Gemini `streamGenerateContent?alt=sse` as Google sends it: `data:` frames ended by CRLF CRLF, usage on every frame. */
function geminiStream(deltas: string[], tail?: string[]): string {
  const frame = (v: unknown) => `data: ${JSON.stringify(v)}\r\n\r\n`;
  const meta = { modelVersion: 'gemini-2.5-flash', responseId: 'resp-wire' };
  return [
    ...deltas.map((text, i) =>
      frame({
        candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
        usageMetadata: { promptTokenCount: 14, totalTokenCount: 14 + i },
        ...meta,
      }),
    ),
    ...(tail ?? [
      frame({
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 14, candidatesTokenCount: 9, thoughtsTokenCount: 4, totalTokenCount: 27 },
        ...meta,
      }),
    ]),
  ].join('');
}

function googleModel() {
  const env = { GOOGLE_GENERATIVE_AI_API_KEY: 'g-wire', CONSILIUM_SLOT4_BASE_URL: `${base}/v1beta` };
  return createSlotModel(slotsFromEnv(env)[3]!, env);
}

function compatibleModel() {
  const env = { CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: `${base}/v1`, CONSILIUM_SLOT5_API_KEY: 'k' };
  return createSlotModel(slotsFromEnv(env)[4]!, env);
}
function anthropicModel() {
  const env = { ANTHROPIC_API_KEY: 'sk-ant-wire', CONSILIUM_SLOT1_BASE_URL: `${base}/v1` };
  return createSlotModel(slotsFromEnv(env)[0]!, env);
}

/**
 * How many requests the slot's SDK has built from now on (one SDK model each): two per call shape
 * (its template, from two kinds of placeholders: `request-template.ts`), and one more for each
 * answer that was not an event stream.
 */
function sdkBuilds(model: ReturnType<typeof compatibleModel>) {
  return vi.spyOn(model.languageModel as ProviderLanguageModel, 'withFetch');
}

async function ask(model: ReturnType<typeof compatibleModel>, extra: { output?: typeof zConsensus } = {}) {
  const deltas: string[] = [];
  const result = (await streamAnswer({
    model,
    prompt: 'Which city?',
    timeoutMs: 10_000,
    maxRetries: 0,
    onDelta: (d) => deltas.push(d),
    ...extra,
  })) as AnswerResult<unknown>;
  return { ...result, deltas };
}

describe('Chat Completions read from the wire', () => {
  it.each([1, 2, 3, 7, 64, 100_000])('the same answer with the bytes cut every %i bytes', async (size) => {
    respond = streamPieces(cut(chatStream(DELTAS), size));
    const r = await ask(compatibleModel());
    expect(r.deltas.join('')).toBe(DELTAS.join(''));
    expect(r).toMatchObject({
      text: DELTAS.join(''),
      finishReason: 'stop',
      usage: { inputTokens: 21, outputTokens: 8, totalTokens: 29 },
      attempts: 1,
    });
    expect(r.error).toBeUndefined();
  });

  it('CRLF line ends, cut between the CR and the LF', async () => {
    respond = streamPieces(cut(chatStream(DELTAS, { eol: '\r\n' }), 5));
    const r = await ask(compatibleModel());
    expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', usage: { inputTokens: 21 } });
  });

  /** Answers with `text` cut after `at` characters, the rest held until `release()`; collects the call's deltas. */
  function streamHeld(text: string, at: number) {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    respond = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(text.slice(0, at));
      await held;
      res.end(text.slice(at));
    };
    const deltas: string[] = [];
    const pending = streamAnswer({
      model: compatibleModel(),
      prompt: 'Which city?',
      timeoutMs: 10_000,
      onDelta: (d) => deltas.push(d),
    });
    return { deltas, pending, release };
  }

  it('each delta goes to onDelta as its frame completes, before the rest of the body arrives', async () => {
    const text = chatStream(DELTAS);
    const { deltas, pending, release } = streamHeld(text, text.indexOf(DELTAS[0]!) + 40);
    await expect.poll(() => deltas).toEqual([DELTAS[0]]);
    release();
    expect((await pending).text).toBe(DELTAS.join(''));
  });

  it('frames that arrive in one read are one delta; frames read apart stay apart', async () => {
    const text = chatStream(DELTAS);
    // The first two text frames in one write, the rest (text frames, finish, usage, [DONE]) in another.
    const { deltas, pending, release } = streamHeld(text, text.indexOf(DELTAS[2]!) - 40);
    // Delivered at once, without waiting for more bytes.
    await expect.poll(() => deltas).toEqual([DELTAS[0]! + DELTAS[1]!]);
    release();
    const r = await pending;
    expect(deltas).toEqual([DELTAS[0]! + DELTAS[1]!, DELTAS.slice(2).join('')]);
    expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', usage: { inputTokens: 21 } });
  });

  it('an error chunk mid-stream ends the answer with it, the text so far and the response request id', async () => {
    const tail = [data({ error: { message: 'The model crashed', type: 'server_error', code: null } })];
    respond = streamPieces(cut(chatStream(DELTAS.slice(0, 2), { tail }), 9));
    const r = await ask(compatibleModel());
    expect(r).toMatchObject({
      text: DELTAS.slice(0, 2).join(''),
      finishReason: 'error',
      error: { code: 'upstream_error', message: 'The model crashed', providerRequestId: 'req_wire_1' },
    });
  });

  it('a frame that is not JSON is an upstream error, not a crash', async () => {
    respond = streamPieces([new TextEncoder().encode(`${chatStream(['Half'], { tail: ['data: {"choices": [\n\n'] })}`)]);
    const r = await ask(compatibleModel());
    expect(r).toMatchObject({ text: 'Half', finishReason: 'error', error: { code: 'upstream_error' } });
    expect(r.error?.message).toMatch(/JSON/);
  });

  it('a body cut mid-frame by a dropped connection is connection_reset with the text so far', async () => {
    const text = chatStream(DELTAS);
    respond = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(text.slice(0, text.indexOf(DELTAS[2]!) - 20));
      await tick();
      res.socket?.destroy();
    };
    const r = await ask(compatibleModel());
    expect(r).toMatchObject({ text: DELTAS.slice(0, 2).join(''), finishReason: 'error', error: { code: 'connection_reset' } });
  });

  it('structured output: JSON split across deltas and bytes is parsed and validated', async () => {
    const consensus = { round: 2, agreements: [{ statement: 'Beide — 東京 und Zürich.', slots: [1, 2] }], disagreements: [] };
    const json = JSON.stringify(consensus);
    respond = streamPieces(cut(chatStream([json.slice(0, 13), json.slice(13, 50), json.slice(50)]), 4));
    const r = await ask(compatibleModel(), { output: zConsensus });
    expect(r.error).toBeUndefined();
    expect(r.object).toEqual(consensus);
    expect(JSON.stringify(bodies.at(-1))).toContain('agreements');
  });
});

describe('Anthropic Messages read from the wire', () => {
  it.each([1, 5, 33, 100_000])('the same answer with the bytes cut every %i bytes', async (size) => {
    respond = streamPieces(cut(anthropicStream(DELTAS), size));
    const r = await ask(anthropicModel());
    expect(r.deltas.join('')).toBe(DELTAS.join(''));
    expect(r).toMatchObject({
      text: DELTAS.join(''),
      finishReason: 'length',
      usage: { inputTokens: 20, outputTokens: 11, totalTokens: 31 },
    });
    expect(bodies.at(-1)).toMatchObject({ stream: true, model: 'claude-sonnet-4-5' });
  });

  it('an error event mid-stream (overloaded_error) ends the answer: upstream_error, retryable, request id', async () => {
    const tail = [event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })];
    respond = streamPieces(cut(anthropicStream(DELTAS.slice(0, 1), tail), 11));
    const r = await ask(anthropicModel());
    expect(r).toMatchObject({
      text: DELTAS[0],
      finishReason: 'error',
      error: { code: 'upstream_error', message: 'Overloaded', retryable: true, providerRequestId: 'req_wire_1' },
    });
  });

  it('an HTTP error is still the SDK’s APICallError: status, message, request id', async () => {
    respond = async (_req, res) => {
      res.writeHead(529, { 'content-type': 'application/json', 'request-id': 'req_ant_9' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    };
    const r = await ask(anthropicModel());
    expect(r.error).toMatchObject({ code: 'upstream_error', status: 529, retryable: true, providerRequestId: 'req_ant_9' });
  });
});

describe('Gemini streamGenerateContent read from the wire', () => {
  it.each([1, 4, 13, 100_000])('the same answer with the bytes cut every %i bytes (CRLF frames)', async (size) => {
    respond = streamPieces(cut(geminiStream(DELTAS), size));
    const r = await ask(googleModel());
    // One read (the whole body in one piece) is one delta.
    expect(r.deltas).toEqual(size === 100_000 ? [DELTAS.join('')] : expect.any(Array));
    expect(r.deltas.join('')).toBe(DELTAS.join(''));
    expect(r).toMatchObject({
      text: DELTAS.join(''),
      finishReason: 'stop',
      usage: { inputTokens: 14, outputTokens: 13, totalTokens: 27 },
      attempts: 1,
    });
    expect(bodies.at(-1)).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Which city?' }] }] });
  });

  it('every call is sent from the template (node:http) and answers the same; a streamed error keeps the text and request id', async () => {
    const model = googleModel();
    const builds = sdkBuilds(model);
    for (let i = 0; i < 2; i++) {
      respond = streamPieces(cut(geminiStream(DELTAS), 9), { 'x-goog-request-id': 'g-req' });
      expect(await ask(model)).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', usage: { outputTokens: 13 } });
      expect(builds).toHaveBeenCalledTimes(2);
    }
    const tail = [`data: ${JSON.stringify({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } })}\r\n\r\n`];
    respond = streamPieces(cut(geminiStream(DELTAS.slice(0, 1), tail), 5));
    expect(await ask(model)).toMatchObject({
      text: DELTAS[0],
      finishReason: 'error',
      error: { code: 'upstream_error', status: 503, retryable: true, providerRequestId: 'req_wire_1' },
    });
  });

  it('structured output: JSON split across parts is parsed and validated', async () => {
    const json = JSON.stringify({ round: 3, agreements: [{ statement: 'Zürich 🚀', slots: [1, 2] }], disagreements: [] });
    const pieces = [json.slice(0, 17), json.slice(17, 40), json.slice(40)];
    respond = streamPieces(cut(geminiStream(pieces), 11));
    const r = await ask(googleModel(), { output: zConsensus });
    expect(r.object).toEqual(JSON.parse(json));
    expect(bodies.at(-1)).toMatchObject({ generationConfig: { responseMimeType: 'application/json' } });
  });

  it('an HTTP error is still the SDK’s APICallError: status, message', async () => {
    respond = async (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }));
    };
    expect((await ask(googleModel())).error).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  /** A first response that stops with CONTINUATION and `token`, then `second` for the request that goes on. */
  function continued(second: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
    const first = `data: ${JSON.stringify({
      candidates: [
        {
          content: { parts: [{ text: 'Zürich ' }], role: 'model' },
          index: 0,
          finishReason: 'CONTINUATION',
          continuationToken: 'tok-7',
        },
      ],
      usageMetadata: { promptTokenCount: 14, candidatesTokenCount: 2, totalTokenCount: 16 },
    })}\r\n\r\n`;
    let calls = 0;
    respond = (req, res) => (calls++ === 0 ? streamPieces(cut(first, 10))(req, res) : second(req, res));
  }

  it('a CONTINUATION is followed by a second request with its token, the same request each time', async () => {
    const model = googleModel();
    const builds = sdkBuilds(model);
    for (let i = 0; i < 2; i++) {
      const sent = bodies.length;
      continued(streamPieces(cut(geminiStream(DELTAS.slice(1)), 7)));
      const r = await ask(model);
      expect(r).toMatchObject({
        text: `Zürich ${DELTAS.slice(1).join('')}`,
        finishReason: 'stop',
        usage: { inputTokens: 28, outputTokens: 15, totalTokens: 43 },
        attempts: 1,
      });
      expect(r.deltas).toEqual(['Zürich ', ...DELTAS.slice(1)]);
      // The same request again, with the token: the question, the generation settings and all.
      expect(bodies.slice(sent)).toHaveLength(2);
      expect(bodies.at(-1)).toEqual({ ...bodies.at(-2), continuationToken: 'tok-7' });
    }
    expect(builds).toHaveBeenCalledTimes(2);
  });

  it('a continuation refused (HTTP 503) fails the answer with the text so far, not retried', async () => {
    continued(async (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }));
    });
    const r = await ask(googleModel());
    expect(r).toMatchObject({
      text: 'Zürich ',
      finishReason: 'error',
      error: { code: 'upstream_error', status: 503, message: 'The model is overloaded.' },
      attempts: 1,
    });
  });
});

describe('a slot model used for many calls, as the server does', () => {
  it('the SDK builds a call shape once; every call of it is sent from the template and answers the same', async () => {
    const model = compatibleModel();
    const builds = sdkBuilds(model);
    const results = [];
    for (let i = 0; i < 3; i++) {
      respond = streamPieces(cut(chatStream(DELTAS), 6));
      results.push(await ask(model));
      expect(builds).toHaveBeenCalledTimes(2);
    }
    for (const r of results) {
      expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', usage: { inputTokens: 21, outputTokens: 8 } });
      expect(r.deltas).toEqual(DELTAS);
    }
    // A call sent from the template still fails as the SDK would have it fail: the HTTP error goes
    // to the SDK as the answer to its own request (one more build, nothing sent again).
    respond = async (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120', 'x-request-id': 'req_429' });
      res.end(JSON.stringify({ error: { message: 'Slow down', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' } }));
    };
    const sent = bodies.length;
    expect((await ask(model)).error).toMatchObject({ code: 'rate_limited', status: 429, providerRequestId: 'req_429' });
    expect(builds).toHaveBeenCalledTimes(3);
    expect(bodies.length).toBe(sent + 1);
    // And a streamed error after the hand-over carries the response's request id.
    respond = streamPieces(
      cut(chatStream(['Half'], { tail: [data({ error: { message: 'Boom', type: 'server_error', code: null } })] }), 7),
    );
    expect((await ask(model)).error).toMatchObject({ code: 'upstream_error', message: 'Boom', providerRequestId: 'req_wire_1' });
  });

  it('a call shape that raises warnings (DeepSeek with a schema) keeps raising them on every call, built once', async () => {
    const env = { DEEPSEEK_API_KEY: 'sk-ds', CONSILIUM_SLOT3_BASE_URL: base };
    const model = createSlotModel(slotsFromEnv(env)[2]!, env);
    const builds = sdkBuilds(model);
    const logged: unknown[] = [];
    const previous = globalThis.AI_SDK_LOG_WARNINGS;
    globalThis.AI_SDK_LOG_WARNINGS = (w) => logged.push(w);
    try {
      for (let i = 0; i < 2; i++) {
        respond = streamPieces(cut(chatStream(['{"round":3,"agreements":[],', '"disagreements":[]}']), 9));
        const r = await ask(model, { output: zConsensus });
        expect(r.object).toEqual({ round: 3, agreements: [], disagreements: [] });
      }
    } finally {
      globalThis.AI_SDK_LOG_WARNINGS = previous;
    }
    expect(logged).toHaveLength(2);
    expect(logged[1]).toEqual(logged[0]);
    expect(logged[0]).toMatchObject({ provider: 'deepseek.chat', warnings: [{ feature: 'responseFormat JSON schema' }] });
    expect(builds).toHaveBeenCalledTimes(2);
  });
});

describe('handed-over calls go over node:http, and fail as fetch calls do', () => {
  /** A compatible slot's model on its own loopback server, already past its first (quiet) call. */
  async function warmModel() {
    const viaFetch: boolean[] = [];
    const own = createServer((req, res) => {
      // undici's fetch sends `sec-fetch-mode`; a request over node:http does not.
      viaFetch.push(req.headers['sec-fetch-mode'] !== undefined);
      req.resume();
      req.on('end', () => void respond(req, res));
    });
    await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
    const port = (own.address() as AddressInfo).port;
    const env = { CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const model = createSlotModel(slotsFromEnv(env)[4]!, env);
    const builds = sdkBuilds(model);
    respond = streamPieces(cut(chatStream(DELTAS), 50));
    expect((await ask(model)).text).toBe(DELTAS.join(''));
    // Every call, the first too, is sent from the shape's template, over node:http.
    respond = streamPieces(cut(chatStream(DELTAS), 50));
    expect((await ask(model)).text).toBe(DELTAS.join(''));
    expect(viaFetch).toEqual([false, false]);
    expect(builds).toHaveBeenCalledTimes(2);
    const close = () =>
      new Promise<void>((r) => {
        own.closeAllConnections();
        own.close(() => r());
      });
    return { model, close };
  }

  it('a body cut mid-frame is connection_reset with the text so far; the next call answers', async () => {
    const { model, close } = await warmModel();
    try {
      const text = chatStream(DELTAS);
      respond = async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(text.slice(0, text.indexOf(DELTAS[2]!) - 20));
        await tick();
        res.socket?.destroy();
      };
      const r = await ask(model);
      expect(r).toMatchObject({ text: DELTAS.slice(0, 2).join(''), finishReason: 'error', error: { code: 'connection_reset' } });
      respond = streamPieces(cut(chatStream(DELTAS), 3));
      expect(await ask(model)).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', usage: { totalTokens: 29 } });
    } finally {
      await close();
    }
  });

  it('a kept-alive socket the server dropped is sent again at once on a new connection, not failed', async () => {
    const { model, close } = await warmModel();
    try {
      let dropped = 0;
      respond = async (_req, res) => {
        // The race of a provider closing an idle connection: the request arrives on it and gets no answer.
        dropped++;
        res.socket?.destroy();
        respond = streamPieces(cut(chatStream(DELTAS), 50));
      };
      const failures: string[] = [];
      const r = await streamAnswer({
        model,
        prompt: 'Which city?',
        timeoutMs: 10_000,
        maxRetries: 0,
        onAttemptFailed: (f) => failures.push(f.code),
      });
      expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop' });
      expect({ dropped, failures }).toEqual({ dropped: 1, failures: [] });
      // Once only, and only for a reused socket: the new connection dropped as well fails the call.
      dropped = 0;
      respond = async (_req, res) => {
        dropped++;
        res.socket?.destroy();
      };
      const again = await streamAnswer({ model, prompt: 'Which city?', timeoutMs: 10_000, maxRetries: 0 });
      expect(again).toMatchObject({ finishReason: 'error', error: { code: 'connection_reset' } });
      expect(dropped).toBe(2);
    } finally {
      await close();
    }
  });

  it('the caller aborting mid-stream ends the call as aborted and closes the connection', async () => {
    const { model, close } = await warmModel();
    try {
      let closed = false;
      const text = chatStream(DELTAS);
      respond = async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.on('close', () => {
          closed = true;
        });
        res.write(text.slice(0, text.indexOf(DELTAS[2]!) - 20));
      };
      const caller = new AbortController();
      const r = await streamAnswer({
        model,
        prompt: 'Which city?',
        timeoutMs: 10_000,
        signal: caller.signal,
        // The first two frames come in one read, so as one delta.
        onDelta: (d) => {
          if (d.endsWith(DELTAS[1]!)) caller.abort();
        },
      });
      expect(r).toMatchObject({ text: DELTAS.slice(0, 2).join(''), finishReason: 'aborted', error: { code: 'aborted' } });
      await expect.poll(() => closed).toBe(true);
    } finally {
      await close();
    }
  });

  it('a stalled server is a timeout', async () => {
    const { model, close } = await warmModel();
    try {
      respond = async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chatStream(DELTAS).slice(0, 200));
      };
      const r = await streamAnswer({ model, prompt: 'Which city?', timeoutMs: 300, maxRetries: 0 });
      expect(r).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });
    } finally {
      await close();
    }
  });

  it('nothing listening any more is connection_refused, retried', async () => {
    const { model, close } = await warmModel();
    await close();
    const failures: string[] = [];
    const r = await streamAnswer({
      model,
      prompt: 'Which city?',
      timeoutMs: 10_000,
      maxRetries: 2,
      sleep: async () => {},
      onAttemptFailed: (f) => failures.push(`${f.code} ${f.cause}`),
    });
    expect(r.error).toMatchObject({ code: 'connection_refused', retryable: true });
    // The keep-alive socket the server closed may be tried first (a reset, retried); then a new connection is refused.
    expect(failures.at(-1)).toBe('connection_refused ECONNREFUSED');
    for (const f of failures) expect(['connection_reset ECONNRESET', 'connection_refused ECONNREFUSED']).toContain(f);
  });
});
