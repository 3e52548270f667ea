import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type EventStream, Transport } from './transport.js';

describe('Transport', () => {
  it('over node:http, aborting the signal mid-stream closes the connection; a signal aborted before sends nothing', async () => {
    let requests = 0;
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => {
      closed = r;
    });
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n');
      res.on('close', closed);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    try {
      const controller = new AbortController();
      const stream = (await new Transport().send(url, { method: 'POST', body: '{}', signal: controller.signal })) as EventStream;
      expect(stream).not.toBeInstanceOf(Response);
      expect((await stream.body.read()).done).toBe(false);
      const next = stream.body.read();
      controller.abort();
      // Nothing cancels the body here: the abort alone ends the request.
      await expect(next).rejects.toMatchObject({ code: 'ECONNRESET' });
      await serverSawClose;

      const early = new AbortController();
      early.abort();
      await expect(new Transport().send(url, { method: 'POST', body: '{}', signal: early.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
