import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * Refuses request bodies over `maxBytes` with `tooLarge`, before they are parsed.
 *
 * A declared length is checked from the header alone. On @hono/node-server the body is then left
 * untouched, for two reasons: reading `c.req.raw.body` (as Hono's `bodyLimit` does on every request)
 * builds a web `Request` around the socket, which costs the main thread more per POST than the rest
 * of the way to a debate's first provider call (bench/README.md, providers); and its web stream's
 * backpressure pauses the socket, so an unread rest is never drained and the keep-alive connection is
 * dropped ~500 ms later. The adapter's own `text()` then reads the body straight from the socket.
 *
 * Only a body of undeclared length (chunked) is counted as it is read, by Hono's `bodyLimit`; one
 * over the limit is then part-read and not drained, so its connection cannot be reused: `Connection: close`.
 * Requests that do not come through the Node adapter (`app.request` in tests) take that path too.
 */
export function limitBody(maxBytes: number, tooLarge: (c: Context) => Response): MiddlewareHandler {
  const counted = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('connection', 'close');
      return tooLarge(c);
    },
  });
  return async (c, next) => {
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length !== undefined && !chunked && Number(length) > maxBytes) return tooLarge(c);
    // Over HTTP/1.1 a request with neither header has no body at all.
    if (!chunked && (c.env as Partial<HttpBindings> | undefined)?.incoming) return next();
    return counted(c, next);
  };
}
