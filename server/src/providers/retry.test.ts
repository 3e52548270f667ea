import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelayMs } from './retry.js';

const apiError = (statusCode: number, responseHeaders?: Record<string, string>) =>
  new APICallError({ message: 'x', url: 'https://api.test', requestBodyValues: {}, statusCode, responseHeaders });

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }, 7000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after-ms': 'abc' }, undefined],
    [{}, undefined],
    [undefined, undefined],
  ])('%j → %s', (headers, expected) => {
    expect(retryAfterMs(headers, now)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  it('backs off exponentially without a Retry-After', () => {
    const e = apiError(503);
    expect([1, 2, 3].map((n) => retryDelayMs(e, n))).toEqual([1000, 2000, 4000]);
    expect(retryDelayMs(new Error('network'), 2, { initialDelayMs: 10, factor: 3, maxDelayMs: 1000 })).toBe(30);
  });

  it("uses the provider's Retry-After instead", () => {
    expect(retryDelayMs(apiError(429, { 'retry-after': '4' }), 1)).toBe(4000);
    expect(retryDelayMs(apiError(429, { 'retry-after-ms': '15' }), 3)).toBe(15);
  });

  it('declines a wait beyond the ceiling, asked for or computed', () => {
    expect(retryDelayMs(apiError(429, { 'retry-after': '60' }), 1)).toBeUndefined();
    expect(retryDelayMs(apiError(500), 6)).toBeUndefined();
    expect(retryDelayMs(apiError(500), 5)).toBe(16_000);
    expect(DEFAULT_RETRY_POLICY.maxDelayMs).toBe(20_000);
  });
});
