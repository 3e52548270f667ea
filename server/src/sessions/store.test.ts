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
    expect(damageOf(d.raised)).toBeUndefined();
  });

  it('events missing between two stored ones, named', () => {
    const d = completed();
    const cut = [...d.raised.slice(0, 4), ...d.raised.slice(9)];
    expect(damageOf(cut)).toStrictEqual({ lost: [5, 9], why: 'events 5–9 of the session were lost (a database failover?)' });
    // Once found and said, that range is known: only another one is news.
    expect(damageOf(cut, [[5, 9]])).toBeUndefined();
    expect(damageOf([...cut.slice(0, 6), ...cut.slice(8)], [[5, 9]])?.lost).toStrictEqual([cut[5]!.seq + 1, cut[8]!.seq - 1]);
  });

  it('not the jumps a recovery and a continued run leave (this limit and the earlier one)', () => {
    const d = completed();
    const renumbered = (seqs: number[]) => d.raised.slice(0, seqs.length).map((e, i) => ({ ...e, seq: seqs[i]! }));
    for (const limit of [UNSAVED_SEQ_LIMIT, 100_000]) {
      // Recovery numbers its end above anything the stopped run could have shown.
      expect(damageOf(renumbered([1, 2, 3, 3 + limit + 1]))).toBeUndefined();
      // Continued: that end removed, the continued run's events after where it was.
      expect(damageOf(renumbered([1, 2, 3, 3 + limit + 2, 3 + limit + 3]))).toBeUndefined();
      expect(damageOf(renumbered([1, 2, 3, 3 + limit + 3]))?.why).toMatch(/were lost/);
    }
  });
});
