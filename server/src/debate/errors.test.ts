import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { classifyError } from './errors.js';

const apiError = (statusCode: number | undefined, message = 'provider says no', isRetryable?: boolean) =>
  new APICallError({
    message,
    url: 'https://api.test',
    requestBodyValues: {},
    statusCode,
    ...(isRetryable !== undefined && { isRetryable }),
  });

describe('classifyError', () => {
  it.each([
    [429, { code: 'rate_limited', status: 429, retryable: true }],
    [500, { code: 'upstream_error', status: 500, retryable: true }],
    [503, { code: 'upstream_error', status: 503, retryable: true }],
    [529, { code: 'upstream_error', status: 529, retryable: true }],
    [408, { code: 'upstream_error', status: 408, retryable: true }],
    [409, { code: 'upstream_error', status: 409, retryable: true }],
    [400, { code: 'upstream_error', status: 400, retryable: false }],
    [401, { code: 'upstream_error', status: 401, retryable: false }],
    [404, { code: 'upstream_error', status: 404, retryable: false }],
  ])('HTTP %i → %j', (status, expected) => {
    expect(classifyError(apiError(status))).toEqual({ ...expected, message: 'provider says no' });
  });

  it('a body that broke after status 200 is a connection reset, without the status', () => {
    expect(classifyError(apiError(200, 'Failed to process successful response', true))).toEqual({
      code: 'connection_reset',
      message: 'Failed to process successful response',
      retryable: true,
    });
  });

  it('no response at all (connection refused) is a connection reset', () => {
    expect(classifyError(apiError(undefined, 'Cannot connect to API: connect ECONNREFUSED', true))).toMatchObject({
      code: 'connection_reset',
      retryable: true,
    });
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyError(refused)).toMatchObject({ code: 'connection_reset', retryable: true });
  });

  it('error events streamed by the provider', () => {
    // Anthropic: `event: error` with { type, message }; xAI: { code, error }.
    expect(classifyError({ type: 'overloaded_error', message: 'Overloaded' })).toEqual({
      code: 'upstream_error',
      message: 'Overloaded',
      retryable: true,
    });
    expect(classifyError({ type: 'rate_limit_error', message: 'Slow down' })).toMatchObject({
      code: 'rate_limited',
      retryable: true,
    });
    expect(classifyError({ code: 'invalid_request', error: 'Bad prompt' })).toEqual({
      code: 'upstream_error',
      message: 'Bad prompt',
      retryable: false,
    });
  });

  it('anything else is a non-retryable upstream error with a bounded message', () => {
    const r = classifyError(new Error('x'.repeat(2000)));
    expect(r).toMatchObject({ code: 'upstream_error', retryable: false });
    expect(r.message.length).toBeLessThanOrEqual(500);
    expect(classifyError('text part 1 not found')).toMatchObject({ code: 'upstream_error', message: 'text part 1 not found' });
  });
});
