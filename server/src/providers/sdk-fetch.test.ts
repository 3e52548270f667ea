import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { type SdkRequestPlan, StreamHandedOver, sdkFetch } from './sdk-fetch.js';
import { Transport } from './transport.js';

describe('sdkFetch', () => {
  const sse = (status = 200, type = 'text/event-stream') =>
    new Response('data: [DONE]\n\n', { status, headers: { 'content-type': type, 'x-request-id': 'req_1' } });
  const post = (body: string) => ({ method: 'POST', body, signal: new AbortController().signal });

  it('take: the event stream goes to the plan, and the SDK gets the status and headers with an empty body', async () => {
    const plan: SdkRequestPlan = { mode: 'take' };
    const fetched = await sdkFetch(plan, new Transport(async () => sse()))(
      'http://p/v1/chat/completions',
      post('{"stream":true}'),
    );
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('x-request-id')).toBe('req_1');
    expect(await fetched.text()).toBe('');
    const read = await plan.stream!.body.read();
    expect(new TextDecoder().decode(read.value)).toBe('data: [DONE]\n\n');
    expect(plan.stream!.headers['x-request-id']).toBe('req_1');
  });

  it('handover: the event stream goes to the plan, and the SDK is stopped with StreamHandedOver', async () => {
    const plan: SdkRequestPlan = { mode: 'handover' };
    await expect(sdkFetch(plan, new Transport(async () => sse()))('http://p', post('{}'))).rejects.toBeInstanceOf(
      StreamHandedOver,
    );
    expect(new TextDecoder().decode((await plan.stream!.body.read()).value)).toBe('data: [DONE]\n\n');
  });

  it('leaves HTTP errors, JSON bodies and requests with tools to the SDK, as the transport does every request of a model called directly', async () => {
    const direct = await new Transport(async () => sse()).fetch('http://p', { method: 'POST', body: '{}' });
    expect(await direct.text()).toBe('data: [DONE]\n\n');

    for (const [response, body] of [
      [sse(500), '{}'],
      [sse(200, 'application/json'), '{}'],
      [sse(), '{"tools":[],"tool_choice":{"type":"tool","name":"json"}}'],
      // Anthropic without a tool choice, and Gemini's function declarations.
      [sse(), '{"model":"m","tools":[{"name":"f","input_schema":{}}]}'],
      [sse(), '{"contents":[],"tools":[{"functionDeclarations":[{"name":"f"}]}]}'],
    ] as const) {
      const plan: SdkRequestPlan = { mode: 'handover' };
      const fetched = await sdkFetch(plan, new Transport(async () => response))('http://p', post(body));
      expect(plan.stream).toBeUndefined();
      expect(await fetched.text()).toBe('data: [DONE]\n\n');
    }
  });

  it('passes network errors through, for the SDK to wrap', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const transport = new Transport(async () => {
      throw refused;
    });
    await expect(sdkFetch({ mode: 'take' }, transport)('http://p', post('{}'))).rejects.toBe(refused);
    expect(APICallError.isInstance(refused)).toBe(false);
  });

  it('capture: the request is recorded instead of sent, and answered with an empty event stream', async () => {
    const plan: SdkRequestPlan = { mode: 'capture' };
    const sent: string[] = [];
    const transport = new Transport(async (input) => {
      sent.push(String(input));
      return sse();
    });
    const fetched = await sdkFetch(plan, transport)('http://p/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: '{"a":1}',
    });
    expect(sent).toEqual([]);
    expect(plan.request).toEqual({ url: 'http://p/v1/messages', method: 'POST', headers: { 'x-api-key': 'k' }, body: '{"a":1}' });
    expect(fetched.headers.get('content-type')).toBe('text/event-stream');
    expect(await fetched.text()).toBe('');
  });

  it('replay: the request gets what an earlier one got, once, without being sent', async () => {
    let sent = 0;
    const transport = new Transport(async () => {
      sent++;
      return sse();
    });
    const earlier = new Response('{"error":{}}', { status: 429 });
    expect(await sdkFetch({ mode: 'replay', answer: { response: earlier } }, transport)('http://p', post('{}'))).toBe(earlier);
    const refused = new Error('connect ECONNREFUSED');
    const fetch = sdkFetch({ mode: 'replay', answer: { error: refused } }, transport);
    await expect(fetch('http://p', post('{}'))).rejects.toBe(refused);
    expect(sent).toBe(0);
    await fetch('http://p', post('{}'));
    expect(sent).toBe(1);
  });
});
