import { describe, expect, it } from 'vitest';
import type { Answer, DebateEvent } from '../../../sdk/src/index.js';
import {
  apply,
  costOfRound,
  costOfSlot,
  emptySession,
  failureLabel,
  isFinished,
  sumCosts,
  usageBySlot,
  verdictSpend,
} from './model.js';

const base = { v: 1, sessionId: 'ses_1', ts: '2026-11-23T20:00:00Z' };
let seq = 0;
const ev = (e: Record<string, unknown>) => ({ ...base, seq: ++seq, ...e }) as unknown as DebateEvent;
const answer = (slot: number, round: number, text: string): Answer => ({
  slot,
  round,
  text,
  provider: `p${slot}`,
  model: `m${slot}`,
  offline: true,
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  latencyMs: 100,
  finishReason: 'stop',
});

function debate(): DebateEvent[] {
  seq = 0;
  return [
    ev({ type: 'session.started', mode: 'deep', question: 'Q?', roundsRequested: 2, slots: [] }),
    ev({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] }),
    ev({ type: 'answer.delta', round: 1, slot: 1, delta: 'Hel' }),
    ev({ type: 'answer.delta', round: 1, slot: 2, delta: 'Other' }),
    ev({ type: 'answer.delta', round: 1, slot: 1, delta: 'lo' }),
    ev({ type: 'answer.completed', answer: answer(1, 1, 'Hello') }),
    ev({
      type: 'answer.failed',
      round: 1,
      slot: 2,
      provider: 'p2',
      model: 'm2',
      error: { code: 'timeout', message: 'too slow', retryable: true, attempts: 3 },
    }),
    ev({ type: 'round.ended', round: 1, missingSlots: [2], quorumMet: true }),
    ev({
      type: 'session.ended',
      status: 'partial',
      missingSlots: [2],
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      cost: { usd: 0, priced: false },
    }),
  ];
}

