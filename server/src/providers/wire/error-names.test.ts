import { describe, expect, it } from 'vitest';
import { ANTHROPIC_ERRORS, CHAT_COMPLETIONS_ERRORS, errorMeaning, GEMINI_ERRORS } from './error-names.js';

const busy = { code: 'upstream_error', retryable: true };
const final = { code: 'upstream_error', retryable: false };
const limited = { code: 'rate_limited', retryable: true };
const exhausted = { code: 'rate_limited', retryable: false };
const badKey = { code: 'auth_failed', retryable: false };

describe('what providers call their errors', () => {
  it.each([
    // Anthropic
    ['overloaded_error', busy],
    ['api_error', busy],
    ['timeout_error', busy],
    ['rate_limit_error', limited],
    ['authentication_error', badKey],
    ['permission_error', badKey],
    ['billing_error', exhausted],
    ['invalid_request_error', final],
    ['not_found_error', final],
    ['request_too_large', final],
    // Chat Completions
    ['server_error', busy],
    ['internal_error', busy],
    ['service_unavailable', busy],
    ['engine_overloaded', busy],
    ['rate_limit_exceeded', limited],
    ['tokens', limited],
    ['requests', limited],
    ['insufficient_quota', exhausted],
    ['billing_hard_limit_reached', exhausted],
    ['invalid_api_key', badKey],
    ['context_length_exceeded', final],
    ['model_not_found', final],
    // Gemini
    ['UNAVAILABLE', busy],
    ['INTERNAL', busy],
    ['UNKNOWN', busy],
    ['DEADLINE_EXCEEDED', busy],
    ['ABORTED', busy],
    ['RESOURCE_EXHAUSTED', limited],
    ['UNAUTHENTICATED', badKey],
    ['PERMISSION_DENIED', badKey],
    ['INVALID_ARGUMENT', final],
    ['FAILED_PRECONDITION', final],
    ['NOT_FOUND', final],
    ['OUT_OF_RANGE', final],
  ])('%s → %j', (name, meaning) => {
    expect(errorMeaning([name])).toEqual(meaning);
  });

  it('each table is its own format: every name in exactly one', () => {
    const names = [ANTHROPIC_ERRORS, CHAT_COMPLETIONS_ERRORS, GEMINI_ERRORS].flatMap((t) => Object.keys(t));
    expect(new Set(names).size).toBe(names.length - 1); // invalid_request_error is both Anthropic's and OpenAI's, meaning the same
    expect(ANTHROPIC_ERRORS.invalid_request_error).toEqual(CHAT_COMPLETIONS_ERRORS.invalid_request_error);
  });

  it('the first known name wins; non-strings, unknown names, other cases and inherited keys are no name', () => {
    expect(errorMeaning(['insufficient_quota', 'server_error'])).toEqual(exhausted);
    expect(errorMeaning([null, 42, 'something_new', 'server_error'])).toEqual(busy);
    expect(errorMeaning(['unavailable', 'Server_Error'])).toBeUndefined();
    expect(errorMeaning(['constructor', 'toString', '__proto__'])).toBeUndefined();
    expect(errorMeaning([])).toBeUndefined();
  });
});
