import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { classifyError } from './errors.js';

const apiError = (
  statusCode: number | undefined,
  message = 'provider says no',
  isRetryable?: boolean,
  extra: { cause?: unknown; responseHeaders?: Record<string, string> } = {},
) =>
  new APICallError({
    message,
    url: 'https://api.test',
    requestBodyValues: {},
    statusCode,
    ...(isRetryable !== undefined && { isRetryable }),
    ...extra,
  });

/** A network failure as the AI SDK reports it: an APICallError without status, the system error as cause. */
const networkError = (code: string, text: string) =>
  apiError(undefined, `Cannot connect to API: ${text}`, true, { cause: Object.assign(new Error(text), { code }) });

describe('classifyError', () => {
  it.each([
    [429, { code: 'rate_limited', status: 429, retryable: true }],
    [500, { code: 'upstream_error', status: 500, retryable: true }],
    [503, { code: 'upstream_error', status: 503, retryable: true }],
    [529, { code: 'upstream_error', status: 529, retryable: true }],
    [408, { code: 'upstream_error', status: 408, retryable: true }],
    [409, { code: 'upstream_error', status: 409, retryable: true }],
    [400, { code: 'upstream_error', status: 400, retryable: false }],
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

  it('a refused connection is connection_refused, with the address in the message', () => {
    const r = classifyError(networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'));
    expect(r).toEqual({
      code: 'connection_refused',
      message: "Connection refused: nothing answers at the provider's address (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:9",
      retryable: true,
    });
    // As undici throws it when called directly: TypeError('fetch failed') with the system error as cause.
    const raw = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyError(raw)).toMatchObject({ code: 'connection_refused', retryable: true });
  });

  it('a fetch refusal without a system code keeps its cause in the message', () => {
    const raw = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(classifyError(raw)).toEqual({ code: 'connection_reset', message: 'fetch failed: bad port', retryable: true });
    expect(classifyError(new TypeError('fetch failed'))).toMatchObject({ message: 'fetch failed' });
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND api.nowhere.invalid', 'dns_failed', false],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example.com', 'dns_failed', false],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'ssl3_get_record:wrong version number', 'tls_failed', false],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'tls_failed', false],
    ['CERT_HAS_EXPIRED', 'certificate has expired', 'tls_failed', false],
    ['UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error', 'timeout', true],
    ['ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443', 'timeout', true],
    ['ECONNRESET', 'read ECONNRESET', 'connection_reset', true],
    ['UND_ERR_SOCKET', 'other side closed', 'connection_reset', true],
  ])('%s → %s', (code, text, expected, retryable) => {
    const r = classifyError(networkError(code, text));
    expect(r).toMatchObject({ code: expected, retryable });
    expect(r.message).toContain(code);
    expect(r.message).toContain(text);
  });

  it('401 and 403 are auth_failed: the key was refused, and retrying will not help', () => {
    for (const status of [401, 403]) {
      const r = classifyError(apiError(status, 'Incorrect API key provided'));
      expect(r).toEqual({
        code: 'auth_failed',
        message: `The provider refused the API key (HTTP ${status}): Incorrect API key provided`,
        status,
        retryable: false,
      });
    }
    expect(classifyError({ type: 'authentication_error', message: 'invalid x-api-key' })).toEqual({
      code: 'auth_failed',
      message: 'invalid x-api-key',
      retryable: false,
    });
  });

  it("carries the provider's request id from its response headers", () => {
    const headers = (h: Record<string, string>) => classifyError(apiError(500, 'boom', true, { responseHeaders: h }));
    expect(headers({ 'x-request-id': 'req_openai_1' }).providerRequestId).toBe('req_openai_1');
    expect(headers({ 'request-id': 'req_anthropic_1' }).providerRequestId).toBe('req_anthropic_1');
    expect(headers({ 'content-type': 'application/json' })).not.toHaveProperty('providerRequestId');
    expect(classifyError(apiError(429, 'slow', true, { responseHeaders: { 'x-request-id': 'r2' } }))).toMatchObject({
      code: 'rate_limited',
      providerRequestId: 'r2',
    });
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

  it("an HTTP error is read by the name its body gives (the SDK's parsed data, or the raw body), then by its status", () => {
    const withBody = (status: number, body: unknown, data?: unknown) =>
      new APICallError({
        message: 'provider says no',
        url: 'https://api.test',
        requestBodyValues: {},
        statusCode: status,
        responseBody: typeof body === 'string' ? body : JSON.stringify(body),
        ...(data !== undefined && { data }),
      });
    // OpenAI's quota: a 429 that waiting does not cure.
    const quota = { error: { message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' } };
    expect(classifyError(withBody(429, quota))).toEqual({
      code: 'rate_limited',
      message: 'provider says no',
      status: 429,
      retryable: false,
    });
    expect(classifyError(withBody(429, 'not json', quota))).toMatchObject({ retryable: false });
    // Anthropic's envelope { type: 'error', error: { type } }; a 5xx stays retryable whatever it is called.
    expect(classifyError(withBody(400, { type: 'error', error: { type: 'overloaded_error' } }))).toMatchObject({
      code: 'upstream_error',
      status: 400,
      retryable: true,
    });
    expect(classifyError(withBody(500, { error: { type: 'invalid_request_error' } }))).toMatchObject({
      status: 500,
      retryable: true,
    });
    expect(classifyError(withBody(408, { error: { type: 'invalid_request_error' } }))).toMatchObject({ retryable: true });
    expect(classifyError(withBody(409, { error: { type: 'invalid_request_error' } }))).toMatchObject({ retryable: true });
    expect(classifyError(withBody(400, { error: { type: 'invalid_request_error' } }))).toMatchObject({ retryable: false });
    // Gemini's { error: { code, status } }.
    expect(classifyError(withBody(429, { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } }))).toMatchObject({
      code: 'rate_limited',
      retryable: true,
    });
    // 401 and 403 keep their wording; an unknown name or a body that is no object leaves the status to decide.
    expect(classifyError(withBody(401, { error: { type: 'authentication_error' } })).message).toContain('refused the API key');
    expect(classifyError(withBody(503, { error: { type: 'something_new' } }))).toMatchObject({
      code: 'upstream_error',
      retryable: true,
    });
    expect(classifyError(withBody(400, '"just a string"'))).toMatchObject({ code: 'upstream_error', retryable: false });
    expect(classifyError(withBody(400, 'null'))).toMatchObject({ code: 'upstream_error', retryable: false });
    // A network failure with a named body is still the network's.
    const net = new APICallError({
      message: 'Cannot connect',
      url: 'https://api.test',
      requestBodyValues: {},
      data: { error: { type: 'server_error' } },
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyError(net)).toMatchObject({ code: 'connection_refused' });
    // A name without a status: the name's meaning, without a status.
    const streamed = new APICallError({ message: 'busy', url: '', requestBodyValues: {}, data: { status: 'UNAVAILABLE' } });
    expect(classifyError(streamed)).toEqual({ code: 'upstream_error', message: 'busy', retryable: true });
  });

  it('streamed error frames by their code before their type: rate limits, quota, server errors', () => {
    expect(classifyError({ message: 'Rate limit', type: 'requests', code: 'rate_limit_exceeded' })).toEqual({
      code: 'rate_limited',
      message: 'Rate limit',
      retryable: true,
    });
    expect(classifyError({ message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' })).toMatchObject({
      code: 'rate_limited',
      retryable: false,
    });
    expect(classifyError({ message: 'The server had an error', type: 'server_error', code: null })).toEqual({
      code: 'upstream_error',
      message: 'The server had an error',
      retryable: true,
    });
    // Names in no table: the old reading of the type.
    expect(classifyError({ type: 'Internal_Failure', message: 'x' })).toMatchObject({ retryable: true });
    expect(classifyError({ type: 'my_rate_limit', message: 'x' })).toMatchObject({ code: 'rate_limited' });
    expect(classifyError({ type: 'permission_denied_here', message: 'x' })).toMatchObject({ code: 'auth_failed' });
  });

  it("the OpenAI-compatible SDK's stream without a finish reason is stream_truncated", () => {
    expect(classifyError(new Error('Response stream ended without a finish reason.'))).toEqual({
      code: 'stream_truncated',
      message: 'Response stream ended without a finish reason.',
      retryable: true,
    });
  });

  it('system codes match whole: a code that only contains a known one is no such cause', () => {
    for (const code of [
      'XECONNREFUSED',
      'ECONNREFUSEDX',
      'XENOTFOUND',
      'ENOTFOUNDX',
      'XEPROTO',
      'EPROTOX',
      'XETIMEDOUT',
      'ETIMEDOUTX',
    ]) {
      const r = classifyError(networkError(code, 'odd failure'));
      expect(r, code).toEqual({ code: 'connection_reset', message: 'Cannot connect to API: odd failure', retryable: true });
    }
    for (const code of ['XECONNRESET', 'ECONNRESETX'])
      expect(classifyError(networkError(code, 'odd')).message).not.toContain('dropped');
    // Each cause says what happened; multi-part codes match whole.
    expect(classifyError(networkError('ENOTFOUND', 'x')).message).toContain("The provider's host name does not resolve");
    expect(classifyError(networkError('ERR_TLS_CERT_ALTNAME_INVALID', 'x'))).toMatchObject({ code: 'tls_failed' });
    expect(classifyError(networkError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'x')).message).toContain(
      'The TLS handshake with the provider failed',
    );
    expect(classifyError(networkError('ETIMEDOUT', 'x')).message).toContain('The provider did not answer in time');
    expect(classifyError(networkError('ECONNRESET', '  read ECONNRESET  ')).message).toBe(
      'The connection to the provider dropped (ECONNRESET): read ECONNRESET',
    );
  });

  it('the system code is found along the cause chain, skipping codes that are not system codes, up to six deep', () => {
    const chain = (codes: (string | undefined)[]): Error =>
      codes.reduceRight<Error | undefined>(
        (cause, code) => Object.assign(new Error(`level ${code}`, { cause }), code === undefined ? {} : { code }),
        undefined,
      )!;
    for (const outer of ['not_system', 'xECONNRESET', 'ECONNRESET-x'])
      expect(classifyError(chain([outer, 'ECONNREFUSED'])), outer).toMatchObject({ code: 'connection_refused' });
    expect(classifyError(chain([undefined, undefined, undefined, undefined, undefined, 'ECONNREFUSED']))).toMatchObject({
      code: 'connection_refused',
    });
    // The seventh level is too deep.
    const deep = chain([undefined, undefined, undefined, undefined, undefined, undefined, 'ECONNREFUSED']);
    expect(classifyError(deep)).toMatchObject({ code: 'upstream_error', retryable: false });
    // Only a TypeError says "fetch failed" for undici; a plain Error saying so is no network failure.
    expect(classifyError(new Error('fetch failed'))).toMatchObject({ code: 'upstream_error', retryable: false });
  });

  it('HTTP statuses decide retrying even against the SDK, and a 2xx whose body broke is a reset whatever its cause', () => {
    expect(classifyError(apiError(500, 'm', false))).toMatchObject({ retryable: true });
    expect(classifyError(apiError(408, 'm', false))).toMatchObject({ retryable: true });
    expect(classifyError(apiError(409, 'm', false))).toMatchObject({ retryable: true });
    expect(classifyError(apiError(400, 'm', true))).toMatchObject({ retryable: true });
    expect(classifyError(apiError(300, 'm', false))).toMatchObject({ code: 'upstream_error', status: 300 });
    const broke = apiError(200, 'Failed to process', true, {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(classifyError(broke)).toEqual({ code: 'connection_reset', message: 'Failed to process', retryable: true });
  });

  it('a named body decides over a network cause once a status came, but not over 403; no status, no status field', () => {
    const named = (status: number | undefined, data: unknown, cause?: unknown) =>
      new APICallError({
        message: 'm',
        url: '',
        requestBodyValues: {},
        statusCode: status,
        data,
        ...(cause !== undefined && { cause }),
      });
    const net = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyError(named(429, { error: { code: 'insufficient_quota' } }, net))).toMatchObject({
      code: 'rate_limited',
      retryable: false,
    });
    expect(classifyError(named(403, { error: { type: 'overloaded_error' } }))).toMatchObject({
      code: 'auth_failed',
      retryable: false,
    });
    const unnamed = classifyError(named(undefined, { error: { status: 'INVALID_ARGUMENT' } }));
    expect(unnamed).toEqual({ code: 'upstream_error', message: 'm', retryable: false });
    expect('status' in unnamed).toBe(false);
  });

  it('streamed frames: the fallback reading by type, a frame with only a type or only a message, odd values', () => {
    expect(classifyError({ type: 'my_rate_limit', message: 'x' })).toEqual({
      code: 'rate_limited',
      message: 'x',
      retryable: true,
    });
    expect(classifyError({ type: 'permission_denied_here', message: 'x' })).toEqual({
      code: 'auth_failed',
      message: 'x',
      retryable: false,
    });
    expect(classifyError({ type: 'overloaded_error' })).toEqual({
      code: 'upstream_error',
      message: '{"type":"overloaded_error"}',
      retryable: true,
    });
    expect(classifyError({ message: 'only' })).toEqual({ code: 'upstream_error', message: 'only', retryable: false });
    expect(classifyError({ foo: 1 })).toEqual({ code: 'upstream_error', message: '{"foo":1}', retryable: false });
    expect(classifyError(42)).toEqual({ code: 'upstream_error', message: '42', retryable: false });
  });

  it('messages are clipped past 500 characters, request ids past 200; every provider header is read', () => {
    expect(classifyError(new Error('y'.repeat(500))).message).toBe('y'.repeat(500));
    expect(classifyError(new Error('y'.repeat(501))).message).toBe(`${'y'.repeat(499)}…`);
    const id = (h: Record<string, string>) =>
      classifyError(apiError(500, 'boom', true, { responseHeaders: h })).providerRequestId;
    expect(id({ 'x-goog-request-id': 'g1' })).toBe('g1');
    expect(id({ 'apim-request-id': 'a1' })).toBe('a1');
    expect(id({ 'x-amzn-requestid': 'w1' })).toBe('w1');
    expect(id({ 'x-request-id': '', 'request-id': 'second' })).toBe('second');
    expect(id({ 'x-request-id': 'r'.repeat(300) })).toBe('r'.repeat(200));
  });

  it('anything else is a non-retryable upstream error with a bounded message', () => {
    const r = classifyError(new Error('x'.repeat(2000)));
    expect(r).toMatchObject({ code: 'upstream_error', retryable: false });
    expect(r.message.length).toBeLessThanOrEqual(500);
    expect(classifyError('text part 1 not found')).toMatchObject({ code: 'upstream_error', message: 'text part 1 not found' });
  });
});
