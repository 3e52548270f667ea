/**
 * The OpenAI-compatible surface through the official `openai` client against a real server on loopback (offline
 * models): the model list, a completion non-streamed and streamed, a conversation that becomes a follow-up, the
 * errors in OpenAI's shape, and a client that goes away mid-stream cancelling the run.
 */
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../../test/support/server.js';

let server: RunningServer;
let openai: OpenAI;
beforeAll(async () => {
  server = await startServer();
  openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: server.token, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

interface ConsiliumField {
  session_id: string;
  url: string;
  status: string;
  mode: string;
  actions?: unknown;
  dissent: unknown[];
}
const consiliumOf = (value: unknown) => (value as { consilium: ConsiliumField }).consilium;

const session = async (id: string) =>
  (await (await server.fetch(`/sessions/${id}`)).json()) as {
    id: string;
    status: string;
    mode: string;
    parentId?: string;
    verdict?: { answer?: string; dissent: unknown[] };
    usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  };

describe('models', () => {
  it('lists the council modes and every slot', async () => {
    const ids = [];
    for await (const model of openai.models.list()) {
      expect(model.object).toBe('model');
      ids.push(model.id);
    }
    const slots = server.config.slots.map((s) => `consilium/slot-${s.slot}`);
    expect(ids).toEqual([
      'consilium/deep',
      'consilium/deep-2',
      'consilium/deep-3',
      'consilium/deep-4',
      'consilium/deep-5',
      'consilium/parallel',
      ...slots,
    ]);
  });
});

describe('a completion', () => {
  it('non-streamed: the verdict is the content, with usage and the session in the extension field and the history', async () => {
    const completion = await openai.chat.completions.create({
      model: 'consilium/deep-2',
      messages: [{ role: 'user', content: 'Monolith or services for a team of five?' }],
    });
    expect(completion.object).toBe('chat.completion');
    const field = consiliumOf(completion);
    const stored = await session(field.session_id);
    expect(stored.status).toBe('completed');
    expect(stored.mode).toBe('deep');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message.content).toBe(stored.verdict!.answer);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({
      prompt_tokens: stored.usage.inputTokens,
      completion_tokens: stored.usage.outputTokens,
      total_tokens: stored.usage.totalTokens,
    });
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    expect(field.url).toBe(`${server.baseUrl}/#/sessions/${stored.id}`);
    expect(field.dissent).toEqual(stored.verdict!.dissent);
    expect(field.actions).toBeDefined();
    const history = (await (await server.fetch('/sessions')).json()) as { items: { id: string }[] };
    expect(history.items.map((s) => s.id)).toContain(stored.id);
  });

  it('streamed: the rounds as reasoning_content, then the verdict as content, usage, and [DONE]', async () => {
    const stream = await openai.chat.completions.create({
      model: 'consilium/deep',
      messages: [{ role: 'user', content: 'Tabs or spaces?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    let content = '';
    let contentBeforeReasoning = false;
    let usage: OpenAI.CompletionUsage | undefined | null;
    let field: ConsiliumField | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      if (chunk.usage) usage = chunk.usage;
      if ('consilium' in chunk) field = consiliumOf(chunk);
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        if (content) contentBeforeReasoning = true;
        reasoning += delta.reasoning_content;
      }
      if (delta?.content) content += delta.content;
    }
    expect(reasoning).toContain('## Round 1');
    expect(reasoning).toContain('**Slot 1:**');
    expect(contentBeforeReasoning).toBe(false);
    const stored = await session(field!.session_id);
    expect(content).toBe(stored.verdict!.answer);
    expect(usage?.total_tokens).toBe(stored.usage.totalTokens);
  });

  it('streamed over raw HTTP: the body ends with data: [DONE]', async () => {
    const response = await server.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'consilium/slot-1', stream: true, messages: [{ role: 'user', content: 'One word?' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // Without include_usage, no usage chunk.
    expect(text).not.toContain('"usage"');
  });
});

describe('a conversation', () => {
  it('a later turn continues the session as a follow-up', async () => {
    const question = 'Should we adopt Rust?';
    const first = await openai.chat.completions.create({
      model: 'consilium/deep-2',
      messages: [
        { role: 'system', content: 'Answer for a small team.' },
        { role: 'user', content: question },
      ],
    });
    const firstId = consiliumOf(first).session_id;
    // The client resends the history, as chat UIs do, without the extension field.
    const second = await openai.chat.completions.create({
      model: 'consilium/deep-2',
      messages: [
        { role: 'system', content: 'Answer for a small team.' },
        { role: 'user', content: question },
        { role: 'assistant', content: first.choices[0]!.message.content ?? '' },
        { role: 'user', content: 'And for a large one?' },
      ],
    });
    const secondId = consiliumOf(second).session_id;
    expect(secondId).not.toBe(firstId);
    expect((await session(secondId)).parentId).toBe(firstId);
  });
});

/** The error the client throws, as OpenAI's shape. */
const refusal = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(APIError);
    return error as APIError;
  }
  throw new Error('the call succeeded');
};

describe('errors, in OpenAI’s shape', () => {
  const ask = { model: 'consilium/deep', messages: [{ role: 'user' as const, content: 'Why?' }] };

  it('401 for a bad token', async () => {
    const stranger = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'not-a-token', maxRetries: 0 });
    const error = await refusal(stranger.models.list());
    expect(error.status).toBe(401);
    expect(error.type).toBe('authentication_error');
    expect(typeof error.message).toBe('string');
  });

  it('401 without a token on the completions too', async () => {
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask),
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { type: string; message: string; code: unknown; param: unknown } };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(body.error.type).toBe('authentication_error');
  });

  it('413 for a body over the limit', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const error = await refusal(openai.chat.completions.create({ ...ask, messages: [{ role: 'user', content: huge }] }));
    expect(error.status).toBe(413);
    expect(error.code).toBe('payload_too_large');
    expect(error.type).toBe('invalid_request_error');
  });

  it('404 model_not_found', async () => {
    const error = await refusal(openai.chat.completions.create({ ...ask, model: 'gpt-4o' }));
    expect(error.status).toBe(404);
    expect(error.code).toBe('model_not_found');
    expect(error.param).toBe('model');
  });

  it('400 for n > 1, tools and image content, naming the parameter', async () => {
    const many = await refusal(openai.chat.completions.create({ ...ask, n: 2 }));
    expect([many.status, many.param, many.type]).toEqual([400, 'n', 'invalid_request_error']);
    const tools = await refusal(
      openai.chat.completions.create({
        ...ask,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      }),
    );
    expect([tools.status, tools.param]).toEqual([400, 'tools']);
    const image = await refusal(
      openai.chat.completions.create({
        ...ask,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
        ],
      }),
    );
    expect([image.status, image.param, image.code]).toEqual([400, 'messages[0].content[1]', 'unsupported_content']);
  });

  it('unknown fields are ignored', async () => {
    const completion = await openai.chat.completions.create({
      ...ask,
      model: 'consilium/slot-2',
      user: 'someone',
      seed: 7,
      temperature: 0.2,
      max_tokens: 200,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(completion.choices[0]!.message.content).toBeTruthy();
  });
});

