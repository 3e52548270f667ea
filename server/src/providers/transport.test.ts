import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { claimStream, releaseStream, StreamHandedOver, takeStreams } from './transport.js';

describe('takeStreams', () => {
  const sse = (status = 200, type = 'text/event-stream') =>
    new Response('data: [DONE]\n\n', { status, headers: { 'content-type': type, 'x-request-id': 'req_1' } });

  it('hands a claimed event stream to the claim and gives the SDK the status and headers with an empty body', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    const fetched = await takeStreams(async () => sse())('http://p/v1/chat/completions', {
      method: 'POST',
      body: '{"stream":true}',
      signal: controller.signal,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('x-request-id')).toBe('req_1');
    expect(await fetched.text()).toBe('');
    const read = await claim.body!.read();
    expect(new TextDecoder().decode(read.value)).toBe('data: [DONE]\n\n');
    expect(claim.headers?.['x-request-id']).toBe('req_1');
    releaseStream(controller.signal);
  });

  it('leaves unclaimed requests, HTTP errors, JSON bodies and requests with tools to the SDK', async () => {
    const controller = new AbortController();
    const unclaimed = await takeStreams(async () => sse())('http://p', { signal: controller.signal });
    expect(await unclaimed.text()).toBe('data: [DONE]\n\n');

    for (const [response, body] of [
      [sse(500), '{}'],
      [sse(200, 'application/json'), '{}'],
      [sse(), '{"tools":[],"tool_choice":{"type":"tool","name":"json"}}'],
      // Anthropic without a tool choice, and Gemini's function declarations.
      [sse(), '{"model":"m","tools":[{"name":"f","input_schema":{}}]}'],
      [sse(), '{"contents":[],"tools":[{"functionDeclarations":[{"name":"f"}]}]}'],
    ] as const) {
      const claim = claimStream(controller.signal);
      const fetched = await takeStreams(async () => response)('http://p', { method: 'POST', body, signal: controller.signal });
      expect(claim.body).toBeUndefined();
      expect(await fetched.text()).toBe('data: [DONE]\n\n');
    }
    releaseStream(controller.signal);
    const released = await takeStreams(async () => sse())('http://p', { signal: controller.signal });
    expect(await released.text()).toBe('data: [DONE]\n\n');
  });

  it('passes network errors through, for the SDK to wrap', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const controller = new AbortController();
    claimStream(controller.signal);
    await expect(
      takeStreams(async () => {
        throw refused;
      })('http://p', { signal: controller.signal }),
    ).rejects.toBe(refused);
    expect(APICallError.isInstance(refused)).toBe(false);
  });

  it('a capture claim records the request instead of sending it, and answers with an empty event stream', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    claim.capture = {};
    const sent: string[] = [];
    const fetched = await takeStreams(async (input) => {
      sent.push(String(input));
      return sse();
    })('http://p/v1/messages', { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{"a":1}', signal: controller.signal });
    expect(sent).toEqual([]);
    expect(claim.capture.request).toEqual({
      url: 'http://p/v1/messages',
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: '{"a":1}',
    });
    expect(fetched.headers.get('content-type')).toBe('text/event-stream');
    expect(await fetched.text()).toBe('');
    releaseStream(controller.signal);
  });

  it('a replay claim answers the next request with what an earlier one got, once, without sending it', async () => {
    const controller = new AbortController();
    const claim = claimStream(controller.signal);
    let sent = 0;
    const fetch = takeStreams(async () => {
      sent++;
      return sse();
    });
    const earlier = new Response('{"error":{}}', { status: 429 });
    claim.replay = { response: earlier };
    expect(await fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal })).toBe(earlier);
    const refused = new Error('connect ECONNREFUSED');
    claim.replay = { error: refused };
    await expect(fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal })).rejects.toBe(refused);
    expect(sent).toBe(0);
    await fetch('http://p', { method: 'POST', body: '{}', signal: controller.signal });
    expect(sent).toBe(1);
    releaseStream(controller.signal);
  });

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
      const claim = claimStream(controller.signal, true);
      await expect(takeStreams()(url, { method: 'POST', body: '{}', signal: controller.signal })).rejects.toBeInstanceOf(
        StreamHandedOver,
      );
      expect((await claim.body!.read()).done).toBe(false);
      const next = claim.body!.read();
      controller.abort();
      // Nothing cancels the body here: the abort alone ends the request.
      await expect(next).rejects.toMatchObject({ code: 'ECONNRESET' });
      await serverSawClose;
      releaseStream(controller.signal);

      const early = new AbortController();
      early.abort();
      claimStream(early.signal, true);
      await expect(takeStreams()(url, { method: 'POST', body: '{}', signal: early.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(requests).toBe(1);
      releaseStream(early.signal);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
