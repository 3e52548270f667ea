import { APICallError } from '@ai-sdk/provider';
import type { AnswerError } from '../../../sdk/src/generated/types.gen.js';

/** An `AnswerError` before the attempt count is known. */
export type Failure = Omit<AnswerError, 'attempts'>;

const MAX_MESSAGE = 500;

/**
 * Maps whatever a provider call failed with to the contract's error codes. HTTP errors arrive as
 * `APICallError`s (from an `error` part, or thrown when the body breaks mid-stream with status
 * 200); providers also stream their own error events (Anthropic's `overloaded_error`) as plain
 * objects. Abort and timeout are decided by the caller, who knows which signal fired.
 */
export function classifyError(error: unknown): Failure {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const message = clip(error.message);
    if (status === 429) return { code: 'rate_limited', message, status, retryable: true };
    // Status 200 means the response started and its body broke; no status means no response at all.
    if (status === undefined || (status >= 200 && status < 300)) return { code: 'connection_reset', message, retryable: true };
    const retryable = error.isRetryable || status >= 500 || status === 408 || status === 409;
    return { code: 'upstream_error', message, status, retryable };
  }
  const streamed = providerErrorEvent(error);
  if (streamed) {
    if (/rate_limit/.test(streamed.type)) return { code: 'rate_limited', message: streamed.message, retryable: true };
    return {
      code: 'upstream_error',
      message: streamed.message,
      retryable: /overloaded|api_error|unavailable|internal/.test(streamed.type),
    };
  }
  if (isNetworkError(error)) return { code: 'connection_reset', message: clip(messageOf(error)), retryable: true };
  return { code: 'upstream_error', message: clip(messageOf(error)), retryable: false };
}

/** `{ type: 'overloaded_error', message }` as Anthropic streams it, or `{ code, message }`. */
function providerErrorEvent(error: unknown): { type: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null || error instanceof Error) return undefined;
  const e = error as { type?: unknown; code?: unknown; status?: unknown; message?: unknown; error?: unknown };
  const type = [e.type, e.code, e.status].find((v) => typeof v === 'string') as string | undefined;
  // xAI streams `{ code, error }`; the others put the text in `message`.
  const message = [e.message, e.error].find((v) => typeof v === 'string') as string | undefined;
  if (type === undefined && message === undefined) return undefined;
  return { type: (type ?? 'error').toLowerCase(), message: clip(message ?? JSON.stringify(error)) };
}

const NETWORK_CODES = /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_\w+)$/;

function isNetworkError(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.test(code)) return true;
    if (e instanceof TypeError && /fetch failed|terminated/i.test(e.message)) return true;
  }
  return false;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}
