import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { APICallError, JSONParseError } from '@ai-sdk/provider';
import type { FinishReason, Usage } from '../../../sdk/src/generated/types.gen.js';

/**
 * The streaming wire formats read here rather than by the provider SDKs: OpenAI Chat Completions
 * chunks (OpenAI, DeepSeek, xAI, OpenAI-compatible servers), Anthropic Messages events and
 * Gemini's `streamGenerateContent?alt=sse` responses (Google).
 *
 * How it fits: the SDK builds each call shape's request once (`request-template.ts`, through a
 * `capture` claim) and still turns an HTTP error into an `APICallError` (a `replay` claim hands it
 * the answer its request got); the `fetch` it is given (`takeStreams`) sends requests, and hands
 * a successful event stream's body to the call that asked for it (`claimStream`, keyed by the
 * call's abort signal, which the SDK passes to `fetch` unchanged). The call then reads the body
 * with `SseDecoder` and a `WireFrames` below: one `JSON.parse` per frame, no web stream per stage,
 * no zod per chunk.
 */
export type WireFormat = 'chat-completions' | 'anthropic-messages' | 'gemini-generate-content';

/** What the frames of one response report, as they come. */
export interface FrameSink {
  text(delta: string): void;
  /** An error the provider streamed, or a frame that is not JSON. The first one is the cause. */
  error(error: unknown): void;
}

export interface WireFinish {
  reason: FinishReason;
  usage: Usage;
}

/** One response's frames: `frame` for each SSE event, `finish` when the body ended. */
export interface WireFrames {
  frame(event: string, data: string): void;
  /** The finish reason and usage as reported (`other` and zeros when the stream never said). */
  finish(): WireFinish;
  /**
   * When the body ended, the token of a request that goes on with the answer (Gemini's
   * `CONTINUATION`), taken once; the frames of that request's body then follow on the same reader.
   */
  continuation?(): string | undefined;
}

export function wireFrames(format: WireFormat, sink: FrameSink, provider = ''): WireFrames {
  if (format === 'anthropic-messages') return new AnthropicFrames(sink);
  if (format === 'gemini-generate-content') return new GeminiFrames(sink);
  return new ChatFrames(sink, provider === 'xai');
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Parses one frame's data; a frame that is not a JSON object goes to the sink as the SDKs reported it. */
function parse(data: string, sink: FrameSink): Json | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    sink.error(new JSONParseError({ text: data, cause }));
    return undefined;
  }
  if (isObject(value)) return value;
  sink.error(new JSONParseError({ text: data, cause: new TypeError('A stream frame is not a JSON object') }));
  return undefined;
}

function usageOf(input: number, output: number): Usage {
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}

/**
 * Chat Completions chunks: `choices[0].delta.content` is text, `choices[0].finish_reason` the
 * reason, a chunk with `usage` (the last one, with `stream_options.include_usage`) the counts,
 * `data: [DONE]` the end, and `{ "error": … }` an error the server streamed.
 */
class ChatFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #refused = false;
  #input = 0;
  #output = 0;

  /** xAI counts reasoning tokens apart from completion tokens, and may leave cached ones out of the prompt's. */
  constructor(
    private readonly sink: FrameSink,
    private readonly xai: boolean,
  ) {}

  frame(_event: string, data: string): void {
    if (data === '[DONE]') return;
    const value = parse(data, this.sink);
    if (value === undefined) return;
    if ('error' in value) {
      this.#reason = 'error';
      this.sink.error(value.error ?? value);
      return;
    }
    if (isObject(value.usage)) this.#usage(value.usage);
    const choice = Array.isArray(value.choices) ? value.choices[0] : undefined;
    if (!isObject(choice)) return;
    if (typeof choice.finish_reason === 'string') this.#reason = chatReason(choice.finish_reason);
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.#refused = true;
    const content = delta.content;
    if (typeof content === 'string' && content !== '') this.sink.text(content);
  }

  #usage(u: Json): void {
    const prompt = count(u.prompt_tokens);
    const completion = count(u.completion_tokens);
    if (!this.xai) {
      this.#input = prompt;
      this.#output = completion;
      return;
    }
    const cached = count(isObject(u.prompt_tokens_details) ? u.prompt_tokens_details.cached_tokens : 0);
    const reasoning = count(isObject(u.completion_tokens_details) ? u.completion_tokens_details.reasoning_tokens : 0);
    this.#input = cached <= prompt ? prompt : prompt + cached;
    this.#output = completion + reasoning;
  }

  finish(): WireFinish {
    const reason = this.#reason === 'stop' && this.#refused ? 'content-filter' : this.#reason;
    return { reason, usage: usageOf(this.#input, this.#output) };
  }
}

/** The SDKs' mapping; tool calls (which the debate never asks for) count as `other`. */
function chatReason(reason: string): FinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  return reason === 'content_filter' ? 'content-filter' : 'other';
}

