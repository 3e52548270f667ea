import { Agent } from 'node:http';
import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { rawRequest } from '../../../test/support/raw-http.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { MAX_BODY_BYTES } from './app.js';
import { closeOnUnreadBody } from './unread-body.js';

let server: RunningServer;
let port: number;
beforeFirstTest(async () => {
  server = await startServer();
  port = Number(new URL(server.baseUrl).port);
});
afterAll(() => server?.close());

/** Longer than @hono/node-server's 500 ms drain, after which it destroys a socket whose body was not read. */
const PAST_DRAIN_MS = 700;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const big = 'x'.repeat(900_000);
const json = { 'content-type': 'application/json' };

describe('a body refused before it is read', () => {
  const refused: [string, string, string, Record<string, string>, string, number][] = [
    ['415', 'POST', '/consilium', { 'content-type': 'text/plain' }, big, 415],
    ['unknown path', 'POST', '/nope', json, big, 404],
    ['DELETE with a body', 'DELETE', '/sessions/ses_000000000000', json, big, 404],
    ['GET with a body', 'GET', '/sessions', json, big, 200],
    ['wrong Host', 'POST', '/consilium', { ...json, host: 'evil.example' }, big, 421],
    ['413', 'POST', '/consilium', json, 'x'.repeat(MAX_BODY_BYTES + 1), 413],
  ];

  it.each(refused)(
    '%s: answers Connection: close, and the next request on a keep-alive agent succeeds',
    async (_, method, path, headers, body, status) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await rawRequest(`${server.baseUrl}${path}`, {
          method,
          headers: { ...server.headers, ...headers },
          body,
          agent,
        });
        expect(first.status).toBe(status);
        expect(first.headers.connection).toBe('close');
        await sleep(PAST_DRAIN_MS);
        const second = await rawRequest(`${server.baseUrl}/health`, { agent });
        expect(second.status).toBe(200);
      } finally {
        agent.destroy();
      }
    },
  );

  it('a body that was read keeps the connection alive', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const init = { method: 'POST', headers: { ...json, ...server.headers }, agent };
      for (const body of ['{"question":', '{}', JSON.stringify({ question: '' })]) {
        const res = await rawRequest(`${server.baseUrl}/consilium`, { ...init, body });
        expect(res.status).toBe(400);
        expect(res.headers.connection).toBe('keep-alive');
      }
    } finally {
      agent.destroy();
    }
  });

  it('a client still sending its body learns from Connection: close that the socket ends with this response', async () => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /consilium HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${server.token}\r\ncontent-type: text/plain\r\ncontent-length: 100000\r\n\r\nxx`,
    );
    await closed;
    expect(data).toMatch(/^HTTP\/1\.1 415 /);
    expect(data).toMatch(/\r\nconnection: close\r\n/i);
  });
});

describe('closeOnUnreadBody on its own', () => {
  /** The `Connection` header answered to a request with `headers`, whose body the server has read to its end or not. */
  async function connection(headers: Record<string, string>, incoming?: { readableEnded: boolean }) {
    const app = new Hono();
    app.use(closeOnUnreadBody());
    app.all('*', (c) => c.text('ok'));
    const res = await app.request('http://localhost/x', { method: 'POST', headers }, incoming && { incoming });
    expect(`${res.status} ${await res.text()}`).toBe('200 ok');
    return res.headers.get('connection');
  }
  const unread = { readableEnded: false };

  it('closes when a declared body was left unread', async () => {
    expect(await connection({ 'content-length': '5' }, unread)).toBe('close');
    expect(await connection({ 'transfer-encoding': 'chunked' }, unread)).toBe('close');
    expect(await connection({ 'content-length': ' 10 ' }, unread)).toBe('close');
  });

  it('leaves it alone when there was no body, it was read, or the request came from no socket', async () => {
    expect(await connection({}, unread)).toBeNull();
    expect(await connection({ 'content-length': '0' }, unread)).toBeNull();
    expect(await connection({ 'content-length': '5' }, { readableEnded: true })).toBeNull();
    expect(await connection({ 'transfer-encoding': 'chunked' }, { readableEnded: true })).toBeNull();
    expect(await connection({ 'content-length': '5' })).toBeNull();
  });
});