describe('the session view folded from events', () => {
  it('joins deltas per slot and round, marks failures with their reason, and ends with the session', () => {
    const view = emptySession();
    const events = debate();
    for (const e of events.slice(0, 5)) apply(view, e);
    const round = view.rounds[0]!;
    expect(round.answers.get(1)).toMatchObject({ text: 'Hello', status: 'streaming' });
    expect(round.answers.get(2)).toMatchObject({ text: 'Other', status: 'streaming' });
    for (const e of events.slice(5)) apply(view, e);
    expect(round.answers.get(1)).toMatchObject({ text: 'Hello', status: 'done' });
    expect(round.answers.get(2)).toMatchObject({ status: 'failed', error: { code: 'timeout', message: 'too slow' } });
    expect(view.status).toBe('partial');
    expect(isFinished(view)).toBe(true);
    expect(usageBySlot(view).get(1)?.totalTokens).toBe(15);
  });

  it('ignores every event at or below the last seq applied, so a resume or replay never duplicates text', () => {
    const events = debate();
    const once = emptySession();
    for (const e of events) apply(once, e);
    const resumed = emptySession();
    for (const e of events.slice(0, 4)) apply(resumed, e);
    // The server resends from an older point (or the whole stream after a reload): nothing doubles.
    for (const e of events.slice(2)) apply(resumed, e);
    for (const e of events) expect(apply(resumed, e)).toBe(false);
    expect(resumed.rounds[0]!.answers.get(1)!.text).toBe('Hello');
    expect(resumed.lastSeq).toBe(once.lastSeq);
    expect(resumed.rounds[0]!.answers.get(2)!.text).toBe(once.rounds[0]!.answers.get(2)!.text);
  });

  it('continues an interrupted session in the same view: a round started again resets only the slots it lists', () => {
    seq = 0;
    const view = emptySession();
    apply(view, ev({ type: 'session.started', mode: 'deep', question: 'Q?', roundsRequested: 2, slots: [] }));
    apply(view, ev({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2, 3] }));
    apply(view, ev({ type: 'answer.completed', answer: answer(1, 1, 'Kept') }));
    apply(view, ev({ type: 'answer.delta', round: 1, slot: 2, delta: 'Cut sho' }));
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    // Recovery numbers the end above anything the stopped run could have shown.
    seq += 100_001;
    apply(view, {
      ...base,
      seq,
      type: 'session.ended',
      status: 'interrupted',
      missingSlots: [2, 3],
      usage,
      cost: { usd: 0, priced: true },
      error: 'interrupted',
    } as DebateEvent);
    expect(view.status).toBe('interrupted');
    expect(view.rounds[0]!.answers.get(2)!.status).toBe('failed');

    apply(view, ev({ type: 'round.started', round: 1, kind: 'independent', slots: [2, 3] }));
    expect(view.rounds).toHaveLength(1);
    expect(view.status).toBe('running');
    expect(view.endedAt).toBeUndefined();
    expect(view.error).toBeUndefined();
    const [one, two, three] = [1, 2, 3].map((slot) => view.rounds[0]!.answers.get(slot)!);
    expect(one).toMatchObject({ text: 'Kept', status: 'done' });
    expect(two).toMatchObject({ text: '', status: 'thinking' });
    expect(two!.error).toBeUndefined();
    expect(three).toMatchObject({ text: '', status: 'thinking' });
    expect(view.rounds[0]!.slots).toEqual([1, 2, 3]);
    apply(view, ev({ type: 'answer.delta', round: 1, slot: 2, delta: 'Whole' }));
    apply(view, ev({ type: 'answer.completed', answer: answer(2, 1, 'Whole') }));
    expect(view.rounds[0]!.answers.get(2)).toMatchObject({ text: 'Whole', status: 'done' });

    // A final round that had ended and is asked again is open again.
    apply(view, ev({ type: 'round.started', round: 2, kind: 'final', slots: [1] }));
    apply(view, ev({ type: 'answer.completed', answer: answer(1, 2, 'First') }));
    apply(view, ev({ type: 'round.ended', round: 2, missingSlots: [], quorumMet: true }));
    apply(view, ev({ type: 'round.started', round: 2, kind: 'final', slots: [1] }));
    expect(view.rounds).toHaveLength(2);
    expect(view.rounds[1]).toMatchObject({ ended: false });
    expect(view.rounds[1]!.answers.get(1)).toMatchObject({ text: '', status: 'thinking' });
  });

  it('marks an answer still streaming when its round ends as failed, not done', () => {
    seq = 0;
    const view = emptySession();
    apply(view, ev({ type: 'round.started', round: 1, kind: 'independent', slots: [3] }));
    apply(view, ev({ type: 'answer.delta', round: 1, slot: 3, delta: 'half' }));
    apply(view, ev({ type: 'round.ended', round: 1, missingSlots: [3], quorumMet: false }));
    expect(view.rounds[0]!.answers.get(3)!.status).toBe('failed');
    expect(view.rounds[0]!.quorumMet).toBe(false);
  });

  it('streams the verdict text and starts it over on a repair attempt or a fallback synthesizer', () => {
    seq = 0;
    const view = emptySession();
    const delta = (attempt: number, field: string, d: string) =>
      ({ ...base, seq: ++seq, type: 'verdict.delta', slot: 1, attempt, field, delta: d }) as unknown as DebateEvent;
    apply(view, delta(1, 'summary', 'Do '));
    apply(view, delta(1, 'summary', 'it.'));
    apply(view, delta(1, 'answer', 'Because.'));
    expect(view.verdictText).toEqual({ summary: 'Do it.', answer: 'Because.', attempt: 1 });
    apply(view, delta(2, 'summary', 'Redo'));
    expect(view.verdictText).toEqual({ summary: 'Redo', answer: '', attempt: 2 });
    apply(
      view,
      ev({
        type: 'synthesis.started',
        synthesizer: { slot: 2, provider: 'p2', model: 'm2', reason: 'fallback', fallbackFrom: 1, participated: true },
      }),
    );
    expect(view.verdictText.summary).toBe('');
    expect(view.synthesizer?.slot).toBe(2);
  });
});

describe('a grounded session’s sources', () => {
  it('keeps each page’s text from the first event that carried it; later events name the page by hash', () => {
    seq = 0;
    const page = (n: number, text?: string) => ({
      n,
      title: `Page ${n}`,
      pageId: n,
      revisionId: 10 + n,
      url: `http://wiki.invalid/index.php?oldid=${10 + n}`,
      ...(text !== undefined && { text }),
      sha256: String(n).repeat(64),
      retrievedBy: 'search',
    });
    const grounding = (pages: object[], verified: number) => ({
      source: 'team-wiki',
      status: 'complete',
      pages,
      citations: [],
      verifiedCitations: verified,
      unverifiedCitations: 0,
      lookups: [],
      usage: { requests: 1, bytes: 10, ms: 1 },
    });
    const view = emptySession();
    apply(view, ev({ type: 'grounding', grounding: grounding([page(1, 'One.')], 0) }));
    apply(view, ev({ type: 'grounding', grounding: grounding([page(1), page(2, 'Two.')], 2) }));
    expect(view.grounding!.verifiedCitations).toBe(2);
    expect(view.grounding!.pages.map((p) => [p.n, p.text])).toEqual([
      [1, 'One.'],
      [2, 'Two.'],
    ]);
  });
});

