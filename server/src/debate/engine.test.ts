import { describe, expect, it } from 'vitest';
import { slotsFromEnv } from '../config/slots.js';
import { createSlotModel } from '../providers/models.js';
import { DebateEngine, type Slot } from './engine.js';

/** The default panel on offline models at their own per-slot pace, recording the order calls start in. */
function recordingPanel(started: number[]): Slot[] {
  return slotsFromEnv({}).map((config) => {
    const model = createSlotModel(config, {}, { offline: { tokenDelayMs: 2 } });
    const doStream = model.languageModel.doStream.bind(model.languageModel);
    model.languageModel.doStream = (options) => {
      started.push(config.slot);
      return doStream(options);
    };
    return { config, model };
  });
}

describe('DebateEngine', () => {
  it('starts the slot that answered slowest first, and still reports answers in slot order', async () => {
    const started: number[] = [];
    const engine = new DebateEngine({
      panel: recordingPanel(started),
      quorum: 3,
      callTimeoutMs: 30_000,
      maxRetries: 0,
      prices: {},
      owner: 'test',
    });
    const first = await engine.parallel('Which is slowest?', undefined);
    expect(first.rounds[0]!.answers.map((a) => a.slot)).toEqual([1, 2, 3, 4, 5]);
    const slowest = [...first.rounds[0]!.answers].sort((a, b) => b.latencyMs - a.latencyMs).map((a) => a.slot);

    started.length = 0;
    const second = await engine.parallel('Which is slowest?', undefined);
    expect(second.rounds[0]!.answers.map((a) => a.slot)).toEqual([1, 2, 3, 4, 5]);
    // The second round's calls start in the order of the first round's latencies, slowest first.
    expect(started).toEqual(slowest);
  });
});
