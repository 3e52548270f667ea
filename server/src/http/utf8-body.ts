/**
 * Refuses a JSON body that is not valid UTF-8 (400 `validation_failed`, field code `invalid_text`), before it is
 * parsed: a lenient decoder would turn each bad byte into U+FFFD and store text the client never sent, which the
 * service refuses for NUL and lone surrogates too (`unstorable-text.ts`). The bytes read are kept by Hono, so the
 * validator parses them without reading the body again. Only an operation that takes a body has its body read: any
 * other request's is refused unread (`unread-body.ts`).
 */
import type { MiddlewareHandler } from 'hono';
import { routes } from '../generated/routes.js';
import { compileSecurity, findOperation } from './auth.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;
const strict = new TextDecoder('utf-8', { fatal: true });

/** The offset of the first byte that breaks UTF-8, or undefined when `bytes` is valid. */
function invalidUtf8At(bytes: Uint8Array): number | undefined {
  try {
    strict.decode(bytes);
    return undefined;
  } catch {
    // Rare (an error path): find the offset by decoding ever longer valid prefixes.
    let lo = 0;
    let hi = bytes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid + 1), { stream: true });
        lo = mid + 1;
      } catch {
        hi = mid;
      }
    }
    return lo;
  }
}

export function requireUtf8Json(): MiddlewareHandler<AppEnv> {
  const operations = compileSecurity();
  const takesBody = (method: string, path: string) => {
    const operation = findOperation(operations, method, path);
    return (
      operation !== undefined &&
      (routes[operation.operationId as keyof typeof routes] as { request?: { body?: unknown } }).request?.body !== undefined
    );
  };
  return async (c, next) => {
    if (!JSON_TYPE.test(c.req.header('content-type') ?? '') || !takesBody(c.req.method, c.req.path)) return next();
    const at = invalidUtf8At(new Uint8Array(await c.req.arrayBuffer()));
    if (at === undefined) return next();
    const message = `Not valid UTF-8 at byte ${at}: send the text as UTF-8; it is not stored with the bad bytes replaced.`;
    return problem(c, 400, 'validation_failed', {
      detail: '1 field is invalid.',
      errors: [{ path: 'body', message, code: 'invalid_text' }],
    });
  };
}
