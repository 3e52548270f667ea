/**
 * The provider SDKs as the oracle for the requests `streamAnswer` sends from templates
 * (`server/src/providers/request-template.ts`): for every provider and call shape the engine makes
 * (plain, structured output, a token limit, a temperature, a conversation, reasoning models whose
 * temperature the SDK drops, DeepSeek's schema in the prompt, Anthropic's output format or JSON
 * tool, Gemini's response schema, xAI, an OpenAI-compatible server), the request each SDK sends for
 * the same call — URL, method, every header, the body byte for byte — and the warnings it raises
 * must be exactly what the call sends and logs. Two different sets of texts go through each shape,
 * so a text left from the first would show; texts with quotes, backslashes, control characters,
 * line separators, emoji, a lone surrogate and blanks at both ends.
 */
import type { LanguageModelV3, LanguageModelV3Prompt, SharedV3Warning } from '@ai-sdk/provider';
import { asSchema } from '@ai-sdk/provider-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { finalPositionSchema, verdictDraftSchema } from '../../server/src/debate/prompts.js';
import { streamAnswer, type TextMessage } from '../../server/src/providers/call.js';
import { createSlotModel, type ProviderLanguageModel } from '../../server/src/providers/models.js';

interface Sent {
  url: string;
  method: string | undefined;
  headers: Record<string, string>;
  body: unknown;
}

/** The `fetch` both sides are given: records the request and answers with an empty event stream. */
function recorder() {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({
      url: String(input),
      method: init?.method,
      headers: Object.fromEntries(new Headers(init?.headers)),
      body: init?.body,
    });
    return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { sent, fetch };
}

type Slot = { env: Record<string, string>; index: number };
const openai = (model: string): Slot => ({ env: { OPENAI_API_KEY: 'sk-oracle', CONSILIUM_SLOT2_MODEL: model }, index: 1 });
const anthropic = (model: string): Slot => ({
  env: { ANTHROPIC_API_KEY: 'sk-ant-oracle', CONSILIUM_SLOT1_MODEL: model },
  index: 0,
});
const deepseek = (model: string): Slot => ({ env: { DEEPSEEK_API_KEY: 'sk-ds-oracle', CONSILIUM_SLOT3_MODEL: model }, index: 2 });
const google = (model: string): Slot => ({
  env: { GOOGLE_GENERATIVE_AI_API_KEY: 'g-oracle', CONSILIUM_SLOT4_MODEL: model },
  index: 3,
});
const xai = (model: string): Slot => ({ env: { XAI_API_KEY: 'xai-oracle', CONSILIUM_SLOT5_MODEL: model }, index: 4 });
const compatible: Slot = {
  env: {
    CONSILIUM_SLOT5_PROVIDER: 'local-llm',
    CONSILIUM_SLOT5_MODEL: 'llama3.1:8b',
    CONSILIUM_SLOT5_BASE_URL: 'http://127.0.0.1:11434/v1/',
    CONSILIUM_SLOT5_API_KEY: 'k-oracle',
  },
  index: 4,
};
const proxied: Slot = {
  env: { ANTHROPIC_API_KEY: 'sk-ant-oracle', CONSILIUM_SLOT1_BASE_URL: 'https://llm-proxy.example/anthropic/v1' },
  index: 0,
};

interface Shape {
  system?: boolean;
  /** A conversation ending with the question (or with the assistant's turn), else one prompt. */
  conversation?: 'user' | 'assistant';
  output?: z.ZodType<unknown>;
  maxOutputTokens?: number;
  temperature?: number;
}

interface Case {
  name: string;
  slot: Slot;
  shape: Shape;
  /** Where the SDK cannot be templated: it builds every request (tools, a trimmed text). */
  sdkEveryCall?: true;
  /** Whether the SDK warns for this shape (so the test cannot pass with warnings dropped). */
  warns?: true;
}

