import type { Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config/config.js';
import { PROBLEM_MEDIA_TYPE, problemBody } from './problem.js';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * Bounds on slow clients for `node:http`: headers within `headersTimeoutMs`, the whole request within
 * `bodyTimeoutMs` (Node's defaults, 60 s and 300 s, let one trickling connection hold a slot for minutes).
 * Node checks these only every `connectionsCheckingInterval` (30 s by default), so that is tightened too.
 */
export function httpServerOptions(config: Pick<Config, 'headersTimeoutMs' | 'bodyTimeoutMs'>): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
  };
}

/** What Node reports for a request it could not take, and what the client is told. */
const CLIENT_ERRORS: Record<string, [status: number, reason: string, detail: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large.'],
};

/**
 * Answers requests Node refuses before the app sees them (a timeout, oversized or malformed headers) with a
 * problem instead of Node's bare status line, with the security headers, and closes the connection.
 */
export function answerClientErrors(server: unknown): void {
  (server as Server).on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const code = err.code ?? '';
    const known = CLIENT_ERRORS[code];
    // A response already under way (or a connection already gone) can only be closed.
    const httpMessage = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || httpMessage?.headersSent || code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason, detail] = known ?? [400, 'Bad Request', 'The request could not be parsed as HTTP/1.1.'];
    const problemCode = status === 408 ? 'request_timeout' : status === 431 ? 'headers_too_large' : 'malformed_body';
    const body = JSON.stringify(problemBody(status, problemCode, { detail }));
    const headers = {
      'content-type': PROBLEM_MEDIA_TYPE,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
      'cache-control': 'no-store',
      ...SECURITY_HEADERS,
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${head}\r\n${body}`);
  });
}