describe('limits', () => {
  let limited: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    limited = await startServer({
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '1',
      CONSILIUM_OFFLINE_TOKEN_MS: '5',
    });
    client = new OpenAI({ baseURL: `${limited.baseUrl}/v1`, apiKey: limited.token, maxRetries: 0 });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('429 with Retry-After while another of the user’s debates runs', async () => {
    const running = await client.chat.completions.create({
      model: 'consilium/deep',
      messages: [{ role: 'user', content: 'Held?' }],
      stream: true,
    });
    const iterator = running[Symbol.asyncIterator]();
    await iterator.next(); // the first chunk: the run has started
    const error = await refusal(
      client.chat.completions.create({ model: 'consilium/slot-1', messages: [{ role: 'user', content: 'Another?' }] }),
    );
    expect(error.status).toBe(429);
    expect(error.type).toBe('rate_limit_error');
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
    running.controller.abort();
  });
});

describe('a client that goes away', () => {
  let slow: RunningServer;
  beforeAll(async () => {
    slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('cancels the run: the session ends cancelled', async () => {
    const client = new OpenAI({ baseURL: `${slow.baseUrl}/v1`, apiKey: slow.token, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'consilium/deep',
      messages: [{ role: 'user', content: 'A long one?' }],
      stream: true,
    });
    let id: string | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        id = chunk.id.replace(/^chatcmpl-/, '');
        break; // leaving the loop aborts the request
      }
    }
    expect(id).toBeDefined();
    // The run's end is stored: wait for it through the session's own event stream.
    const events = await slow.fetch(`/sessions/${id}/events`);
    await events.text();
    const stored = (await (await slow.fetch(`/sessions/${id}`)).json()) as { status: string };
    expect(stored.status).toBe('cancelled');
  });
});