describe('cost per model, per round and for the verdict', () => {
  const priced = (usd: number, ok = true) => ({ usd, priced: ok });
  const costed = (slot: number, round: number, usd: number, ok = true): Answer => ({
    ...answer(slot, round, 'x'),
    cost: priced(usd, ok),
  });
  function run(costs: { slot: number; round: number; usd: number; priced?: boolean }[], total: { usd: number; priced: boolean }) {
    seq = 0;
    const view = emptySession();
    const events = [
      ev({ type: 'session.started', mode: 'deep', question: 'Q?', roundsRequested: 2, slots: [] }),
      ...costs.map((c) => ev({ type: 'answer.completed', answer: costed(c.slot, c.round, c.usd, c.priced ?? true) })),
      ev({
        type: 'synthesis.started',
        synthesizer: { slot: 1, provider: 'p1', model: 'm1', reason: 'default', participated: true },
      }),
      ev({
        type: 'session.ended',
        status: 'completed',
        missingSlots: [],
        usage: { inputTokens: 10 * costs.length + 7, outputTokens: 5 * costs.length + 3, totalTokens: 15 * costs.length + 10 },
        cost: total,
      }),
    ];
    for (const e of events) apply(view, e);
    return view;
  }

  it('sums each model over its rounds and each round over its models; the verdict is the rest', () => {
    const view = run(
      [
        { slot: 1, round: 1, usd: 0.5 },
        { slot: 2, round: 1, usd: 0.25 },
        { slot: 1, round: 2, usd: 1 },
        { slot: 2, round: 2, usd: 2 },
      ],
      priced(4),
    );
    expect(costOfSlot(view, 1)).toEqual(priced(1.5));
    expect(costOfSlot(view, 2)).toEqual(priced(2.25));
    expect(costOfRound(view.rounds[0]!)).toEqual(priced(0.75));
    expect(costOfRound(view.rounds[1]!)).toEqual(priced(3));
    expect(verdictSpend(view)).toEqual({
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
      cost: priced(0.25),
    });
  });

  it('an unpriced answer makes its model, its round and the verdict lower bounds', () => {
    const view = run(
      [
        { slot: 1, round: 1, usd: 0.5 },
        { slot: 2, round: 1, usd: 0, priced: false },
      ],
      priced(0.5, false),
    );
    expect(costOfSlot(view, 1)).toEqual(priced(0.5));
    expect(costOfSlot(view, 2)).toEqual(priced(0, false));
    expect(costOfRound(view.rounds[0]!)).toEqual(priced(0.5, false));
    expect(verdictSpend(view)?.cost).toEqual(priced(0, false));
  });

  it('answers stored before costs were reported: unknown, not zero', () => {
    expect(sumCosts([priced(1), undefined])).toBeUndefined();
    const view = emptySession();
    seq = 0;
    apply(view, ev({ type: 'answer.completed', answer: answer(1, 1, 'old') }));
    expect(costOfSlot(view, 1)).toBeUndefined();
  });
});

describe('shape', () => {
  it("changes with every event but a text delta, and with an answer's first delta (its status)", () => {
    const view = emptySession();
    const events = debate();
    const shapes: number[] = [];
    for (const e of events) {
      apply(view, e);
      shapes.push(view.shape);
    }
    // started, round.started, first delta of 1, first delta of 2, a further delta of 1 (no change), completed, ...
    expect(shapes.slice(0, 6)).toEqual([1, 2, 3, 4, 4, 5]);
  });
});

describe('a failed answer is named by what happened', () => {
  it('refused, empty and cut off are their own outcomes; anything else is a failure with its code', () => {
    expect(failureLabel({ code: 'refused' })).toBe('Refused');
    expect(failureLabel({ code: 'empty' })).toBe('Empty answer');
    expect(failureLabel({ code: 'stream_truncated' })).toBe('Cut off (partial answer)');
    expect(failureLabel({ code: 'rate_limited' })).toBe('Failed: rate_limited');
  });
});
