/**
 * Gemini `streamGenerateContent?alt=sse` frames (`GenerateContentResponse`), as `@ai-sdk/google`
 * reads them: the first candidate's text parts are the answer (parts marked `thought` are
 * reasoning, left out as the SDK leaves them out of the text; a `functionCall` part a tool the
 * model asked for, which makes a `STOP` the SDK's `tool-calls`, here `other`), its `finishReason` the reason,
 * `usageMetadata` the counts (the last one given: thoughts count as output, cached tokens are within
 * the prompt's), a confirmed `promptFeedback.blockReason` a content filter, and `{ "error": … }` an
 * error the server streamed (an `APICallError` with the HTTP status its `code` or `status` names, as
 * the SDK makes it). A `CONTINUATION` finish with a `continuationToken` is a long answer the server
 * goes on with in another request, which the reader sends (`continuation`); each request's counts
 * are added up. The stream is done once the candidate has a `finishReason` (or the prompt was
 * blocked); a body that ends before it was cut.
 */
import { APICallError } from '@ai-sdk/provider';
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class GeminiGenerateContentFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #done = false;
  #blocked = false;
  #usage: Json | undefined;
  /** The counts of the requests before this one, when the answer was continued. */
  #earlier: Counts = { input: 0, output: 0, cacheRead: 0, reasoning: 0 };
  #token: string | undefined;
  #refusal: string | undefined;
  #tool: string | undefined;

  constructor(private readonly sink: FrameSink) {}

  frame(_event: string, data: string): void {
    const value = parseFrame(data, this.sink);
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
      this.#done = true;
      this.#reason = 'content-filter';
      this.#refusal = `The prompt was blocked (${feedback.blockReason})`;
    }
    if (this.#blocked) return;
    const candidate = Array.isArray(value.candidates) ? value.candidates[0] : undefined;
    if (!isObject(candidate)) return;
    const parts = isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string' && part.text !== '' && part.thought !== true) this.sink.text(part.text);
      if (this.#tool === undefined && isObject(part.functionCall)) this.#tool = String(part.functionCall.name);
    }
    if (typeof candidate.finishReason === 'string') {
      this.#reason = geminiReason(candidate.finishReason);
      if (this.#reason === 'stop' && this.#tool !== undefined) this.#reason = 'other';
      this.#done = true;
      if (this.#reason === 'content-filter') this.#refusal = `The answer was stopped (${candidate.finishReason})`;
    }
    if (candidate.finishReason === 'CONTINUATION' && typeof candidate.continuationToken === 'string') {
      // The answer goes on in the next request, which must say it is done in turn.
      this.#done = false;
      this.#token = candidate.continuationToken;
      this.#earlier = add(this.#earlier, this.#counts());
      this.#usage = undefined;
    }
  }

  #counts(): Counts {
    const u = this.#usage ?? {};
    const reasoning = count(u.thoughtsTokenCount);
    return {
      input: count(u.promptTokenCount),
      output: count(u.candidatesTokenCount) + reasoning,
      cacheRead: count(u.cachedContentTokenCount),
      reasoning,
    };
  }

  continuation(): string | undefined {
    const token = this.#token;
    this.#token = undefined;
    return token;
  }

  finish(): WireFinish {
    const { input, output, ...parts } = add(this.#earlier, this.#counts());
    const finish: WireFinish = { reason: this.#reason, usage: usageOf(input, output, parts), done: this.#done };
    if (this.#refusal !== undefined) finish.refusal = this.#refusal;
    if (this.#tool !== undefined) finish.toolCall = this.#tool;
    return finish;
  }
}

interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  reasoning: number;
}

const add = (a: Counts, b: Counts): Counts => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  reasoning: a.reasoning + b.reasoning,
});

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
