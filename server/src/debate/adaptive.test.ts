import { describe, expect, it } from 'vitest';
import type { Answer } from '../../../sdk/src/generated/types.gen.js';
import { adaptiveDecision, adaptiveOutcome, strategyProblems, voteVerdict } from './adaptive.js';

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
