import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ProblemCode } from '../../../sdk/src/generated/types.gen.js';
import {
  zListSessionsQuery,
  zProblem,
  zProblemCode,
  zStreamSessionEventsHeaders,
  zStreamSessionEventsPath,
  zSynthesizeRequest,
} from '../generated/schemas/zod.gen.js';
import { fieldErrors, PROBLEM_MEDIA_TYPE, problemBody, problemType } from './problem.js';

/** The titles clients see. They are part of the interface: changing one should be deliberate. */
const TITLES: Record<ProblemCode, string> = {
  validation_failed: 'Request validation failed',
  malformed_body: 'Malformed request body',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Payload too large',
  headers_too_large: 'Request header fields too large',
  unauthorized: 'Authentication required',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  unknown_provider: 'Unknown provider',
  unknown_wiki_source: 'Unknown wiki source',
  conflict: 'Conflict',
  rate_limited: 'Too many requests',
  not_implemented: 'Not implemented',
  provider_failed: 'Provider failed',
  quorum_not_met: 'Quorum not met',
  budget_exceeded: 'Budget exceeded',
  internal_error: 'Internal server error',
  host_not_allowed: 'Host not allowed',
  request_timeout: 'Request timeout',
  store_unavailable: 'Session store unavailable',
  method_not_allowed: 'Method not allowed',
  not_ready: 'Not ready',
  draining: 'Draining',
  hashing_busy: 'Too many password checks',
};

/** The `ZodError` a failed parse gives; fails the test if the value parses. */
function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`expected ${JSON.stringify(value)} not to parse`);
  return result.error;
}

describe('problem types and titles', () => {
  it('the title table covers every code of the contract', () => {
    expect(Object.keys(TITLES).sort()).toEqual([...zProblemCode.options].sort());
  });

  it.each(zProblemCode.options)('%s has a stable type URI and title', (code) => {
    expect(problemType(code)).toBe(`https://consilium.dev/problems/${code}`);
    const a = problemBody(400, code);
    const b = problemBody(503, code, { detail: 'something else' });
    expect(a).toEqual({ type: problemType(code), title: TITLES[code], status: 400, code });
    expect([b.type, b.title, b.code]).toEqual([a.type, a.title, a.code]);
    expect(zProblem.strict().parse(a)).toEqual(a);
  });

  it('gives each code its own type and title', () => {
    expect(new Set(zProblemCode.options.map(problemType)).size).toBe(zProblemCode.options.length);
    expect(new Set(zProblemCode.options.map((c) => problemBody(400, c).title)).size).toBe(zProblemCode.options.length);
  });

  it('adds detail, instance, requestId, capability and errors', () => {
    const body = problemBody(501, 'not_implemented', {
      detail: 'Not yet.',
      instance: '/consilium',
      requestId: 'req-1',
      capability: 'debate',
    });
    expect(body).toEqual({
      type: 'https://consilium.dev/problems/not_implemented',
      title: 'Not implemented',
      status: 501,
      code: 'not_implemented',
      detail: 'Not yet.',
      instance: '/consilium',
      requestId: 'req-1',
      capability: 'debate',
    });
    expect(zProblem.parse(body)).toEqual(body);
  });

  it('uses the RFC 9457 media type', () => {
    expect(PROBLEM_MEDIA_TYPE).toBe('application/problem+json');
  });
});

describe('fieldErrors', () => {
  it('prefixes body fields with `body`, array indexes included', () => {
    const error = errorOf(zSynthesizeRequest, {
      question: '',
      answers: [
        { slot: 1, text: 'ok' },
        { slot: 9, text: '' },
      ],
    });
    const errors = fieldErrors('json', error);
    expect(errors.map((e) => e.path)).toEqual(['body.question', 'body.answers.1.slot', 'body.answers.1.text']);
    expect(errors.map((e) => e.code)).toEqual(['too_small', 'too_big', 'too_small']);
    for (const e of errors) expect(e.message).not.toBe('');
  });

  it('keeps each issue’s message and code', () => {
    const error = errorOf(zSynthesizeRequest, { answers: [{ slot: 'one', text: 'x' }] });
    expect(fieldErrors('json', error)).toEqual(
      error.issues.map((issue) => ({ path: 'body.answers.0.slot', message: issue.message, code: issue.code })),
    );
    expect(error.issues[0]!.code).toBe('invalid_type');
  });

  it('names form bodies `body` too', () => {
    expect(fieldErrors('form', errorOf(zSynthesizeRequest, { question: '' }))[0]!.path).toBe('body.question');
  });

  it('names a body that is not an object just `body`', () => {
    expect(fieldErrors('json', errorOf(zSynthesizeRequest, null))).toEqual([
      { path: 'body', message: expect.any(String), code: 'invalid_type' },
    ]);
  });

  it('prefixes query parameters with `query`', () => {
    expect(fieldErrors('query', errorOf(zListSessionsQuery, { limit: 0, q: '' })).map((e) => e.path)).toEqual([
      'query.limit',
      'query.q',
    ]);
  });

  it('prefixes path parameters with `path`', () => {
    expect(fieldErrors('param', errorOf(zStreamSessionEventsPath, { sessionId: 'nope' })).map((e) => e.path)).toEqual([
      'path.sessionId',
    ]);
  });

  it('prefixes headers with `header`, keeping the header’s name as the contract spells it', () => {
    const error = errorOf(zStreamSessionEventsHeaders, { 'Last-Event-ID': 'abc' });
    expect(fieldErrors('header', error)).toEqual([
      { path: 'header.Last-Event-ID', message: expect.stringContaining('pattern'), code: 'invalid_format' },
    ]);
  });

  it('prefixes cookies with `cookie`, and passes an unknown location through', () => {
    const error = errorOf(z.object({ consilium_session: z.string().min(10) }), { consilium_session: 'x' });
    expect(fieldErrors('cookie', error)[0]!.path).toBe('cookie.consilium_session');
    expect(fieldErrors('elsewhere', error)[0]!.path).toBe('elsewhere.consilium_session');
  });

  it('names each unknown body field at its own path, nested ones too, with a stable code', () => {
    const error = errorOf(zSynthesizeRequest, {
      question: 'q?',
      temperature: 0.2,
      top_p: 1,
      answers: [{ slot: 1, text: 'x', weight: 2 }],
    });
    // Zod checks nested objects before their parent's keys.
    expect(fieldErrors('json', error)).toEqual([
      { path: 'body.answers.0.weight', message: expect.stringContaining('"weight"'), code: 'unrecognized_keys' },
      { path: 'body.temperature', message: expect.stringContaining('"temperature"'), code: 'unrecognized_keys' },
      { path: 'body.top_p', message: expect.stringContaining('"top_p"'), code: 'unrecognized_keys' },
    ]);
  });

  it('gives one entry per issue, in order', () => {
    const error = errorOf(zSynthesizeRequest, {
      sessionId: 'x',
      question: '',
      answers: [
        { slot: 0, text: '' },
        { slot: 6, round: 9, text: 'x' },
      ],
    });
    expect(fieldErrors('json', error).map((e) => e.path)).toEqual([
      'body.sessionId',
      'body.question',
      'body.answers.0.slot',
      'body.answers.0.text',
      'body.answers.1.slot',
      'body.answers.1.round',
    ]);
  });
});
