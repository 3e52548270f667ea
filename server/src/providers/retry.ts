import { APICallError } from '@ai-sdk/provider';

/** Exponential backoff between attempts, with a ceiling on any single wait. */
export interface RetryPolicy {
  /** Wait before the second attempt when the provider gives no Retry-After. */
  initialDelayMs: number;
  factor: number;
  /**
   * The longest wait worth making. A provider asking for more (Retry-After: 120) is not retried:
   * a debate round cannot hold for it, and the caller learns `rate_limited` at once.
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 1000, factor: 2, maxDelayMs: 20_000 };

/**
 * How long the provider asked us to wait, from `retry-after-ms` (OpenAI, milliseconds) or
 * `retry-after` (seconds or an HTTP date). Header names are lowercase, as the AI SDK records them.
 */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before attempt `attempt + 1`: the provider's Retry-After when it sent one (on the error's
 * response, or else `streamAsked`, from the 200 response whose stream then carried the error),
 * otherwise exponential backoff. `undefined` when the wait would exceed `policy.maxDelayMs`.
 */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  streamAsked?: number,
): number | undefined {
  const asked = (APICallError.isInstance(error) ? retryAfterMs(error.responseHeaders) : undefined) ?? streamAsked;
  const wait = asked ?? policy.initialDelayMs * policy.factor ** (attempt - 1);
  return wait <= policy.maxDelayMs ? wait : undefined;
}
