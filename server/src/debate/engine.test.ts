import { describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../config/slots.js';
import { createSlotModel } from '../providers/models.js';
import { DebateEngine, type Slot, type StoredRun } from './engine.js';

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

describe('DebateEngine.continue', () => {
  const engineWith = (started: number[]) =>
    new DebateEngine({
      panel: recordingPanel(started),
      quorum: 3,
      callTimeoutMs: 30_000,
      maxRetries: 0,
      prices: {},
      owner: 'test',
    });
  const progressOf = (events: readonly DebateEvent[]) =>
    events.filter((e) => e.type !== 'answer.delta' && e.type !== 'verdict.delta');

  it('asks a parallel session only the slots that had not answered, in the same session, its events after `afterSeq`', async () => {
    const started: number[] = [];
    const engine = engineWith(started);
    const whole = await engine.parallel('Which?', undefined);
    // As if stopped with slots 2 and 4 answered: the others' answers never stored.
    const kept = whole.rounds[0]!.answers.filter((a) => a.slot === 2 || a.slot === 4);
    const stored: StoredRun = {
      session: { ...whole, status: 'running', rounds: [{ ...whole.rounds[0]!, answers: kept, missingSlots: [] }] },
      progress: [
        {
          v: 1,
          type: 'round.started',
          sessionId: whole.id,
          seq: 2,
          ts: whole.createdAt,
          round: 1,
          kind: 'independent',
          slots: [1, 2, 3, 4, 5],
        },
      ],
      afterSeq: 100_050,
    };
    started.length = 0;
    const events: DebateEvent[] = [];
    const continued = await engine.continue(stored, { onLog: (l) => l.subscribe((e) => events.push(e)) });
    expect(started.sort()).toEqual([1, 3, 5]);
    expect(continued).toMatchObject({ id: whole.id, createdAt: whole.createdAt, status: 'completed', missingSlots: [] });
    expect(continued.rounds[0]!.answers.map((a) => a.slot)).toEqual([1, 2, 3, 4, 5]);
    expect(continued.rounds[0]!.answers.filter((a) => a.slot === 2 || a.slot === 4)).toEqual(kept);
    expect(continued.usage.totalTokens).toBeGreaterThan(whole.usage.totalTokens);
    expect(events[0]).toMatchObject({ type: 'round.started', seq: 100_051, round: 1, slots: [1, 3, 5] });
    expect(progressOf(events).map((e) => e.type)).toEqual([
      'round.started',
      'answer.completed',
      'answer.completed',
      'answer.completed',
      'session.ended',
    ]);
  });

  it('asks a deep debate stopped in its final round that round again whole, keeping the rounds before it', async () => {
    const started: number[] = [];
    const engine = engineWith(started);
    const whole = await engine.deep('Which?', { rounds: 2 });
    const first = whole.rounds[0]!;
    const final = whole.rounds[1]!;
    const at = (seq: number) => ({ v: 1 as const, sessionId: whole.id, seq, ts: whole.createdAt });
    const stored: StoredRun = {
      session: { ...whole, status: 'running', rounds: [first, { ...final, answers: final.answers.slice(0, 2) }] },
      progress: [
        { ...at(2), type: 'round.started', round: 1, kind: 'independent', slots: [1, 2, 3, 4, 5] },
        { ...at(3), type: 'round.ended', round: 1, missingSlots: [], quorumMet: true },
        { ...at(4), type: 'round.started', round: 2, kind: 'final', slots: [1, 2, 3, 4, 5] },
      ],
      afterSeq: 100_004,
    };
    started.length = 0;
    const continued = await engine.continue(stored);
    // The final round whole (its positions are not stored), then the verdict by slot 1; round 1 not asked again.
    expect(started.sort()).toEqual([1, 1, 2, 3, 4, 5]);
    expect(continued.status).toBe('completed');
    expect(continued.rounds[0]).toBe(first);
    expect(continued.consensus).toBeDefined();
    expect(continued.verdict?.format).toBe('structured');
  });
  it('writes a synthesis verdict again from the answers it was made from', async () => {
    const started: number[] = [];
    const engine = engineWith(started);
    const answers = [
      { slot: 1 as const, text: 'Use SQLite.' },
      { slot: 2 as const, text: 'Use PostgreSQL.' },
    ];
    const whole = await engine.synthesizeAnswers('Which store?', answers, { sourceSessionId: 'ses_SOURCE' });
    const at = { v: 1 as const, sessionId: whole.id, ts: whole.createdAt };
    const stored: StoredRun = {
      session: { ...whole, status: 'running', rounds: [] },
      progress: [
        {
          ...at,
          seq: 2,
          type: 'synthesis.started',
          synthesizer: { slot: 1, provider: 'anthropic', model: 'm', reason: 'default', participated: true },
        },
      ],
      afterSeq: 100_002,
    };
    const { verdict: _, ...withoutVerdict } = stored.session;
    stored.session = withoutVerdict;
    started.length = 0;
    const continued = await engine.continue(stored, { answers });
    expect(started).toEqual([1]);
    expect(continued).toMatchObject({ id: whole.id, mode: 'synthesis', status: 'completed', sourceSessionId: 'ses_SOURCE' });
    expect(continued.verdict?.format).toBe('structured');
  });
});
