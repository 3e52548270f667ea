/**
 * What each wire format's providers call their errors, and what each one means here: one table per
 * format, looked up by the names an error carries (its `type`, `code` or `status`, in an HTTP error's
 * body, a stream's first frame or one mid-stream). A name in no table leaves the error to its HTTP
 * status (`errors.ts`).
 */
import type { AnswerErrorCode } from '../../../../sdk/src/generated/types.gen.js';

export interface ErrorMeaning {
  code: AnswerErrorCode;
  retryable: boolean;
}

const busy: ErrorMeaning = { code: 'upstream_error', retryable: true };
const refused: ErrorMeaning = { code: 'upstream_error', retryable: false };
const limited: ErrorMeaning = { code: 'rate_limited', retryable: true };
/** Out of credit or quota: waiting does not help, the account has to change. */
const exhausted: ErrorMeaning = { code: 'rate_limited', retryable: false };
const badKey: ErrorMeaning = { code: 'auth_failed', retryable: false };

/** Anthropic Messages (`error.type`), https://docs.anthropic.com/en/api/errors. */
export const ANTHROPIC_ERRORS: Readonly<Record<string, ErrorMeaning>> = {
  overloaded_error: busy,
  api_error: busy,
  timeout_error: busy,
  rate_limit_error: limited,
  authentication_error: badKey,
  permission_error: badKey,
  billing_error: exhausted,
  invalid_request_error: refused,
  not_found_error: refused,
  request_too_large: refused,
};

/** Chat Completions (OpenAI, DeepSeek, xAI, compatible servers: `error.code`, then `error.type`). */
export const CHAT_COMPLETIONS_ERRORS: Readonly<Record<string, ErrorMeaning>> = {
  server_error: busy,
  internal_error: busy,
  service_unavailable: busy,
  engine_overloaded: busy,
  rate_limit_exceeded: limited,
  tokens: limited,
  requests: limited,
  insufficient_quota: exhausted,
  billing_hard_limit_reached: exhausted,
  invalid_api_key: badKey,
  invalid_request_error: refused,
  context_length_exceeded: refused,
  model_not_found: refused,
};

/** Gemini (`error.status`, Google's canonical codes), https://ai.google.dev/gemini-api/docs/troubleshooting. */
export const GEMINI_ERRORS: Readonly<Record<string, ErrorMeaning>> = {
  UNAVAILABLE: busy,
  INTERNAL: busy,
  UNKNOWN: busy,
  DEADLINE_EXCEEDED: busy,
  ABORTED: busy,
  RESOURCE_EXHAUSTED: limited,
  UNAUTHENTICATED: badKey,
  PERMISSION_DENIED: badKey,
  INVALID_ARGUMENT: refused,
  FAILED_PRECONDITION: refused,
  NOT_FOUND: refused,
  OUT_OF_RANGE: refused,
};

/** The meaning of the first name (in the order given) found in a table. Names are case-sensitive, as sent. */
export function errorMeaning(names: readonly unknown[]): ErrorMeaning | undefined {
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const meaning =
      (Object.hasOwn(ANTHROPIC_ERRORS, name) && ANTHROPIC_ERRORS[name]) ||
      (Object.hasOwn(CHAT_COMPLETIONS_ERRORS, name) && CHAT_COMPLETIONS_ERRORS[name]) ||
      (Object.hasOwn(GEMINI_ERRORS, name) && GEMINI_ERRORS[name]);
    if (meaning) return meaning;
  }
  return undefined;
}
