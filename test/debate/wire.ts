/**
 * Stand-ins for the six provider APIs at the network edge (msw), speaking each one's streaming
 * wire format as its documentation and the AI SDK's parsers define it: Anthropic Messages SSE,
 * OpenAI Chat Completions chunks with the final usage chunk, Gemini `streamGenerateContent?alt=sse`,
 * DeepSeek and xAI chat completions, and an OpenAI-compatible server (Ollama's `/v1`).
 */
import { HttpResponse } from 'msw';
import { type SlotConfig, slotsFromEnv } from '../../server/src/config/slots.js';

export interface Usage {
  input: number;
  output: number;
}

export interface WireProvider {
  /** Test label. */
  name: string;
  slot: SlotConfig;
  env: Record<string, string>;
  /** What the msw handler matches: a URL or, where the path has a ':', a regex. */
  url: string | RegExp;
  /** The SSE frames of one streamed answer, split into `deltas`. */
  frames(deltas: string[], usage: Usage, finish?: 'stop' | 'length'): string[];
  /** The provider's JSON error body for an HTTP error. */
  errorBody(status: number, message: string): unknown;
  /** Where the key travels: header name and expected value. */
  auth: [header: string, value: string];
  /** The provider's name for the finish reason "hit the token limit", as it appears on the wire. */
  lengthReason: string;
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const event = (name: string, value: unknown) => `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;

function openAIChatFrames(model: string, extraUsage: Record<string, unknown> = {}) {
  return (deltas: string[], usage: Usage, finish: 'stop' | 'length' = 'stop'): string[] => {
    const base = {
      id: 'chatcmpl-test1',
      object: 'chat.completion.chunk',
      created: 1_767_000_000,
      model,
      system_fingerprint: 'fp_test',
    };
    return [
      data({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] }),
      ...deltas.map((content) =>
        data({ ...base, choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }] }),
      ),
      data({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }] }),
      // With stream_options.include_usage the last chunk has no choices and carries the usage.
      data({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          ...extraUsage,
        },
      }),
      'data: [DONE]\n\n',
    ];
  };
}

const openAIError = (type: string) => (status: number, message: string) => ({
  error: {
    message,
    type: status === 429 ? 'rate_limit_exceeded' : type,
    param: null,
    code: status === 429 ? 'rate_limit_exceeded' : null,
  },
});

const OLLAMA_BASE = 'http://127.0.0.1:11434/v1';

export const PROVIDERS: WireProvider[] = [
  {
    name: 'anthropic',
    slot: slotsFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-test' })[0]!,
    env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
    url: 'https://api.anthropic.com/v1/messages',
    auth: ['x-api-key', 'sk-ant-test'],
    lengthReason: 'max_tokens',
    frames: (deltas, usage, finish = 'stop') => [
      event('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_01Test',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
        },
      }),
      event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      event('ping', { type: 'ping' }),
      ...deltas.map((text) =>
        event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      ),
      event('content_block_stop', { type: 'content_block_stop', index: 0 }),
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: finish === 'length' ? 'max_tokens' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
      event('message_stop', { type: 'message_stop' }),
    ],
    errorBody: (status, message) => ({
      type: 'error',
      error: { type: status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : 'api_error', message },
    }),
  },
  {
    name: 'openai',
    slot: slotsFromEnv({ OPENAI_API_KEY: 'sk-openai-test' })[1]!,
    env: { OPENAI_API_KEY: 'sk-openai-test' },
    url: 'https://api.openai.com/v1/chat/completions',
    auth: ['authorization', 'Bearer sk-openai-test'],
    lengthReason: 'length',
    frames: openAIChatFrames('gpt-4.1-2025-04-14', { prompt_tokens_details: { cached_tokens: 0 } }),
    errorBody: openAIError('server_error'),
  },
  {
    name: 'deepseek',
    slot: slotsFromEnv({ DEEPSEEK_API_KEY: 'sk-deepseek-test' })[2]!,
    env: { DEEPSEEK_API_KEY: 'sk-deepseek-test' },
    // DeepSeek has no /v1 in its path.
    url: 'https://api.deepseek.com/chat/completions',
    auth: ['authorization', 'Bearer sk-deepseek-test'],
    lengthReason: 'length',
    frames: openAIChatFrames('deepseek-chat', { prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 }),
    errorBody: openAIError('api_error'),
  },
  {
    name: 'google',
    slot: slotsFromEnv({ GOOGLE_GENERATIVE_AI_API_KEY: 'g-test' })[3]!,
    env: { GOOGLE_GENERATIVE_AI_API_KEY: 'g-test' },
    // The ':' before the method breaks msw's path parameters; a regex matches it. msw matches
    // without the query string, so `alt=sse` is checked on the recorded URL instead.
    url: /^https:\/\/generativelanguage\.googleapis\.com\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    auth: ['x-goog-api-key', 'g-test'],
    lengthReason: 'MAX_TOKENS',
    frames: (deltas, usage, finish = 'stop') =>
      deltas.map((text, i) => {
        const last = i === deltas.length - 1;
        const chunk = {
          candidates: [
            {
              content: { parts: [{ text }], role: 'model' },
              index: 0,
              ...(last && { finishReason: finish === 'length' ? 'MAX_TOKENS' : 'STOP' }),
            },
          ],
          usageMetadata: last
            ? { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output }
            : { promptTokenCount: usage.input, totalTokenCount: usage.input },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'resp-test',
        };
        return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
      }),
    errorBody: (status, message) => ({
      error: {
        code: status,
        message,
        status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL',
      },
    }),
  },
  {
    name: 'xai',
    slot: slotsFromEnv({ XAI_API_KEY: 'xai-test' })[4]!,
    env: { XAI_API_KEY: 'xai-test' },
    url: 'https://api.x.ai/v1/chat/completions',
    auth: ['authorization', 'Bearer xai-test'],
    lengthReason: 'length',
    frames: openAIChatFrames('grok-3-mini', { num_sources_used: 0 }),
    errorBody: openAIError('invalid_request_error'),
  },
  {
    name: 'openai-compatible (Ollama)',
    slot: slotsFromEnv({
      CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen',
      CONSILIUM_SLOT5_BASE_URL: OLLAMA_BASE,
      CONSILIUM_SLOT5_MODEL: 'qwen3:8b',
      CONSILIUM_SLOT5_API_KEY: 'ollama',
    })[4]!,
    env: { CONSILIUM_SLOT5_API_KEY: 'ollama' },
    url: `${OLLAMA_BASE}/chat/completions`,
    auth: ['authorization', 'Bearer ollama'],
    lengthReason: 'length',
    frames: openAIChatFrames('qwen3:8b'),
    errorBody: openAIError('api_error'),
  },
];

/** How a streamed response misbehaves. */
export interface Breakage {
  /** Error the body after this many frames, as a dropped TCP connection does. */
  resetAfter?: number;
  /** Send this many frames, then hold the connection open and silent. */
  stallAfter?: number;
}

export interface Observed {
  /** Set when the request's signal aborted while the handler still held the stream open. */
  aborted: boolean;
}

/**
 * An SSE response whose body streams `frames`. msw does not cancel a mocked body when the client
 * aborts, so the request's signal is wired to the stream here, and `observed.aborted` records that
 * the abort reached the server side.
 */
export function sseResponse(
  request: Request,
  frames: string[],
  breakage: Breakage = {},
  observed?: Observed,
): HttpResponse<ReadableStream> {
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const onAbort = () => {
        if (observed) observed.aborted = true;
        try {
          controller.error(request.signal.reason);
        } catch {
          // already closed
        }
      };
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      // Yield between frames so deltas arrive as separate reads, as over a network.
      await new Promise((resolve) => setImmediate(resolve));
      if (breakage.resetAfter !== undefined && sent === breakage.resetAfter) {
        controller.error(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
        return;
      }
      if (breakage.stallAfter !== undefined && sent === breakage.stallAfter) return new Promise<void>(() => {});
      if (sent === frames.length) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(frames[sent++]));
    },
  });
  return new HttpResponse(body, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  });
}

/** A handler body that never answers until the client gives up, recording that it did. */
export function stallUntilAborted(request: Request, observed: Observed): Promise<Response> {
  return new Promise((resolve) => {
    const onAbort = () => {
      observed.aborted = true;
      // The client is gone; a network error settles the handler without msw logging an exception.
      resolve(HttpResponse.error());
    };
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
  });
}
