import type { MiddlewareHandler } from 'hono';

/** No inline script or style, nothing from elsewhere, never framed: pages the service serves must work under it. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The SDK reference at `/docs/sdk/` is typedoc's static output, whose script adds `<style>` elements (its member
 * filters): there, and only there, inline styles are allowed. Scripts stay same-origin files.
 */
export const SDK_REFERENCE_POLICY = CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

/** Sent on every response the app makes. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Responses that carry nobody's data, so a cache may keep them (revalidating): health, the contract, and the
 * web UI's static files. Everything else (sessions, events, exports, providers, auth, every problem from those
 * routes) is `no-store`, whatever its handler said.
 */
export function isPublicPath(path: string): boolean {
  return (
    path === '/health' ||
    path === '/openapi.json' ||
    path === '/' ||
    path === '/index.html' ||
    path === '/favicon.ico' ||
    path.startsWith('/assets/') ||
    path.startsWith('/docs/')
  );
}

/** Security headers and `Cache-Control` on every response, problems and event streams included. */
export function securityHeaders(isPublic: (path: string) => boolean = isPublicPath): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
    if (c.req.path.startsWith('/docs/sdk/')) headers.set('content-security-policy', SDK_REFERENCE_POLICY);
    if (!isPublic(c.req.path)) headers.set('cache-control', 'no-store');
    else if (!headers.has('cache-control')) headers.set('cache-control', 'no-cache');
  };
}
