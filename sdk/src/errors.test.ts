import { describe, expect, it } from 'vitest';
import { ConsiliumError, errorFromProblem, errorFromResponse, toConsiliumError } from './errors.js';

const problem = {
  type: 'https://consilium.dev/problems/validation_failed',
  title: 'Request validation failed',
  status: 400,
  code: 'validation_failed' as const,
  requestId: 'req_1',
  errors: [{ path: 'body.rounds', message: 'Too big' }],
};

describe('ConsiliumError', () => {
  it('carries a problem: code, status, errors, requestId, and a message naming the fields', async () => {
    const error = await errorFromResponse(
      new Response(JSON.stringify(problem), { status: 400, headers: { 'content-type': 'application/problem+json' } }),
    );
    expect(error).toBeInstanceOf(ConsiliumError);
    expect(error).toMatchObject({ code: 'validation_failed', status: 400, requestId: 'req_1', problem, fromServer: true });
    expect(error.errors).toEqual(problem.errors);
    expect(error.message).toBe('Request validation failed (validation_failed) — body.rounds (Too big)');
    const counted = errorFromProblem(
      { ...problem, detail: '2 fields are invalid.', errors: [...problem.errors, { path: 'query.limit', message: 'Too small' }] },
      undefined,
    );
    expect(counted.message).toBe(
      'Request validation failed (validation_failed) — 2 fields are invalid: body.rounds (Too big); query.limit (Too small)',
    );
    expect(errorFromProblem({ ...problem, detail: 'Try later.', errors: [] }, undefined).message).toBe(
      'Request validation failed (validation_failed) — Try later.',
    );
  });

  it('falls back to the X-Request-Id header and the status when the body is no problem', async () => {
    const error = await errorFromResponse(new Response('<html>', { status: 502, headers: { 'x-request-id': 'req_2' } }));
    expect(error).toMatchObject({ code: 'internal_error', status: 502, requestId: 'req_2', fromServer: false, errors: [] });
    expect(errorFromProblem(undefined, new Response(null, { status: 418 })).code).toBe('invalid_response');
  });

  it('sums up a contract break: the first issues by path, then how many more, all of them kept on the cause', () => {
    const issues = Array.from({ length: 40 }, (_, i) => ({
      code: 'invalid_type',
      path: ['items', i, 'status'],
      message: 'Invalid option: expected one of "running"|"completed"',
    }));
    const zodError = Object.assign(new Error(JSON.stringify(issues, null, 2)), { issues });
    const error = toConsiliumError(zodError);
    expect(error.code).toBe('invalid_response');
    expect(error.message).toBe(
      "The server's answer does not match the contract: " +
        'items.0.status: Invalid option: expected one of "running"|"completed"; ' +
        'items.1.status: Invalid option: expected one of "running"|"completed"; ' +
        'items.2.status: Invalid option: expected one of "running"|"completed" (and 37 more issues)',
    );
    expect(error.message.length).toBeLessThan(300);
    expect(error.cause).toBe(zodError);
    expect(toConsiliumError({ issues: [{ path: [], message: 'Expected object' }] }).message).toMatch(
      /contract: \(the answer\): Expected object$/,
    );
  });

  it('names network failures, aborts and contract breaks', () => {
    const refused = toConsiliumError(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
    expect(refused).toMatchObject({ code: 'network_error', status: undefined });
    expect(refused.message).toBe('Network error: fetch failed (ECONNREFUSED)');
    const badPort = toConsiliumError(new TypeError('fetch failed', { cause: new Error('bad port') }));
    expect(badPort.message).toBe('Network error: fetch failed (bad port)');
    expect(toConsiliumError(new TypeError('fetch failed')).message).toBe('Network error: fetch failed');
    const controller = new AbortController();
    controller.abort();
    expect(toConsiliumError(new Error('x'), controller.signal).code).toBe('aborted');
    expect(toConsiliumError({ issues: [], message: 'bad' }).code).toBe('invalid_response');
    const kept = new ConsiliumError('kept', { code: 'not_found' });
    expect(toConsiliumError(kept)).toBe(kept);
  });
});
