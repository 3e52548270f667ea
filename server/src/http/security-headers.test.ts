import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { rawRequest } from '../../../test/support/raw-http.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { CONTENT_SECURITY_POLICY, isPublicPath, SECURITY_HEADERS, securityHeaders } from './security-headers.js';

let server: RunningServer;
let sessionId: string;
beforeFirstTest(async () => {
  server = await startServer();
  const res = await server.fetch(`/consilium`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Headers?' }),
  });
  sessionId = ((await res.json()) as { sessionId: string }).sessionId;
});
afterAll(() => server?.close());

const json = { 'content-type': 'application/json' };

function expectSecurityHeaders(headers: Headers, what: string, cache: 'no-store' | 'no-cache'): void {
  expect(headers.get('content-security-policy'), what).toBe(CONTENT_SECURITY_POLICY);
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(headers.get('x-frame-options'), what).toBe('DENY');
  expect(headers.get('referrer-policy'), what).toBe('no-referrer');
  expect(headers.get('cache-control'), what).toBe(cache);
}

describe('security headers', () => {
  it('the CSP is the strict one: no inline script, nothing from elsewhere, never framed', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe/);
  });

  it('are on every kind of response; only health and the contract may be cached', async () => {
    const cases: [string, RequestInit, number, 'no-store' | 'no-cache'][] = [
      ['/health', {}, 200, 'no-cache'],
      ['/openapi.json', {}, 200, 'no-cache'],
      ['/providers', {}, 200, 'no-store'],
      ['/sessions', {}, 200, 'no-store'],
      [`/sessions/${sessionId}`, {}, 200, 'no-store'],
      [`/sessions/${sessionId}/export/markdown`, {}, 200, 'no-store'],
      [`/sessions/${sessionId}/events`, {}, 200, 'no-store'],
      ['/sessions/ses_000000000000', {}, 404, 'no-store'],
      ['/nope', {}, 404, 'no-store'],
      ['/consilium', { method: 'POST', headers: json, body: '{"question":' }, 400, 'no-store'],
      ['/consilium', { method: 'POST', headers: json, body: '{}' }, 400, 'no-store'],
      ['/consilium', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }, 415, 'no-store'],
      ['/consilium', { method: 'POST', headers: json, body: JSON.stringify({ question: 'Q?' }) }, 200, 'no-store'],
      ['/auth/me', {}, 200, 'no-store'],
      ['/auth/me', { headers: { authorization: 'Bearer csk_revoked' } }, 401, 'no-store'],
    ];
    for (const [path, init, status, cache] of cases) {
      const res = await server.fetch(`${path}`, init);
      await res.arrayBuffer();
      const what = `${init.method ?? 'GET'} ${path}`;
      expect(res.status, what).toBe(status);
      expectSecurityHeaders(res.headers, what, cache);
    }
  });

  it('are on an event stream before its first event', async () => {
    const res = await server.fetch(`/consilium/deep/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ question: 'Stream?', rounds: 2 }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectSecurityHeaders(res.headers, 'stream', 'no-store');
    await res.text();
  });

  it('are on a refused Host', async () => {
    const res = await rawRequest(`${server.baseUrl}/health`, { headers: { host: 'evil.example' } });
    expect(res.status).toBe(421);
    expectSecurityHeaders(new Headers(res.headers as Record<string, string>), '421', 'no-cache');
  });

  it('public paths are only those that carry nobody data', () => {
    for (const p of ['/health', '/openapi.json', '/', '/index.html', '/favicon.ico', '/assets/app.js', '/docs/', '/docs/api/x'])
      expect(isPublicPath(p), p).toBe(true);
    for (const p of [
      '/sessions',
      '/providers',
      '/auth/me',
      '/healthz',
      '/openapi.json/x',
      '/index.htm',
      '/favicon.svg',
      '/assets',
      '/x/assets/a',
      '/docs',
      '/x/docs/a',
    ])
      expect(isPublicPath(p), p).toBe(false);
  });
});

describe('securityHeaders on its own', () => {
  /** The headers of a response to `path` whose handler set `cacheControl` (if any). */
  async function headersFor(path: string, cacheControl?: string, isPublic?: (path: string) => boolean) {
    const app = new Hono();
    app.use(isPublic ? securityHeaders(isPublic) : securityHeaders());
    app.get('*', (c) => {
      if (cacheControl) c.header('cache-control', cacheControl);
      c.header('x-frame-options', 'SAMEORIGIN');
      return c.text('ok');
    });
    return (await app.request(`http://localhost${path}`)).headers;
  }

  it('sets every header of the table, over what a handler said', async () => {
    const headers = await headersFor('/sessions');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headers.get(name), name).toBe(value);
    expect(SECURITY_HEADERS).toEqual({
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
    });
  });

  it('a public path keeps its handler’s Cache-Control (else no-cache); any other is no-store whatever it said', async () => {
    expect((await headersFor('/assets/app.js', 'public, max-age=31536000, immutable')).get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
    expect((await headersFor('/assets/app.js')).get('cache-control')).toBe('no-cache');
    expect((await headersFor('/sessions', 'public, max-age=60')).get('cache-control')).toBe('no-store');
    expect((await headersFor('/sessions', 'public, max-age=60', () => true)).get('cache-control')).toBe('public, max-age=60');
    expect((await headersFor('/health', undefined, () => false)).get('cache-control')).toBe('no-store');
  });
});