const plain: Shape = { system: true };
const structured: Shape = { system: true, output: finalPositionSchema };
const CASES: Case[] = [
  { name: 'OpenAI gpt-4.1, plain', slot: openai('gpt-4.1'), shape: plain },
  { name: 'OpenAI gpt-4.1, structured (final round)', slot: openai('gpt-4.1'), shape: structured },
  {
    name: 'OpenAI gpt-4.1, verdict with a token limit',
    slot: openai('gpt-4.1'),
    shape: { system: true, output: verdictDraftSchema, maxOutputTokens: 900 },
  },
  { name: 'OpenAI gpt-4.1, temperature, no system', slot: openai('gpt-4.1'), shape: { temperature: 0.3 } },
  {
    name: 'OpenAI gpt-4.1, conversation',
    slot: openai('gpt-4.1'),
    shape: { system: true, conversation: 'user', maxOutputTokens: 400 },
  },
  {
    name: 'OpenAI o3, temperature dropped, limit as max_completion_tokens',
    slot: openai('o3'),
    shape: { system: true, temperature: 0.7, maxOutputTokens: 700 },
    warns: true,
  },
  { name: 'OpenAI o3, structured', slot: openai('o3'), shape: structured },
  {
    name: 'OpenAI gpt-5, structured with a temperature',
    slot: openai('gpt-5'),
    shape: { ...structured, temperature: 0.2 },
    warns: true,
  },
  { name: 'OpenAI gpt-5-mini, plain', slot: openai('gpt-5-mini'), shape: plain },
  { name: 'DeepSeek chat, structured (schema in the prompt)', slot: deepseek('deepseek-chat'), shape: structured, warns: true },
  { name: 'DeepSeek chat, plain with a temperature', slot: deepseek('deepseek-chat'), shape: { system: true, temperature: 1.1 } },
  {
    name: 'DeepSeek reasoner, verdict',
    slot: deepseek('deepseek-reasoner'),
    shape: { system: true, output: verdictDraftSchema },
    warns: true,
  },
  { name: 'Anthropic claude-sonnet-4-5, plain', slot: anthropic('claude-sonnet-4-5'), shape: plain },
  { name: 'Anthropic claude-sonnet-4-5, structured (output format)', slot: anthropic('claude-sonnet-4-5'), shape: structured },
  {
    name: 'Anthropic claude-sonnet-4-5, verdict with a token limit',
    slot: anthropic('claude-sonnet-4-5'),
    shape: { system: true, output: verdictDraftSchema, maxOutputTokens: 2000 },
  },
  {
    name: 'Anthropic claude-sonnet-4-5, temperature clamped',
    slot: anthropic('claude-sonnet-4-5'),
    shape: { system: true, temperature: 1.5 },
    warns: true,
  },
  {
    name: 'Anthropic claude-sonnet-4-5, token limit capped',
    slot: anthropic('claude-sonnet-4-5'),
    shape: { system: true, maxOutputTokens: 900_000 },
    warns: true,
  },
  {
    name: 'Anthropic claude-sonnet-4-5, conversation',
    slot: anthropic('claude-sonnet-4-5'),
    shape: { system: true, conversation: 'user' },
  },
  {
    name: 'Anthropic claude-sonnet-4-5, conversation ending with the assistant (trimmed)',
    slot: anthropic('claude-sonnet-4-5'),
    shape: { system: true, conversation: 'assistant' },
    sdkEveryCall: true,
  },
  {
    name: 'Anthropic claude-3-haiku, structured (JSON tool)',
    slot: anthropic('claude-3-haiku-20240307'),
    shape: structured,
    sdkEveryCall: true,
  },
  { name: 'Anthropic claude-3-haiku, plain', slot: anthropic('claude-3-haiku-20240307'), shape: plain },
  { name: 'Anthropic, an unknown model id', slot: anthropic('house-model-v2'), shape: plain, warns: true },
  { name: 'Anthropic behind a proxy base URL', slot: proxied, shape: structured },
  { name: 'Google gemini-2.5-flash, plain', slot: google('gemini-2.5-flash'), shape: plain },
  { name: 'Google gemini-2.5-flash, structured (response schema)', slot: google('gemini-2.5-flash'), shape: structured },
  {
    name: 'Google gemini-2.5-flash, verdict, limit and temperature',
    slot: google('gemini-2.5-flash'),
    shape: { system: true, output: verdictDraftSchema, maxOutputTokens: 1500, temperature: 0.4 },
  },
  {
    name: 'Google gemini-2.5-flash, conversation',
    slot: google('gemini-2.5-flash'),
    shape: { system: true, conversation: 'user' },
  },
  { name: 'Google gemma (system in the first message)', slot: google('gemma-3-27b-it'), shape: plain },
  { name: 'xAI grok-3-mini, plain', slot: xai('grok-3-mini'), shape: plain },
  { name: 'xAI grok-3-mini, structured', slot: xai('grok-3-mini'), shape: structured },
  {
    name: 'xAI grok-4, temperature and limit',
    slot: xai('grok-4'),
    shape: { system: true, temperature: 0.9, maxOutputTokens: 512 },
  },
  { name: 'OpenAI-compatible server, plain', slot: compatible, shape: plain },
  { name: 'OpenAI-compatible server, structured with a temperature', slot: compatible, shape: { ...structured, temperature: 0 } },
];

