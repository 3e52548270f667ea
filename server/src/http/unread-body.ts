import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';

/**
 * A response to a request whose body was not read to its end (refused before reading: 413, 415, 421, an unknown
 * path, a `DELETE` with a body) says `Connection: close`. Otherwise it would advertise keep-alive while
 * @hono/node-server drains the rest for at most 500 ms and then destroys the socket, so the client's next
 * request on it fails with ECONNRESET. Draining instead would let any client make the server read a body it
 * has already refused.
 */
export function closeOnUnreadBody(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    if (!incoming || incoming.readableEnded) return;
    const length = c.req.header('content-length');
    const hasBody = c.req.header('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
    if (hasBody) c.res.headers.set('connection', 'close');
  };
}