/**
 * Anthropic Messages events: `message_start` (input tokens, cache reads and writes),
 * `content_block_delta` with a `text_delta`, `message_delta` (stop reason, output tokens),
 * `error` (e.g. `overloaded_error`) mid-stream; `ping`, `message_stop` and block starts and stops
 * carry nothing the answer needs.
 */
class AnthropicFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #output = 0;

  constructor(private readonly sink: FrameSink) {}

  frame(_event: string, data: string): void {
    const value = parse(data, this.sink);
    if (value === undefined) return;
    switch (value.type) {
      case 'content_block_delta': {
        const delta = value.delta;
        if (isObject(delta) && delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '')
          this.sink.text(delta.text);
        return;
      }
      case 'message_start': {
        const message = isObject(value.message) ? value.message : {};
        if (isObject(message.usage)) this.#usage(message.usage);
        if (typeof message.stop_reason === 'string') this.#reason = anthropicReason(message.stop_reason);
        return;
      }
      case 'message_delta': {
        if (isObject(value.usage)) this.#usage(value.usage);
        const delta = value.delta;
        if (isObject(delta)) this.#reason = typeof delta.stop_reason === 'string' ? anthropicReason(delta.stop_reason) : 'other';
        return;
      }
      case 'error':
        this.sink.error(value.error ?? value);
        return;
      default:
    }
  }

  /** Counts as they come: `message_delta`'s are cumulative and replace `message_start`'s where given. */
  #usage(u: Json): void {
    if (u.input_tokens != null) this.#input = count(u.input_tokens);
    if (u.output_tokens != null) this.#output = count(u.output_tokens);
    if (u.cache_read_input_tokens != null) this.#cacheRead = count(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens != null) this.#cacheWrite = count(u.cache_creation_input_tokens);
  }

  finish(): WireFinish {
    return { reason: this.#reason, usage: usageOf(this.#input + this.#cacheRead + this.#cacheWrite, this.#output) };
  }
}

function anthropicReason(reason: string): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/**
 * Gemini `GenerateContentResponse` frames, as `@ai-sdk/google` reads them: the first candidate's
 * text parts are the answer (parts marked `thought` are reasoning, left out as the SDK leaves them
 * out of the text), its `finishReason` the reason, `usageMetadata` the counts (the last one
 * given: thoughts count as output, cached tokens are within the prompt's), a confirmed
 * `promptFeedback.blockReason` a content filter, and `{ "error": … }` an error the server streamed
 * (an `APICallError` with the HTTP status its `code` or `status` names, as the SDK makes it).
 * A `CONTINUATION` finish with a `continuationToken` is a long answer the server goes on with in
 * another request, which the reader sends (`continuation`); each request's counts are added up.
 */
class GeminiFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #blocked = false;
  #usage: Json | undefined;
  /** The counts of the requests before this one, when the answer was continued. */
  #earlier = { input: 0, output: 0 };
  #token: string | undefined;

  constructor(private readonly sink: FrameSink) {}

  frame(_event: string, data: string): void {
    const value = parse(data, this.sink);
    if (value === undefined) return;
    if (value.error != null) {
      this.#reason = 'error';
      this.sink.error(geminiError(value.error));
      return;
    }
    if (isObject(value.usageMetadata)) this.#usage = value.usageMetadata;
    const feedback = value.promptFeedback;
    if (!this.#blocked && isObject(feedback) && confirmedBlock(feedback.blockReason)) {
      this.#blocked = true;
      this.#reason = 'content-filter';
    }
    if (this.#blocked) return;
    const candidate = Array.isArray(value.candidates) ? value.candidates[0] : undefined;
    if (!isObject(candidate)) return;
    const parts = isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      if (isObject(part) && typeof part.text === 'string' && part.text !== '' && part.thought !== true) this.sink.text(part.text);
    }
    if (typeof candidate.finishReason === 'string') this.#reason = geminiReason(candidate.finishReason);
    if (candidate.finishReason === 'CONTINUATION' && typeof candidate.continuationToken === 'string') {
      this.#token = candidate.continuationToken;
      const { input, output } = this.#counts();
      this.#earlier = { input: this.#earlier.input + input, output: this.#earlier.output + output };
      this.#usage = undefined;
    }
  }

  #counts(): { input: number; output: number } {
    const u = this.#usage ?? {};
    return { input: count(u.promptTokenCount), output: count(u.candidatesTokenCount) + count(u.thoughtsTokenCount) };
  }

  continuation(): string | undefined {
    const token = this.#token;
    this.#token = undefined;
    return token;
  }

  finish(): WireFinish {
    const { input, output } = this.#counts();
    return { reason: this.#reason, usage: usageOf(this.#earlier.input + input, this.#earlier.output + output) };
  }
}

