import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { slotsFromEnv } from '../config/slots.js';
import { zConsensus } from '../generated/schemas/zod.gen.js';
import { streamAnswer } from './call.js';
import { createSlotModel } from './models.js';
import { tokenize } from './offline/text.js';

// streamAnswer over the offline model: no network, the same code path as a provider. Provider
// failures over real wire formats are in test/debate/providers.test.ts.
const fast = slotsFromEnv({}).map((s) => createSlotModel(s, {}, { offline: { tokenDelayMs: 0 } }));
const QUESTION = 'Is a monorepo worth it for three services?';

describe('streamAnswer', () => {
  it('returns what the deltas add up to, with usage and latency', async () => {
    const deltas: string[] = [];
    const r = await streamAnswer({
      model: fast[0]!,
      system: 'You are slot 1.',
      prompt: QUESTION,
      timeoutMs: 5000,
      onDelta: (d) => deltas.push(d),
    });
    expect(r.text).toBe(deltas.join(''));
    expect(r.usage).toEqual({
      inputTokens: tokenize(`You are slot 1.\n\n${QUESTION}`).length,
      outputTokens: deltas.length,
      totalTokens: tokenize(`You are slot 1.\n\n${QUESTION}`).length + deltas.length,
    });
    expect(r).toMatchObject({ finishReason: 'stop', attempts: 1 });
    expect(r.error).toBeUndefined();
    expect(Number.isInteger(r.latencyMs)).toBe(true);
  });

  it('takes a conversation instead of a prompt', async () => {
    const r = await streamAnswer({
      model: fast[1]!,
      messages: [
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: 'It depends on how often they change together.' },
        { role: 'user', content: 'Critique that answer.' },
      ],
      timeoutMs: 5000,
    });
    expect(r.error).toBeUndefined();
    expect(r.usage.inputTokens).toBe(
      tokenize(`${QUESTION}\n\nIt depends on how often they change together.\n\nCritique that answer.`).length,
    );
  });

  it('maxOutputTokens truncates with finish reason length', async () => {
    const r = await streamAnswer({ model: fast[2]!, prompt: QUESTION, timeoutMs: 5000, maxOutputTokens: 4 });
    expect(r).toMatchObject({ finishReason: 'length', usage: { outputTokens: 4 } });
  });

  it('structured output cut short by maxOutputTokens is invalid_output, with the raw text and the real finish reason', async () => {
    const r = await streamAnswer({ model: fast[0]!, prompt: QUESTION, timeoutMs: 5000, output: zConsensus, maxOutputTokens: 10 });
    expect(r.object).toBeUndefined();
    expect(r.text.startsWith('{"round":')).toBe(true);
    expect(r).toMatchObject({ finishReason: 'length', error: { code: 'invalid_output', retryable: true, attempts: 1 } });
    expect(r.error!.message).toMatch(/could not parse/);
  });

  it('an already aborted signal ends the call as aborted without output', async () => {
    const deltas: string[] = [];
    const r = await streamAnswer({
      model: fast[0]!,
      prompt: QUESTION,
      timeoutMs: 5000,
      signal: AbortSignal.abort(),
      onDelta: (d) => deltas.push(d),
    });
    expect(deltas).toEqual([]);
    expect(r).toMatchObject({ text: '', finishReason: 'aborted', error: { code: 'aborted', retryable: false, attempts: 1 } });
  });

  it('the deadline ends a slow model as timeout, keeping the text so far', async () => {
    const slow = createSlotModel(slotsFromEnv({})[0]!, {}, { offline: { tokenDelayMs: 10_000, firstTokenDelayMs: 0 } });
    const r = await streamAnswer({ model: slow, prompt: QUESTION, timeoutMs: 100 });
    expect(r).toMatchObject({ finishReason: 'error', error: { code: 'timeout', retryable: true, attempts: 1 } });
    expect(tokenize(r.text).length).toBeLessThanOrEqual(1);
  });

  it('a throwing onDelta is a bug in the caller: it rejects instead of becoming an answer error', async () => {
    const boom = new Error('render failed');
    await expect(
      streamAnswer({
        model: fast[0]!,
        prompt: QUESTION,
        timeoutMs: 5000,
        onDelta: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});

describe('five calls, one signal', () => {
  it('run concurrently with per-slot deltas and distinct answers', async () => {
    const models = slotsFromEnv({}).map((s) => createSlotModel(s, {}, { offline: { tokenDelayMs: 1 } }));
    const bySlot = new Map<number, string[]>();
    const shared = new AbortController();
    const results = await Promise.all(
      models.map((m) =>
        streamAnswer({
          model: m,
          prompt: QUESTION,
          timeoutMs: 20_000,
          signal: shared.signal,
          onDelta: (d) => bySlot.set(m.slot, [...(bySlot.get(m.slot) ?? []), d]),
        }),
      ),
    );
    results.forEach((r, i) => {
      expect(r.error).toBeUndefined();
      expect(r.text).toBe(bySlot.get(i + 1)!.join(''));
    });
    expect(new Set(results.map((r) => r.text)).size).toBe(5);
    // Every call removed its listener from the shared signal.
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('one abort stops them all', { timeout: 10_000 }, async () => {
    const models = slotsFromEnv({}).map((s) =>
      createSlotModel(s, {}, { offline: { tokenDelayMs: 10_000, firstTokenDelayMs: 0 } }),
    );
    const shared = new AbortController();
    let first = 0;
    const results = await Promise.all(
      models.map((m) =>
        streamAnswer({
          model: m,
          prompt: QUESTION,
          timeoutMs: 60_000,
          signal: shared.signal,
          onDelta: () => {
            if (++first === 5) shared.abort();
          },
        }),
      ),
    );
    for (const r of results) expect(r).toMatchObject({ finishReason: 'aborted', error: { code: 'aborted' } });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });
});
