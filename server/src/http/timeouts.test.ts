import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { httpServerOptions } from './timeouts.js';

const HEADERS_MS = 600;
const BODY_MS = 1500;
/** Generous: the server must have answered well before a trickle this long would end on its own. */
const TRICKLE_FOR_MS = 20_000;

let server: RunningServer;
let port: number;
beforeAll(async () => {
  server = await startServer({ CONSILIUM_HEADERS_TIMEOUT_MS: String(HEADERS_MS), CONSILIUM_BODY_TIMEOUT_MS: String(BODY_MS) });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(() => server.close());

interface Outcome {
  response: string;
  ms: number;
}

/** Opens a socket, sends `head`, then one byte of `trickle` every 100 ms until the server ends the connection. */
async function trickle(head: string, drip: string): Promise<Outcome> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = Date.now();
  let response = '';
  socket.on('data', (d: Buffer) => {
    response += d.toString('utf8');
  });
  socket.on('error', () => {});
  socket.write(head);
  let i = 0;
  const timer = setInterval(() => {
    if (socket.writable && i < drip.length) socket.write(drip[i++]!);
  }, 100);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, TRICKLE_FOR_MS));
  await Promise.race([ended, gaveUp]);
  clearInterval(timer);
  socket.destroy();
  return { response, ms: Date.now() - started };
}

function expectProblem(outcome: Outcome, status: number, code: string): void {
  const [head = '', body = ''] = outcome.response.split('\r\n\r\n');
  expect(head, outcome.response).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
  expect(head).toMatch(/\r\nconnection: close\r\n/i);
  expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
  expect(JSON.parse(body)).toMatchObject({ status, code });
}

describe('slow clients', () => {
  it('a client trickling its headers gets 408 request_timeout and the connection is closed', async () => {
    const outcome = await trickle(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`, 'x-slow: '.padEnd(500, 'a'));
    expectProblem(outcome, 408, 'request_timeout');
    expect(outcome.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(outcome.ms).toBeLessThan(TRICKLE_FOR_MS);
  });

  it('a client trickling its body gets 408 request_timeout and the connection is closed', async () => {
    const body = JSON.stringify({ question: 'slow '.repeat(100) });
    const head = `POST /consilium HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${server.token}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    const outcome = await trickle(head, body);
    expectProblem(outcome, 408, 'request_timeout');
    expect(outcome.ms).toBeGreaterThanOrEqual(BODY_MS - 50);
    expect(outcome.ms).toBeLessThan(TRICKLE_FOR_MS);
    // Nothing was started from the half-sent body.
    const list = await (await server.fetch(`/sessions`)).json();
    expect(list.items).toEqual([]);
  });

  it('headers too large get a 431 problem, and garbage a 400 problem', async () => {
    const big = await trickle(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, '');
    expectProblem(big, 431, 'headers_too_large');
    const garbage = await trickle('NOT HTTP AT ALL\r\n\r\n', '');
    expectProblem(garbage, 400, 'malformed_body');
  });

  it('a client that sends in time is served, and a keep-alive connection idle between requests is not a timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let data = '';
    socket.on('data', (d: Buffer) => {
      data += d.toString('utf8');
    });
    const request = `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`;
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, HEADERS_MS / 2));
    socket.write(request);
    // Until both answers are in (or the server hangs up): no fixed wait, which a loaded machine outlasts.
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const both = (async () => {
      while ((data.match(/HTTP\/1\.1 200 OK/g) ?? []).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    })();
    await Promise.race([both, closed]);
    socket.destroy();
    expect(data.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });

  it('the defaults: 10 s for headers, 30 s for the whole request, checked at least every second', () => {
    expect(httpServerOptions({ headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000 })).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1000,
    });
  });
});
