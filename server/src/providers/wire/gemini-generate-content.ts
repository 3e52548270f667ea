/**
 * Gemini `streamGenerateContent?alt=sse` frames (`GenerateContentResponse`), as `@ai-sdk/google`
 * reads them: the first candidate's text parts are the answer (parts marked `thought` are
 * reasoning, left out as the SDK leaves them out of the text), its `finishReason` the reason,
 * `usageMetadata` the counts (the last one given: thoughts count as output, cached tokens are within
 * the prompt's), a confirmed `promptFeedback.blockReason` a content filter, and `{ "error": … }` an
 * error the server streamed (an `APICallError` with the HTTP status its `code` or `status` names, as
 * the SDK makes it). A `CONTINUATION` finish with a `continuationToken` is a long answer the server
 * goes on with in another request, which the reader sends (`continuation`); each request's counts
 * are added up.
 */
import { APICallError } from '@ai-sdk/provider';
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class GeminiGenerateContentFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #blocked = false;
  #usage: Json | undefined;
  /** The counts of the requests before this one, when the answer was continued. */
  #earlier = { input: 0, output: 0 };
  #token: string | undefined;

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
