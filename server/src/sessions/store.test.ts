import { describe, expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import { damageOf, UNSAVED_SEQ_LIMIT } from './store.js';

/** A completed two-round debate of five slots. */
function completed(): FakeDebate {
  const d = new FakeDebate({ owner: 'usr_damage', roundsRequested: 2 }).start();
  for (const round of [1, 2]) {
    d.startRound(round);
    for (const slot of [1, 2, 3, 4, 5]) d.answer(round, slot);
    d.endRound(round);
  }
  d.consensus();
  d.verdict();
  return d.end('completed');
}

describe('damageOf: what a record lacks', () => {
  it('nothing, for a whole record', () => {
    const d = completed();
    expect(damageOf(d.session, d.raised)).toBeUndefined();
  });

  it('events missing between two stored ones, named', () => {
    const d = completed();
    const cut = [...d.raised.slice(0, 4), ...d.raised.slice(9)];
    expect(damageOf(d.session, cut)).toBe(`events 5–9 of the session were lost (a database failover?)`);
  });

  it('not the jumps a recovery and a continued run leave (this limit and the earlier one)', () => {
    const d = completed();
    // Only the numbering is looked at here: a partial session says itself which answers it lacks.
    const session = { ...d.session, status: 'partial' as const };
    const renumbered = (seqs: number[]) => d.raised.slice(0, seqs.length).map((e, i) => ({ ...e, seq: seqs[i]! }));
    for (const limit of [UNSAVED_SEQ_LIMIT, 100_000]) {
      // Recovery numbers its end above anything the stopped run could have shown.
      expect(damageOf(session, renumbered([1, 2, 3, 3 + limit + 1]))).toBeUndefined();
      // Continued: that end removed, the continued run's events after where it was.
      expect(damageOf(session, renumbered([1, 2, 3, 3 + limit + 2, 3 + limit + 3]))).toBeUndefined();
      expect(damageOf(session, renumbered([1, 2, 3, 3 + limit + 3]))).toMatch(/were lost/);
    }
  });

  it('a completed session missing an answer its round asked for', () => {
    const d = completed();
    const session = {
      ...d.session,
      rounds: d.session.rounds.map((r) => (r.number === 2 ? { ...r, answers: r.answers.slice(0, 3) } : r)),
    };
    expect(damageOf(session, d.raised)).toBe('answers of slots 4, 5 are missing');
    // A partial one says itself what it lacks.
    expect(damageOf({ ...session, status: 'partial', missingSlots: [4, 5] }, d.raised)).toBeUndefined();
  });
});
