/**
 * A second client: the AI SDK's OpenAI-compatible provider (`@ai-sdk/openai-compatible` with `ai`'s `generateText`
 * and `streamText`) against a real server on loopback, as an agent framework would call the council.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../../test/support/server.js';

let server: RunningServer;
let council: ReturnType<typeof createOpenAICompatible>;
beforeAll(async () => {
  server = await startServer();
  council = createOpenAICompatible({
    name: 'consilium',
    baseURL: `${server.baseUrl}/v1`,
    apiKey: server.token,
    includeUsage: true,
  });
});
afterAll(async () => {
  await server?.close();
});

const latestSession = async () => {
  const page = (await (await server.fetch('/sessions')).json()) as { items: { id: string }[] };
  return (await (await server.fetch(`/sessions/${page.items[0]!.id}`)).json()) as {
    verdict: { answer: string };
    usage: { totalTokens: number };
  };
};

it('generateText: the verdict is the text, with the usage', async () => {
  const result = await generateText({ model: council('consilium/deep-2'), prompt: 'Monolith or services?', maxRetries: 0 });
  const stored = await latestSession();
  expect(result.text).toBe(stored.verdict.answer);
  expect(result.usage.totalTokens).toBe(stored.usage.totalTokens);
  expect(result.finishReason).toBe('stop');
});

it('streamText: the rounds as reasoning, the verdict as text, the usage at the end', async () => {
  const result = streamText({ model: council('consilium/deep-2'), prompt: 'Tabs or spaces?', maxRetries: 0 });
  let reasoning = '';
  let text = '';
  for await (const part of result.fullStream) {
    if (part.type === 'reasoning-delta') reasoning += part.text;
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'error') throw part.error;
  }
  const stored = await latestSession();
  expect(reasoning).toContain('## Round 1');
  expect(text).toBe(stored.verdict.answer);
  expect((await result.usage).totalTokens).toBe(stored.usage.totalTokens);
});
