import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { rawRequest } from '../../../test/support/raw-http.js';
import { limitBody } from './body-limit.js';

const LIMIT = 1000;

/** Whether @hono/node-server built a web `Request` for this request (its lightweight one keeps it under this symbol). */
const builtWebRequest = (raw: Request) => {
  const cache = Object.getOwnPropertySymbols(raw).find((s) => s.description === 'requestCache');
  return cache !== undefined && (raw as unknown as Record<symbol, unknown>)[cache] !== undefined;
};

function app() {
  const a = new Hono();
  a.use(limitBody(LIMIT, (c) => c.json({ refused: true }, 413)));
  a.post('/echo', async (c) => {
    const body = (await c.req.json()) as { text: string };
    return c.json({ length: body.text.length, webRequest: builtWebRequest(c.req.raw) });
  });
  a.get('/peek', (c) => c.json({ webRequest: builtWebRequest(c.req.raw) }));
  return a;
}

let server: ServerType;
let base: string;
beforeFirstTest(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app().fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const json = (text: string) => JSON.stringify({ text });

describe('limitBody over node:http', () => {
  it('a declared length within the limit is read straight from the socket, with no web Request built', async () => {
    const res = await rawRequest(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json('abc'),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ length: 3, webRequest: false });
    const get = await rawRequest(`${base}/peek`);
    expect(JSON.parse(get.body)).toEqual({ webRequest: false });
  });

  it('a body of exactly the limit is read; a declared length one byte over is refused unread', async () => {
    const exactly = json('x'.repeat(LIMIT - json('').length));
    expect(Buffer.byteLength(exactly)).toBe(LIMIT);
    const read = await rawRequest(`${base}/echo`, { method: 'POST', body: exactly });
    expect(read.status).toBe(200);
    const over = await rawRequest(`${base}/echo`, { method: 'POST', body: `${exactly} ` });
    expect(over.status).toBe(413);
  });

  it('a chunked body is counted as it is read: within the limit it is read, over it → 413 with Connection: close', async () => {
    const chunked = (text: string) =>
      fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Blob([text]).stream(),
        duplex: 'half',
      } as RequestInit);
    const small = await chunked(json('abc'));
    expect(small.status).toBe(200);
    expect(((await small.json()) as { length: number }).length).toBe(3);
    const big = await chunked(json('x'.repeat(2 * LIMIT)));
    expect(big.status).toBe(413);
    expect(big.headers.get('connection')).toBe('close');
  });
});

describe('limitBody without the Node adapter (app.request)', () => {
  it('counts a body whose length is not declared, and refuses one over the limit', async () => {
    const send = (text: string) =>
      app().request('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect((await send(json('abc'))).status).toBe(200);
    const over = await send(json('x'.repeat(2 * LIMIT)));
    expect(over.status).toBe(413);
    expect(over.headers.get('connection')).toBe('close');
  });
});