/** A streamed `{ error: { code, message, status } }` as the SDK reports it: an `APICallError` with the HTTP status it stands for. */
function geminiError(error: unknown): APICallError {
  const e = isObject(error) ? error : {};
  return new APICallError({
    message: typeof e.message === 'string' ? e.message : JSON.stringify(error),
    url: '',
    requestBodyValues: {},
    statusCode: typeof e.code === 'number' ? e.code : typeof e.status === 'string' ? GEMINI_STATUS[e.status] : undefined,
    responseBody: JSON.stringify({ error }),
    data: error,
  });
}

/** Google's error statuses as HTTP statuses (the SDK's `mapGoogleErrorStatusToHttpStatusCode`). */
const GEMINI_STATUS: Record<string, number> = {
  CANCELLED: 499,
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  UNIMPLEMENTED: 501,
  UNKNOWN: 500,
  INTERNAL: 500,
  DATA_LOSS: 500,
  UNAVAILABLE: 503,
};

function confirmedBlock(reason: unknown): boolean {
  return (
    typeof reason === 'string' &&
    reason !== '' &&
    reason !== 'BLOCK_REASON_UNSPECIFIED' &&
    reason !== 'BLOCKED_REASON_UNSPECIFIED'
  );
}

/** The SDK's mapping (`mapGoogleGenerativeAIFinishReason`, without tool calls). */
function geminiReason(reason: string): FinishReason {
  switch (reason) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
    case 'CONTINUATION':
      return 'length';
    case 'IMAGE_SAFETY':
    case 'RECITATION':
    case 'SAFETY':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'content-filter';
    case 'MALFORMED_FUNCTION_CALL':
      return 'error';
    default:
      return 'other';
  }
}

/** A response body read chunk by chunk, as a web stream's reader reads. */
export interface ByteSource {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  /** Stops reading and releases the connection. */
  cancel(): void;
}

/** A call's claim on its response body, keyed by the call's abort signal. */
export interface StreamClaim {
  body?: ByteSource;
  /** The response's headers, lowercase names (for the provider's request id). */
  headers?: Record<string, string>;
  /** Stop the SDK there (`StreamHandedOver`) rather than let it build its stream over an empty body. */
  handover: boolean;
  /**
   * Sends the claimed request again with `patch` merged into its JSON body (a Gemini continuation)
   * by the same route, and gives that response's event stream; an HTTP error rejects as the SDK's
   * `APICallError` would.
   */
  resend?: (patch: Record<string, unknown>) => Promise<ByteSource>;
  /** Set by `learnTemplate`: the request is recorded here instead of sent, and answered with an empty event stream. */
  capture?: { request?: { url: string; method?: string; headers?: HeadersInit; body?: unknown } };
  /**
   * What a request sent without the SDK (a template's) got when it was not an event stream to
   * hand over: the SDK's own request then gets this answer instead of being sent, so it makes of
   * it exactly the error (or the stream) it always did.
   */
  replay?: { response: Response } | { error: unknown };
}

/**
 * Thrown through the SDK by `takeStreams` once the body is handed over: the SDK passes an error
 * that is neither an abort nor a network failure on unchanged, and builds none of its per-call
 * stream machinery. The call then has the body, but not the SDK's warnings for the call (its
 * `stream-start`), so `streamAnswer` does this only for call shapes known to raise none.
 */
export class StreamHandedOver extends Error {
  override name = 'StreamHandedOver';
}

/** One instance for every hand-over: it is a signal, not a failure, and an `Error` per call captured a stack trace each time. */
const HANDED_OVER = new StreamHandedOver('The response body went to the call that claimed it');

const claims = new WeakMap<AbortSignal, StreamClaim>();

/**
 * Node's own `fetch`, as it was when this module loaded. When something has replaced the global
 * `fetch` since (a proxy agent, a recorder, a test's interceptor such as msw), every request goes
 * through that replacement rather than `node:http`.
 */
const nodeFetch = globalThis.fetch;

