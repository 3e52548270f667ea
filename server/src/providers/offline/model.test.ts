import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zConsensus } from '../../generated/schemas/zod.gen.js';
import { streamAnswer } from '../call.js';
import { OFFLINE_METADATA, OfflineLanguageModel, SLOT_LATENCY } from './model.js';
import { tokenize } from './text.js';

const QUESTION = 'Should a five-person team adopt Kubernetes or stay on managed containers?';
const call = (text: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [
    { role: 'system', content: 'You are slot 2.' },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
  ...extra,
});

async function* read<T>(stream: ReadableStream<T>): AsyncGenerator<T> {
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
}

async function parts(model: OfflineLanguageModel, options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamPart[]> {
  const { stream } = await model.doStream(options);
  const out: LanguageModelV3StreamPart[] = [];
  for await (const part of read(stream)) out.push(part);
  return out;
}

const deltasOf = (ps: LanguageModelV3StreamPart[]) => ps.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));

describe('OfflineLanguageModel', () => {
  const model = new OfflineLanguageModel({ provider: 'openai', slot: 2, tokenDelayMs: 0 });

  it('is a LanguageModelV3 whose ids say it is offline', () => {
    expect(model.specificationVersion).toBe('v3');
    expect(model.modelId).toBe('offline-openai');
    expect(model.provider).toBe('offline.openai');
  });

  it('streams stream-start, metadata, text-start, deltas, text-end, finish with honest usage', async () => {
    const ps = await parts(model, call(QUESTION));
    expect(ps.map((p) => p.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    const finish = ps.at(-1) as Extract<LanguageModelV3StreamPart, { type: 'finish' }>;
    const deltas = deltasOf(ps);
    expect(deltas.length).toBeGreaterThan(20);
    expect(finish.usage.outputTokens.total).toBe(deltas.length);
    expect(finish.usage.inputTokens.total).toBe(tokenize(`You are slot 2.\n\n${QUESTION}`).length);
    expect(finish.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(finish.providerMetadata).toEqual(OFFLINE_METADATA);
  });

  it('is deterministic in provider, slot and prompt', async () => {
    const text = async (m: OfflineLanguageModel, q: string) => deltasOf(await parts(m, call(q))).join('');
    const a = await text(model, QUESTION);
    expect(await text(new OfflineLanguageModel({ provider: 'openai', slot: 2, tokenDelayMs: 0 }), QUESTION)).toBe(a);
    expect(await text(model, `${QUESTION} Or not?`)).not.toBe(a);
    expect(await text(new OfflineLanguageModel({ provider: 'anthropic', slot: 2, tokenDelayMs: 0 }), QUESTION)).not.toBe(a);
    expect(await text(new OfflineLanguageModel({ provider: 'openai', slot: 3, tokenDelayMs: 0 }), QUESTION)).not.toBe(a);
    expect(a).toMatch(/kubernetes|containers|five-person|managed/);
  });

  it('doGenerate returns the text doStream streams', async () => {
    const result = await model.doGenerate(call(QUESTION));
    expect(result.content).toEqual([{ type: 'text', text: deltasOf(await parts(model, call(QUESTION))).join('') }]);
    expect(result.usage.outputTokens.total).toBe(tokenize((result.content[0] as { text: string }).text).length);
  });

  it('works through generateText and streamText', async () => {
    const generated = await generateText({ model, prompt: QUESTION });
    const streamed = streamText({ model, prompt: QUESTION });
    expect(await streamed.text).toBe(generated.text);
    expect((await streamed.usage).outputTokens).toBe(generated.usage.outputTokens);
  });

  it('stops at maxOutputTokens with finish reason length', async () => {
    const ps = await parts(model, call(QUESTION, { maxOutputTokens: 5 }));
    expect(deltasOf(ps)).toHaveLength(5);
    expect(ps.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'length' },
      usage: { outputTokens: { total: 5 } },
    });
  });

  it('answers JSON meeting the requested schema', async () => {
    const schema = z.object({
      verdict: z.enum(['yes', 'no']),
      confidence: z.number().min(0).max(1),
      reasons: z.array(z.string()).min(2),
    });
    const r = await streamAnswer({ model: { languageModel: model }, prompt: QUESTION, timeoutMs: 5000, output: schema });
    expect(r.error).toBeUndefined();
    expect(schema.parse(r.object)).toEqual(JSON.parse(r.text));
    const consensus = await streamAnswer({
      model: { languageModel: model },
      prompt: QUESTION,
      timeoutMs: 5000,
      output: zConsensus,
    });
    expect(zConsensus.safeParse(consensus.object).success).toBe(true);
  });

  it('answers a JSON object even without a schema', async () => {
    const ps = await parts(model, call(QUESTION, { responseFormat: { type: 'json' } }));
    expect(JSON.parse(deltasOf(ps).join(''))).toEqual({ answer: expect.stringMatching(/\w/) });
  });
});

describe('pace', () => {
  it('gives each slot its own profile; slot 4 (speed) is the fastest', () => {
    const profiles = ([1, 2, 3, 4, 5] as const).map((slot) => new OfflineLanguageModel({ provider: 'x', slot }).profile);
    expect(new Set(profiles.map((p) => p.tokenMs)).size).toBe(5);
    for (const p of profiles) expect(p.tokenMs).toBeGreaterThanOrEqual(3);
    for (const p of profiles) expect(p.tokenMs).toBeLessThanOrEqual(10);
    expect(Math.min(...profiles.map((p) => p.tokenMs))).toBe(SLOT_LATENCY[4].tokenMs);
  });

  it('tokenDelayMs sets the mean pace, each slot keeping its relative speed; 0 means no delay; firstTokenDelayMs overrides', () => {
    // The slots' mean is 5 ms a token; slot 4 is 3 ms of it, with 80 ms to its first token.
    expect(new OfflineLanguageModel({ provider: 'x', slot: 4, tokenDelayMs: 30 }).profile).toEqual({
      firstTokenMs: 480,
      tokenMs: 18,
    });
    expect(new OfflineLanguageModel({ provider: 'x', slot: 1, tokenDelayMs: 0 }).profile).toEqual({
      firstTokenMs: 0,
      tokenMs: 0,
    });
    expect(new OfflineLanguageModel({ provider: 'x', slot: 1, tokenDelayMs: 0, firstTokenDelayMs: 7 }).profile.firstTokenMs).toBe(
      7,
    );
    const a = new OfflineLanguageModel({ provider: 'ollama-qwen' }).profile;
    expect(new OfflineLanguageModel({ provider: 'ollama-qwen' }).profile).toEqual(a);
  });

  it('spaces the deltas in time when a delay is set', async () => {
    const model = new OfflineLanguageModel({ provider: 'google', slot: 4, tokenDelayMs: 3 });
    const { stream } = await model.doStream(call(QUESTION, { maxOutputTokens: 12 }));
    const times: number[] = [];
    for await (const part of read(stream)) if (part.type === 'text-delta') times.push(performance.now());
    expect(times).toHaveLength(12);
    // Only that time passes between deltas: how much depends on the machine.
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
  });
});

describe('abort', () => {
  it('a signal aborted before the call rejects doStream and doGenerate', async () => {
    const model = new OfflineLanguageModel({ provider: 'xai', slot: 5, tokenDelayMs: 0 });
    const signal = AbortSignal.abort();
    await expect(model.doStream(call(QUESTION, { abortSignal: signal }))).rejects.toMatchObject({ name: 'AbortError' });
    await expect(model.doGenerate(call(QUESTION, { abortSignal: signal }))).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an abort mid-stream errors the stream at once, even during a long token delay', { timeout: 10_000 }, async () => {
    // 10 s a token: the test can only finish in time if the abort cuts the wait short.
    const model = new OfflineLanguageModel({ provider: 'xai', slot: 5, tokenDelayMs: 10_000, firstTokenDelayMs: 0 });
    const controller = new AbortController();
    const { stream } = await model.doStream(call(QUESTION, { abortSignal: controller.signal }));
    const reader = stream.getReader();
    const seen: string[] = [];
    for (;;) {
      const { value } = await reader.read();
      seen.push(value!.type);
      if (value!.type === 'text-delta') break;
    }
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.at(-1)).toBe('text-delta');
  });

  it('through streamAnswer: aborted with the partial text', { timeout: 10_000 }, async () => {
    const model = new OfflineLanguageModel({ provider: 'deepseek', slot: 3, tokenDelayMs: 10_000, firstTokenDelayMs: 0 });
    const controller = new AbortController();
    const r = await streamAnswer({
      model: { languageModel: model },
      prompt: QUESTION,
      timeoutMs: 60_000,
      signal: controller.signal,
      onDelta: () => controller.abort(),
    });
    expect(r.text.length).toBeGreaterThan(0);
    expect(r).toMatchObject({ finishReason: 'aborted', error: { code: 'aborted', attempts: 1 } });
  });
});