/** Two sets of texts per shape: the system prompt, then the conversation's turns. */
const TEXTS = [
  {
    system: 'You are slot 2 of a debate; your strength is general reasoning.',
    turns: ['Round 1: Should we ship "v2" now?\nAnswer in prose.', 'We should ship it.', 'Round 2: critique the others.'],
  },
  {
    system: '  Quotes " and \\ backslashes, \t tabs, \u0000 a NUL, \u2028 a line separator, émoji 🚀 ',
    turns: ['\n  Zürich oder 東京? </script> \ud83d a lone surrogate. \r\n', ' The answer \\n is "yes". ', ' Why? \n'],
  },
];

function call(shape: Shape, texts: (typeof TEXTS)[number]) {
  const [question, reply, followUp] = texts.turns as [string, string, string];
  const messages: TextMessage[] | undefined =
    shape.conversation === 'user'
      ? [
          { role: 'user', content: question },
          { role: 'assistant', content: reply },
          { role: 'user', content: followUp },
        ]
      : shape.conversation === 'assistant'
        ? [
            { role: 'user', content: question },
            { role: 'assistant', content: reply },
          ]
        : undefined;
  const prompt: LanguageModelV3Prompt = [];
  if (shape.system) prompt.push({ role: 'system', content: texts.system });
  if (messages) for (const m of messages) prompt.push({ role: m.role, content: [{ type: 'text', text: m.content }] });
  else prompt.push({ role: 'user', content: [{ type: 'text', text: question }] });
  return { messages, question, prompt };
}

let logged: { warnings: SharedV3Warning[]; provider: string; model: string }[] = [];
let previous: typeof globalThis.AI_SDK_LOG_WARNINGS;
beforeEach(() => {
  logged = [];
  previous = globalThis.AI_SDK_LOG_WARNINGS;
  globalThis.AI_SDK_LOG_WARNINGS = (w) => logged.push(w as (typeof logged)[number]);
});
afterEach(() => {
  globalThis.AI_SDK_LOG_WARNINGS = previous;
});

/** What the slot's own SDK sends and warns for `prompt`: its `doStream`, as configured for the slot. */
async function oracle(sdk: LanguageModelV3, sent: Sent[], shape: Shape, prompt: LanguageModelV3Prompt) {
  const { stream } = await sdk.doStream({
    prompt,
    ...(shape.output && { responseFormat: { type: 'json', schema: await asSchema(shape.output).jsonSchema } }),
    ...(shape.maxOutputTokens !== undefined && { maxOutputTokens: shape.maxOutputTokens }),
    ...(shape.temperature !== undefined && { temperature: shape.temperature }),
    abortSignal: new AbortController().signal,
  });
  let warnings: SharedV3Warning[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'stream-start') warnings = value.warnings;
    }
  } catch {
    // An empty body: only the request and the warnings matter here.
  }
  expect(sent).toHaveLength(1);
  return { request: sent.pop()!, warnings };
}

describe.each(CASES)('$name', ({ slot, shape, sdkEveryCall, warns }) => {
  it('sends exactly the request its SDK sends, and logs the same warnings, for two sets of texts', async () => {
    const config = slotsFromEnv(slot.env)[slot.index]!;
    const expected = recorder();
    const sdk = await (
      createSlotModel(config, slot.env, { fetch: expected.fetch }).languageModel as ProviderLanguageModel
    ).loaded();
    const actual = recorder();
    const model = createSlotModel(config, slot.env, { fetch: actual.fetch });
    const builds = vi.spyOn(model.languageModel as ProviderLanguageModel, 'withFetch');
    for (const texts of TEXTS) {
      const { messages, question, prompt } = call(shape, texts);
      const want = await oracle(sdk, expected.sent, shape, prompt);
      logged = [];
      await streamAnswer({
        model,
        ...(shape.system && { system: texts.system }),
        ...(messages ? { messages } : { prompt: question }),
        ...(shape.output && { output: shape.output }),
        ...(shape.maxOutputTokens !== undefined && { maxOutputTokens: shape.maxOutputTokens }),
        ...(shape.temperature !== undefined && { temperature: shape.temperature }),
        timeoutMs: 5000,
        maxRetries: 0,
      });
      expect(actual.sent).toHaveLength(1);
      const got = actual.sent.pop()!;
      expect(got.url).toBe(want.request.url);
      expect(got.method).toBe(want.request.method);
      expect(got.headers).toEqual(want.request.headers);
      expect(typeof got.body).toBe('string');
      expect(got.body).toBe(want.request.body);
      expect(logged.flatMap((l) => l.warnings)).toEqual(want.warnings);
      for (const l of logged) expect(l).toMatchObject({ provider: model.languageModel.provider, model: config.model });
      expect(want.warnings.length > 0).toBe(warns === true);
    }
    // A template: the SDK built the shape's request twice (two kinds of placeholders), for both calls; else it built each too.
    expect(builds).toHaveBeenCalledTimes(sdkEveryCall ? 2 + TEXTS.length : 2);
  });
});