/** Asks `takeStreams` to hand over the event stream of the request sent with `signal`. */
export function claimStream(signal: AbortSignal, handover = false): StreamClaim {
  const claim: StreamClaim = { handover };
  claims.set(signal, claim);
  return claim;
}

export function releaseStream(signal: AbortSignal): void {
  claims.delete(signal);
}

/**
 * The `fetch` a provider SDK is given: a successful event stream whose request's signal was
 * claimed goes to the claim, and the SDK gets the same status and headers with an empty body.
 * Everything else (HTTP errors, a JSON body, a request with tools, which the debate never sends
 * and whose streams only the SDK reads) reaches the SDK untouched. `fetchImpl` is looked up per
 * call, so a test's interceptor installed later is still used.
 */
export function takeStreams(fetchImpl?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const claim = init?.signal ? claims.get(init.signal) : undefined;
    if (claim?.capture !== undefined) {
      const url = String(input instanceof Request ? input.url : input);
      claim.capture.request = {
        url,
        ...(init?.method !== undefined && { method: init.method }),
        ...(init?.headers !== undefined && { headers: init.headers }),
        body: init?.body,
      };
      return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    if (claim?.replay !== undefined) {
      const replay = claim.replay;
      claim.replay = undefined;
      if ('error' in replay) throw replay.error;
      return replay.response;
    }
    // A request with a non-empty `tools` list (every format names it so) or a tool choice.
    const withTools = typeof init?.body === 'string' && (init.body.includes('"tool_choice"') || init.body.includes('"tools":[{'));
    // A call that will not go back to the SDK skips `fetch` too, when no other fetch was configured.
    const direct = fetchImpl === undefined && globalThis.fetch === nodeFetch;
    const url = String(input instanceof Request ? input.url : input);
    if (claim !== undefined && typeof init?.body === 'string') {
      const sent = init;
      claim.resend = (patch) => resendStream(url, sent, patch, direct ? undefined : (fetchImpl ?? globalThis.fetch));
    }
    if (claim?.handover && direct && !withTools && typeof init?.body === 'string') return requestDirect(url, init, claim);
    const response = await (fetchImpl ?? globalThis.fetch)(input, init);
    if (
      claim === undefined ||
      !response.ok ||
      response.body === null ||
      !response.headers.get('content-type')?.includes('text/event-stream') ||
      withTools
    )
      return response;
    claim.body = webBody(response.body);
    claim.headers = Object.fromEntries(response.headers);
    if (claim.handover) throw HANDED_OVER;
    return new Response('', { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A web stream's body as a `ByteSource`. */
function webBody(body: ReadableStream<Uint8Array>): ByteSource {
  const reader = body.getReader();
  return {
    read: () => reader.read() as ReturnType<ByteSource['read']>,
    cancel: () => {
      reader.cancel().catch(() => {});
    },
  };
}

/**
 * The request sent once more with `patch` merged into its JSON body, over `node:http(s)` (no
 * `fetchImpl`) or through `fetchImpl`: its event stream, or, for any other answer, the
 * `APICallError` an SDK makes of it (Google's: the message from `{ "error": { "message" } }`).
 */
async function resendStream(
  url: string,
  init: RequestInit,
  patch: Record<string, unknown>,
  fetchImpl: typeof fetch | undefined,
): Promise<ByteSource> {
  const again: RequestInit = { ...init, body: JSON.stringify({ ...(JSON.parse(init.body as string) as Json), ...patch }) };
  let response: Response;
  if (fetchImpl === undefined) {
    const claim: StreamClaim = { handover: true };
    try {
      response = await requestDirect(url, again, claim);
    } catch (error) {
      if (error instanceof StreamHandedOver && claim.body !== undefined) return claim.body;
      throw error;
    }
  } else {
    response = await fetchImpl(url, again);
    if (response.ok && response.body !== null && response.headers.get('content-type')?.includes('text/event-stream'))
      return webBody(response.body);
  }
  const text = await response.text();
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
  } catch {
    // Not JSON: the status text says it.
  }
  throw new APICallError({
    message: typeof message === 'string' ? message : response.statusText || `HTTP ${response.status}`,
    url,
    requestBodyValues: patch,
    statusCode: response.status,
    responseHeaders: Object.fromEntries(response.headers),
    responseBody: text,
  });
}

/** Header records already in `fetch`'s form (lowercase names, no duplicates): a template's, sent as they are. */
const ready = new WeakSet<object>();

/** Marks `headers` as normalized, so `requestDirect` sends it without building a `Headers` per call. */
export function readyHeaders<T extends Record<string, string>>(headers: T): T {
  ready.add(headers);
  return headers;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * The request as `fetch` would send it, over `node:http(s)` with a keep-alive agent: undici's
 * `fetch` cost about a millisecond of CPU per call and a web stream per body. A successful event
 * stream goes to the claim (and the SDK gets `StreamHandedOver`); any other answer is read whole
 * and given to the SDK as a `Response`, so HTTP errors become its `APICallError`s as before.
 * Network errors reject with Node's own (`ECONNREFUSED`, `ENOTFOUND`, TLS codes), which the SDK
 * and `classifyError` name by their code; an abort rejects with the signal's `AbortError`.
 */
function requestDirect(url: string, init: RequestInit, claim: StreamClaim): Promise<Response> {
  const { secure, options } = target(url);
  const headers = ready.has(init.headers as object)
    ? (init.headers as Record<string, string>)
    : Object.fromEntries(new Headers(init.headers));
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => send(false, resolve, reject));
  function send(retry: boolean, resolve: (response: Response) => void, reject: (error: unknown) => void): void {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    let answered = false;
    const request = (secure ? httpsRequest : httpRequest)(
      { ...options, method: init.method ?? 'POST', headers, agent: secure ? agents.https : agents.http },
      (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const responseHeaders = flatHeaders(res);
        if (status >= 200 && status < 300 && responseHeaders['content-type']?.includes('text/event-stream')) {
          claim.body = nodeBody(res);
          claim.headers = responseHeaders;
          reject(HANDED_OVER);
          return;
        }
        wholeResponse(res, responseHeaders).then(resolve, reject);
      },
    );
    if (signal !== undefined) {
      // What the `signal` option does, without the stream bookkeeping (`eos`) it sets up per request:
      // an abort destroys the request and its response; the listener goes when the request closes.
      const onAbort = () => request.destroy(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      request.once('close', () => signal.removeEventListener('abort', onAbort));
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the provider closed while it sat idle fails the next request before any answer: the
      // provider never saw it, so it is sent once more on a fresh connection rather than through a retry's backoff.
      if (!retry && !answered && request.reusedSocket && error.code === 'ECONNRESET' && !signal?.aborted) {
        send(true, resolve, reject);
      } else reject(error);
    });
    request.end(init.body as string);
  }
}

/** A Node response's headers, one string each (repeated ones joined), as a web `Headers` init. */
function flatHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** A Node response read to its end, as a web `Response`. */
export function wholeResponse(res: IncomingMessage, headers = flatHeaders(res)): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const status = res.statusCode ?? 0;
      const empty = status === 204 || status === 304;
      resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers }));
    });
  });
}

