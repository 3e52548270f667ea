import { describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { THREAD_CHARS, THREAD_EXCHANGES, threadContext } from './thread.js';

function session(n: number, extra: Partial<Session> = {}): Session {
  return {
    id: `ses_${String(n).padStart(12, '0')}`,
    owner: 'local',
    mode: 'deep',
    question: `Question number ${n}: ${'why '.repeat(200)}`,
    roundsRequested: 2,
    rounds: [],
    status: 'completed',
    missingSlots: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    cost: { usd: 0, priced: true },
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    consensus: { round: 2, agreements: [{ statement: `Agreed ${n}`, slots: [1, 2] }], disagreements: [] },
    verdict: {
      format: 'structured',
      summary: `Summary ${n}. ${'long '.repeat(300)}`,
      answer: `Answer ${n}.`,
      actions: { P0: [{ title: `Do ${n}`, rationale: 'r', supportingSlots: [1], supportingRounds: [1] }], P1: [], P2: [] },
      dissent: [],
      synthesizer: { slot: 1, provider: 'anthropic', model: 'm', reason: 'default', participated: true },
      degradation: { degraded: false, missingSlots: [], reasons: [] },
      positionChanges: [],
    },
    ...extra,
  };
}

describe('threadContext', () => {
  it('shows each earlier question with its consensus, verdict and actions', () => {
    const text = threadContext([session(1)]);
    expect(text).toMatch(/^### Earlier question 1\nAsked \(deep\): Question number 1: why/);
    expect(text).toContain('The panel agreed: Agreed 1');
    expect(text).toContain('Verdict: Summary 1.');
    expect(text).toContain('Actions: P0 Do 1');
  });

  it('uses the answers when there is no verdict', () => {
    const answer = {
      slot: 2,
      provider: 'openai',
      model: 'm',
      offline: false,
      round: 1,
      text: 'Use a queue.',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      latencyMs: 1,
      finishReason: 'stop',
    } as const;
    const single = session(1, {
      mode: 'single',
      consensus: undefined,
      verdict: undefined,
      rounds: [{ number: 1, kind: 'independent', answers: [answer], missingSlots: [] }],
    });
    expect(threadContext([single])).toContain('Slot 2 (openai) answered: Use a queue.');
  });

  it('stays bounded however long the thread: the latest exchanges, the rest counted', () => {
    const thread = Array.from({ length: 30 }, (_, i) => session(i + 1));
    const text = threadContext(thread);
    expect(text.length).toBeLessThanOrEqual(THREAD_CHARS);
    expect(text).toContain('### Earlier question 30');
    expect(text).not.toContain('### Earlier question 26\n');
    expect(text).toMatch(/^\(\d+ earlier exchanges not shown\.\)/);
    expect(text.match(/### Earlier question/g)!.length).toBeLessThanOrEqual(THREAD_EXCHANGES);
  });
});
