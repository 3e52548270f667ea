import { describe, expect, it } from 'vitest';
import type { Answer } from '../../../sdk/src/generated/types.gen.js';
import { adaptiveDecision, adaptiveOutcome, adaptiveSaving, strategyProblems, voteVerdict } from './adaptive.js';
import { estimateSlot, savedAfterRound1 } from './estimate.js';
import type { PanelSlot } from './panel.js';

const answer = (slot: number, position: string): Answer => ({
  slot: slot as Answer['slot'],
  provider: `p${slot}`,
  model: `m${slot}`,
  offline: false,
  round: 1,
  text: `Because.\nPOSITION: ${position}`,
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  latencyMs: 1,
  finishReason: 'stop',
});

const panelSlot = (slot: number): PanelSlot =>
  ({
    config: { slot, provider: `p${slot}`, strength: 'rigour' },
    model: { model: `m${slot}`, offline: false },
  }) as unknown as PanelSlot;
const PRICES = Object.fromEntries([1, 2, 3].map((n) => [`p${n}/m${n}`, { inputPerMTok: 1, outputPerMTok: 4 }]));

describe('adaptiveSaving', () => {
  const run = (answered: Answer[], context?: string) => ({
    question: 'Should we shard the sessions table by owner?',
    context,
    panel: [panelSlot(1), panelSlot(2), panelSlot(3)],
    synthesizer: panelSlot(1),
    rounds: 3,
    answered,
  });
  it('is the later rounds of the slots that answered and the verdict, sized from their answers', () => {
    const all = [answer(1, 'A'), answer(2, 'A'), answer(3, 'A')];
    const saved = adaptiveSaving(run(all), PRICES);
    expect(saved).toEqual(
      savedAfterRound1(
        {
          mode: 'deep',
          question: run(all).question,
          slots: [1, 2, 3].map((n) => estimateSlot(panelSlot(n))),
          synthesizer: estimateSlot(panelSlot(1)),
          rounds: 3,
          prices: PRICES,
          history: () => undefined,
        },
        new Map([1, 2, 3].map((n) => [n, 1])),
      ),
    );
    // Two more rounds of three answers and the verdict; a slot that failed round 1 is not counted.
    expect(saved.calls).toBe(7);
    expect(adaptiveSaving(run(all.slice(0, 2)), PRICES).calls).toBe(5);
    // A follow-up's thread is quoted by every skipped prompt.
    expect(adaptiveSaving(run(all, 'x'.repeat(4000)), PRICES).tokens).toBeGreaterThan(saved.tokens + 6 * 1000);
  });
});

describe('adaptiveDecision', () => {
  it('stops when the most held position reaches the threshold, alone and by at least two', () => {
    const all = [answer(1, 'A'), answer(2, 'a.'), answer(3, 'A')];
    expect(adaptiveDecision(all, 1)).toMatchObject({ stop: true, agreement: 1 });
    const most = [answer(1, 'A'), answer(2, 'A'), answer(3, 'B')];
    expect(adaptiveDecision(most, 1)).toMatchObject({ stop: false });
    expect(adaptiveDecision(most, 0.6).stop).toBe(true);
    expect(adaptiveDecision(most, 2 / 3).stop).toBe(true);
    expect(adaptiveDecision(most, 0.7).stop).toBe(false);
    expect(adaptiveDecision([answer(1, 'A'), answer(2, 'B')], 0.5).stop).toBe(false);
    expect(adaptiveDecision([answer(1, 'A')], 0.5).stop).toBe(false);
  });

  it('makes the vote the verdict: the position, no actions, the other positions as dissent, no model its writer', () => {
    const answers = [answer(1, 'A'), answer(2, 'A'), answer(3, 'B')];
    const decision = adaptiveDecision(answers, 0.6);
    const degradation = { degraded: false, missingSlots: [], reasons: [] };
    expect(voteVerdict(decision, answers, degradation)).toEqual({
      format: 'structured',
      summary: '2 of 3 independent answers agree (67 %), so the debate stopped after round 1: the verdict is their vote.',
      answer: 'A',
      actions: { P0: [], P1: [], P2: [] },
      dissent: [{ slots: [3], text: 'B' }],
      synthesizer: { slot: 1, provider: 'p1', model: 'm1', reason: 'vote', participated: true },
      degradation,
      positionChanges: [],
    });
    expect(adaptiveOutcome(0.6, decision, { calls: 1, tokens: 2, usd: 0, priced: true })).toEqual({
      threshold: 0.6,
      agreement: 2 / 3,
      stopped: true,
      saved: { calls: 1, tokens: 2, usd: 0, priced: true },
    });
    expect(adaptiveOutcome(1, adaptiveDecision(answers, 1))).toEqual({ threshold: 1, agreement: 2 / 3, stopped: false });
    // A debate that goes on saved nothing, whatever was sized.
    const saved = { calls: 1, tokens: 2, usd: 0, priced: true };
    expect(adaptiveOutcome(1, adaptiveDecision(answers, 1), saved)).toEqual({ threshold: 1, agreement: 2 / 3, stopped: false });
  });

  it('credits the vote to the first slot that holds it, not to slot 1', () => {
    const answers = [answer(1, 'B'), answer(2, 'A'), answer(3, 'A')];
    const verdict = voteVerdict(adaptiveDecision(answers, 0.6), answers, { degraded: false, missingSlots: [], reasons: [] });
    expect(verdict.synthesizer).toEqual({ slot: 2, provider: 'p2', model: 'm2', reason: 'vote', participated: true });
    expect(verdict.dissent).toEqual([{ slots: [1], text: 'B' }]);
  });

  it('refuses a threshold without the adaptive strategy', () => {
    expect(strategyProblems({ agreement: 0.8 })).toEqual([
      {
        path: 'body.agreement',
        message: '`agreement` is the threshold of `strategy: "adaptive"`; this request does not ask for it.',
      },
    ]);
    expect(strategyProblems({ agreement: 0.8, strategy: 'adaptive' })).toEqual([]);
    expect(strategyProblems({})).toEqual([]);
  });
});