/** Where each provider URL goes, parsed once: a `URL` and its conversion per request were 1 % of the main thread. */
const targets = new Map<string, { secure: boolean; options: ReturnType<typeof urlToHttpOptions> }>();

function target(url: string): { secure: boolean; options: ReturnType<typeof urlToHttpOptions> } {
  let found = targets.get(url);
  if (found === undefined) {
    const parsed = new URL(url);
    found = { secure: parsed.protocol === 'https:', options: urlToHttpOptions(parsed) };
    // Provider URLs are a handful per slot; a bound in case a caller's are not.
    if (targets.size >= 1000) targets.clear();
    targets.set(url, found);
  }
  return found;
}

/** The error Node's `signal` option rejects a request with. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

/** A Node response body as a `ByteSource`: chunks queue until read; a close before the end is a dropped connection. */
export function nodeBody(res: IncomingMessage): ByteSource {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: unknown;
  type Waiter = { resolve: (r: Awaited<ReturnType<ByteSource['read']>>) => void; reject: (e: unknown) => void };
  let waiter: Waiter | undefined;
  const settle = (w: Waiter) => {
    if (queue.length > 0) w.resolve({ done: false, value: queue.length === 1 ? queue.pop()! : Buffer.concat(queue.splice(0)) });
    else if (failure !== undefined) w.reject(failure);
    else if (ended) w.resolve({ done: true });
    else waiter = w;
  };
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    if (w) settle(w);
  };
  res.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    wake();
  });
  res.on('end', () => {
    ended = true;
    wake();
  });
  res.on('error', (error) => {
    failure ??= error;
    wake();
  });
  res.on('close', () => {
    if (!ended && failure === undefined)
      failure = Object.assign(new Error('The provider closed the connection mid-stream'), { code: 'ECONNRESET' });
    wake();
  });
  return {
    read: () => new Promise((resolve, reject) => settle({ resolve, reject })),
    cancel: () => res.destroy(),
  };
}
