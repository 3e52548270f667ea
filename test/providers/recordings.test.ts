/**
 * Real provider streams (recorded from the live APIs, published by the AI SDK: see recordings/README.md)
 * replayed over loopback HTTP through both paths: the templated one (`streamAnswer` on a slot's model, which
 * reads the event stream itself) and the SDK one (the provider's AI SDK model's own `doStream`). Whole, cut
 * before the end marker, and reset mid-stream: a cut stream is never an answer, and usage before the cut is kept.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotConfig } from '../../server/src/config/slots.js';
import { type AnswerResult, streamAnswer } from '../../server/src/providers/call.js';
import { createSlotModel, ProviderLanguageModel } from '../../server/src/providers/models.js';

type Format = 'anthropic' | 'chat' | 'gemini';
type Json = Record<string, any>;

const frames = (file: string): string[] =>
  readFileSync(new URL(`./recordings/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

/** How each reply goes out: every frame, the first `n` frames then the end, or the first `n` then a reset. */
type Reply = {
  frames: string[];
  format: Format;
  cut?: number;
  reset?: boolean;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
};

let server: Server;
let base = '';
const replies: Reply[] = [];
let requests = 0;
/** The waits between the last call's attempts. */
let waits: number[] = [];

function send(res: ServerResponse, reply: Reply): void {
  if (reply.status !== undefined) {
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(reply.body);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  const sent = reply.cut === undefined ? reply.frames : reply.frames.slice(0, reply.cut);
  for (const line of sent) {
    const event = reply.format === 'anthropic' ? `event: ${(JSON.parse(line) as Json).type}\n` : '';
    res.write(`${event}data: ${line}\n\n`);
  }
  if (reply.reset) {
    // Flushed first, so the client has the frames before the connection drops.
    res.socket?.once('drain', () => res.socket?.destroy());
    res.write(': keep-alive\n\n', () => res.socket?.destroy());
    return;
  }
  if (reply.cut === undefined && reply.format === 'chat') res.write('data: [DONE]\n\n');
  res.end();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const reply = replies.shift();
      if (reply === undefined) {
        res.writeHead(500).end('no reply queued');
        return;
      }
      send(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const PATHS: Record<string, string> = { anthropic: '/v1', openai: '/v1', deepseek: '/v1', xai: '/v1', google: '/v1beta' };

function slot(provider: string): SlotConfig {
  const native = provider in PATHS;
  return {
    slot: 1,
    provider,
    model: 'recorded-model',
    strength: 'replay',
    apiKeyEnv: 'RECORDED_KEY',
    baseUrl: `${base}${PATHS[provider] ?? '/v1'}`,
    api: native ? 'native' : 'openai-compatible',
    live: true,
  };
}

/** One call through the templated path, or the SDK path (the SDK's own model, not the slot's wrapper). */
async function ask(provider: string, path: 'templated' | 'sdk', queued: Reply[]): Promise<AnswerResult> {
  replies.length = 0;
  replies.push(...queued);
  requests = 0;
  waits = [];
  const model = createSlotModel(slot(provider), { RECORDED_KEY: 'test-key' });
  const languageModel = model.languageModel as ProviderLanguageModel;
  expect(languageModel).toBeInstanceOf(ProviderLanguageModel);
  const chosen = path === 'templated' ? model : { languageModel: await languageModel.loaded() };
  return streamAnswer({
    model: chosen,
    prompt: 'Say hello.',
    timeoutMs: 10_000,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
}

/** The answer text a recording carries, read from its frames as each provider documents them. */
function recordedText(format: Format, lines: string[]): string {
  let text = '';
  for (const line of lines) {
    const f = JSON.parse(line) as Json;
    if (format === 'anthropic' && f.type === 'content_block_delta' && f.delta?.type === 'text_delta') text += f.delta.text;
    if (format === 'chat') text += f.choices?.[0]?.delta?.content ?? '';
    if (format === 'gemini')
      for (const p of f.candidates?.[0]?.content?.parts ?? []) if (!p.thought && typeof p.text === 'string') text += p.text;
  }
  return text;
}

interface Case {
  file: string;
  provider: string;
  format: Format;
  /** The recording's own counts of the whole call. */
  usage: Json;
  /** Frames up to (not including) the one that says the stream is done. */
  beforeEnd: number;
  /** The AI SDK streams Anthropic's compaction summary as text too: the SDK path's text is not the answer's. */
  sdkText?: false;
}

const CASES: Case[] = [
  {
    file: 'anthropic-text.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    usage: { inputTokens: 12, outputTokens: 30 },
    beforeEnd: 10,
  },
  {
    file: 'anthropic-thinking.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    usage: {},
    beforeEnd: frames('anthropic-thinking.chunks.txt').length - 1,
  },
  {
    file: 'anthropic-prompt-cache.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    usage: { inputTokens: 6 + 6289 + 3337, outputTokens: 198, cacheReadTokens: 6289, cacheWriteTokens: 3337 },
    beforeEnd: frames('anthropic-prompt-cache.chunks.txt').length - 1,
  },
  {
    file: 'anthropic-compaction.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    // Both iterations are billed: 60,385 + 612 in, 522 + 2,819 out.
    usage: { inputTokens: 60_997, outputTokens: 3341 },
    beforeEnd: frames('anthropic-compaction.chunks.txt').length - 1,
    sdkText: false,
  },
  {
    file: 'openai-text.chunks.txt',
    provider: 'openai',
    format: 'chat',
    usage: { inputTokens: 16, outputTokens: 300 },
    // The chunk with finish_reason, then the usage chunk.
    beforeEnd: frames('openai-text.chunks.txt').length - 2,
  },
  {
    file: 'deepseek-reasoning.chunks.txt',
    provider: 'deepseek',
    format: 'chat',
    usage: { inputTokens: 18, outputTokens: 219, reasoningTokens: 205 },
    beforeEnd: frames('deepseek-reasoning.chunks.txt').length - 1,
  },
  {
    file: 'xai-text.chunks.txt',
    provider: 'xai',
    format: 'chat',
    usage: { inputTokens: 12, outputTokens: 291, reasoningTokens: 290, cacheReadTokens: 11 },
    beforeEnd: frames('xai-text.chunks.txt').length - 2,
  },
  {
    file: 'compatible-xai-text.chunks.txt',
    provider: 'grok-proxy',
    format: 'chat',
    // Reasoning kept although the slot is only "OpenAI-compatible": 2 + 340.
    usage: { inputTokens: 12, outputTokens: 342, reasoningTokens: 340 },
    beforeEnd: frames('compatible-xai-text.chunks.txt').length - 2,
  },
  {
    file: 'google-text.chunks.txt',
    provider: 'google',
    format: 'gemini',
    usage: { inputTokens: 9, outputTokens: 23 + 185, reasoningTokens: 185 },
    beforeEnd: 2,
  },
  {
    file: 'google-reasoning.chunks.txt',
    provider: 'google',
    format: 'gemini',
    usage: { inputTokens: 9 },
    beforeEnd: frames('google-reasoning.chunks.txt').length - 1,
  },
];

/**
 * Streams where the model called a tool. The debate offers none, so a tool call never passes for a plain
 * answer: the text before it is kept, finished as `other` (the SDKs' `tool-calls`), and a call that said
 * nothing else is `empty`, naming the tool; what was billed is kept.
 */
interface ToolCase extends Case {
  tool: string;
}

const TOOL_CASES: ToolCase[] = [
  {
    file: 'anthropic-text-then-tool-call.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    usage: { inputTokens: 565, outputTokens: 48 },
    beforeEnd: frames('anthropic-text-then-tool-call.chunks.txt').length - 1,
    tool: 'updateIssueList',
  },
  {
    file: 'anthropic-tool-call.chunks.txt',
    provider: 'anthropic',
    format: 'anthropic',
    usage: { inputTokens: 843, outputTokens: 28 },
    beforeEnd: frames('anthropic-tool-call.chunks.txt').length - 1,
    tool: 'weather',
  },
  {
    file: 'deepseek-tool-call.chunks.txt',
    provider: 'deepseek',
    format: 'chat',
    usage: { inputTokens: 339, outputTokens: 83, reasoningTokens: 39, cacheReadTokens: 320 },
    // The last chunk has finish_reason tool_calls and the usage.
    beforeEnd: frames('deepseek-tool-call.chunks.txt').length - 1,
    tool: 'weather',
  },
  {
    file: 'google-tool-call.chunks.txt',
    provider: 'google',
    format: 'gemini',
    // Gemini finishes a function call with STOP; thoughts count as output.
    usage: { inputTokens: 29, outputTokens: 15 + 45, reasoningTokens: 45 },
    beforeEnd: 1,
    tool: 'weather',
  },
];

describe.each(['templated', 'sdk'] as const)('recorded real streams, %s path', (path) => {
  it.each(CASES)('$file whole: the recorded text and usage, completed', async (c) => {
    const lines = frames(c.file);
    const r = await ask(c.provider, path, [{ frames: lines, format: c.format }]);
    expect(r.error).toBeUndefined();
    if (path === 'templated' || c.sdkText !== false) expect(r.text).toBe(recordedText(c.format, lines));
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.finishReason).toBe('stop');
    // The SDKs count cache writes and xAI's apart cached tokens their own ways: the templated path is the one priced.
    if (path === 'templated') expect(r.usage).toMatchObject(c.usage);
    else expect(r.usage).toMatchObject({ outputTokens: c.usage.outputTokens ?? expect.any(Number) });
  });

  it.each(TOOL_CASES)('$file whole, and cut right after its end marker: a tool call, not a finished answer', async (c) => {
    const lines = frames(c.file);
    const text = recordedText(c.format, lines);
    for (const reply of [
      { frames: lines, format: c.format },
      { frames: lines, format: c.format, cut: lines.length },
    ]) {
      const r = await ask(c.provider, path, [reply, reply, reply]);
      expect(r.text).toBe(text);
      expect(r.finishReason).toBe('other');
      expect(r.attempts).toBe(1);
      if (text === '') {
        expect(r.error).toMatchObject({ code: 'empty', retryable: false });
        expect(r.error!.message).toContain(`call a tool (${c.tool})`);
      } else expect(r.error).toBeUndefined();
      if (path === 'templated') expect(r.usage).toMatchObject(c.usage);
      else expect(r.usage).toMatchObject({ outputTokens: c.usage.outputTokens });
    }
  });

  it.each([...CASES, ...TOOL_CASES])(
    '$file cut before its end marker: stream_truncated with the partial text, retried',
    async (c) => {
      const lines = frames(c.file);
      const cut: Reply = { frames: lines, format: c.format, cut: c.beforeEnd };
      const r = await ask(c.provider, path, [cut, cut, cut]);
      expect(r.error).toMatchObject({ code: 'stream_truncated', retryable: true });
      expect(r.finishReason).toBe('error');
      if (path === 'templated' || c.sdkText !== false) expect(r.text).toBe(recordedText(c.format, lines.slice(0, c.beforeEnd)));
      // Retried only while no text had reached the caller.
      expect(r.attempts).toBe(r.text === '' ? 3 : 1);
    },
  );

  it.each([...CASES, ...TOOL_CASES])('$file reset mid-stream: a failure, never completed', async (c) => {
    const lines = frames(c.file);
    const half = Math.max(1, Math.floor(c.beforeEnd / 2));
    const reset: Reply = { frames: lines, format: c.format, cut: half, reset: true };
    const r = await ask(c.provider, path, [reset, reset, reset]);
    expect(r.error).toBeDefined();
    expect(['connection_reset', 'stream_truncated']).toContain(r.error!.code);
    if (path === 'templated' || c.sdkText !== false) expect(r.text).toBe(recordedText(c.format, lines.slice(0, half)));
  });
});

describe('usage before a failure is kept (templated path)', () => {
  it('Anthropic reset after message_start and some text: the 12 input tokens it reported are kept', async () => {
    const r = await ask('anthropic', 'templated', [
      { frames: frames('anthropic-text.chunks.txt'), format: 'anthropic', cut: 6, reset: true },
    ]);
    expect(r.error?.code).toBe('connection_reset');
    expect(r.usage).toMatchObject({ inputTokens: 12, outputTokens: 1 });
  });

  it('Anthropic cut before message_stop: the usage of message_delta is kept', async () => {
    const lines = frames('anthropic-text.chunks.txt');
    const r = await ask('anthropic', 'templated', [{ frames: lines, format: 'anthropic', cut: lines.length - 1 }]);
    expect(r.error?.code).toBe('stream_truncated');
    expect(r.usage).toMatchObject({ inputTokens: 12, outputTokens: 30 });
  });
});

describe.each(['templated', 'sdk'] as const)('refusals are their own outcome, %s path', (path) => {
  it('Anthropic stop_reason refusal: refused, not retried, with its explanation', async () => {
    const r = await ask('anthropic', path, [{ frames: frames('anthropic-refusal.chunks.txt'), format: 'anthropic' }]);
    expect(r.error).toMatchObject({ code: 'refused', retryable: false, attempts: 1 });
    expect(r.finishReason).toBe('content-filter');
    expect(r.text).toBe('');
    if (path === 'templated') expect(r.error!.message).toContain('Usage Policy');
  });

  it('Gemini blocked prompt (PROHIBITED_CONTENT): refused', async () => {
    const r = await ask('google', path, [{ frames: frames('google-prompt-blocked.chunks.txt'), format: 'gemini' }]);
    expect(r.error).toMatchObject({ code: 'refused', retryable: false });
    expect(requests).toBe(1);
  });

  it('OpenAI refusal deltas: refused with the words', async () => {
    const chunk = (delta: Json, finish: string | null = null) =>
      JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    const r = await ask('openai', path, [
      {
        frames: [
          chunk({ role: 'assistant', content: null, refusal: '' }),
          chunk({ refusal: "I can't help with that." }),
          chunk({}, 'stop'),
        ],
        format: 'chat',
      },
    ]);
    expect(r.error).toMatchObject({ code: 'refused', retryable: false });
  });

  it('a finished stream without any text: empty, not retried', async () => {
    const lines = frames('anthropic-text.chunks.txt').filter((l) => !l.includes('text_delta'));
    const r = await ask('anthropic', path, [{ frames: lines, format: 'anthropic' }]);
    expect(r.error).toMatchObject({ code: 'empty', retryable: false, attempts: 1 });
  });
});

/** Error frames in the shapes each provider documents, as the first frame of a 200 stream. */
const ERROR_FRAMES: [string, Format, string, { code: string; retryable: boolean }][] = [
  [
    'anthropic',
    'anthropic',
    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    { code: 'upstream_error', retryable: true },
  ],
  [
    'anthropic',
    'anthropic',
    '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
    { code: 'upstream_error', retryable: true },
  ],
  [
    'openai',
    'chat',
    '{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}',
    { code: 'upstream_error', retryable: true },
  ],
  [
    'openai',
    'chat',
    '{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}',
    { code: 'rate_limited', retryable: true },
  ],
  [
    'openai',
    'chat',
    '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
    { code: 'rate_limited', retryable: false },
  ],
  [
    'google',
    'gemini',
    '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}',
    { code: 'upstream_error', retryable: true },
  ],
  [
    'google',
    'gemini',
    '{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}',
    { code: 'rate_limited', retryable: true },
  ],
];

describe('error frames are classified by what the provider says, templated path', () => {
  it.each(ERROR_FRAMES)('%s first frame %s → %j', async (provider, format, frame, expected) => {
    const reply: Reply = { frames: [frame], format };
    const r = await ask(provider, 'templated', [reply, reply, reply]);
    expect(r.error).toMatchObject(expected);
    expect(requests).toBe(expected.retryable ? 3 : 1);
  });

  it('an HTTP 429 whose body says insufficient_quota is final; a plain 429 is retried', async () => {
    const quota = JSON.stringify({ error: { message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' } });
    const final = await ask('openai', 'templated', [{ frames: [], format: 'chat', status: 429, body: quota }]);
    expect(final.error).toMatchObject({ code: 'rate_limited', retryable: false, status: 429 });
    expect(requests).toBe(1);
    const busy = JSON.stringify({ error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } });
    const reply: Reply = { frames: [], format: 'chat', status: 429, body: busy };
    const retried = await ask('openai', 'templated', [reply, reply, reply]);
    expect(retried.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(requests).toBe(3);
  });
});

describe.each(['templated', 'sdk'] as const)('an error frame in a 200 stream waits as that response asked, %s path', (path) => {
  const overloaded = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const serverError = '{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}';
  const unavailable = '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}';

  it.each([
    ['anthropic', 'anthropic', overloaded, { 'retry-after': '3' }, 3000],
    ['openai', 'chat', serverError, { 'retry-after-ms': '250' }, 250],
    ['google', 'gemini', unavailable, { 'retry-after': '7' }, 7000],
  ] as const)('%s: Retry-After on the 200 response sets the wait', async (provider, format, frame, headers, ms) => {
    const reply: Reply = { frames: [frame], format, headers };
    const r = await ask(provider, path, [reply, reply, reply]);
    expect(r.error).toMatchObject({ code: 'upstream_error', retryable: true, attempts: 3 });
    expect(waits).toEqual([ms, ms]);
  });

  it('an HTTP-date Retry-After: the time left until it when the response came', async () => {
    const at = new Date(Date.now() + 10_000).toUTCString();
    const reply: Reply = { frames: [overloaded], format: 'anthropic', headers: { 'retry-after': at } };
    const before = Date.now();
    const r = await ask('anthropic', path, [reply, reply, reply]);
    const after = Date.now();
    expect(r.error).toMatchObject({ code: 'upstream_error', attempts: 3 });
    expect(waits).toHaveLength(2);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(Date.parse(at) - after);
      expect(wait).toBeLessThanOrEqual(Date.parse(at) - before);
    }
  });

  it('without one, the usual backoff', async () => {
    const reply: Reply = { frames: [overloaded], format: 'anthropic' };
    await ask('anthropic', path, [reply, reply, reply]);
    expect(waits).toEqual([1000, 2000]);
  });
});
