import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregate, ballotOf, rankingNote, rankingOf } from './ranking.js';

const labels = [
  { label: 'A' as const, slot: 3 as const },
  { label: 'B' as const, slot: 1 as const },
  { label: 'C' as const, slot: 5 as const },
];

describe('ballotOf', () => {
  it('maps labels to slots, best first', () => {
    const reply = { ranking: ['C', 'Response A', 'b'].map((response) => ({ response, reason: '  fine\nreason ' })) };
    expect(ballotOf(reply, 2, labels)).toEqual({
      slot: 2,
      order: [
        { slot: 5, reason: 'fine reason' },
        { slot: 3, reason: 'fine reason' },
        { slot: 1, reason: 'fine reason' },
      ],
    });
  });

  it('refuses a ballot that repeats, leaves out or invents a response', () => {
    const of = (...r: string[]) => ballotOf({ ranking: r.map((response) => ({ response, reason: '' })) }, 2, labels);
    expect(of('A', 'A', 'B')).toEqual({ invalid: 'ranked response A twice' });
    expect(of('A', 'C')).toEqual({ invalid: 'left out response B' });
    expect(of('A', 'B', 'C', 'D')).toEqual({ invalid: 'ranked "D", which it was not shown' });
  });

  it('refuses a ballot that ranks its own answer', () => {
    expect(ballotOf({ ranking: [{ response: 'A', reason: '' }] }, 3, [labels[0]!])).toEqual({ invalid: 'ranked its own answer' });
  });
});

/** Borda written apart: per-ballot points k−1…0, ordered by points per ballot; equal scores share the lower rank. */
function reference(ballots: number[][], candidates: number[]) {
  const score = (c: number) => {
    const mine = ballots.filter((b) => b.includes(c));
    const points = mine.reduce((sum, b) => sum + b.length - 1 - b.indexOf(c), 0);
    return { points, ballots: mine.length, score: mine.length ? points / mine.length : 0 };
  };
  return candidates
    .map((slot) => ({ slot, ...score(slot) }))
    .map((e, _, all) => ({
      ...e,
      rank: 1 + all.filter((o) => o.score > e.score).length,
      tied: all.filter((o) => o.score === e.score).length > 1,
    }))
    .sort((a, b) => a.rank - b.rank || a.slot - b.slot)
    .map(({ score: _s, ...rest }) => rest);
}

describe('aggregate (Borda count)', () => {
  it('property: equals the reference count, ties included, over any ballots that leave out their own slot, of any lengths', () => {
    let runs = 0;
    let unequal = 0;
    fc.assert(
      fc.property(
        fc.subarray([1, 2, 3, 4, 5], { minLength: 2 }),
        fc.array(
          fc.tuple(
            fc.nat(4),
            fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
            // Which of the others each ballot leaves out (it always ranks one at least): a ballot of k answers
            // gives k−1 points at most, so ballots of different lengths weigh their places differently.
            fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
          ),
        ),
        (candidates, raw) => {
          // Each ballot: a ranker among the candidates, ordering some of the others by random keys; a ranker votes once.
          const rankers = new Set<number>();
          const ballots = raw.flatMap(([r, keys, left]) => {
            const ranker = candidates[r % candidates.length]!;
            if (rankers.has(ranker)) return [];
            rankers.add(ranker);
            const others = candidates.filter((c) => c !== ranker);
            const kept = others.filter((c) => !left[c - 1]);
            const order = (kept.length > 0 ? kept : others.slice(0, 1)).sort((a, b) => keys[a - 1]! - keys[b - 1]! || a - b);
            return [{ slot: ranker as 1, order: order.map((slot) => ({ slot: slot as 1, reason: '' })) }];
          });
          runs++;
          if (new Set(ballots.map((b) => b.order.length)).size > 1) unequal++;
          const got = aggregate(ballots, candidates).aggregate.map(({ slot, points, ballots: n, rank, tied }) => ({
            slot,
            points,
            ballots: n,
            rank,
            tied,
          }));
          expect(got).toEqual(
            reference(
              ballots.map((b) => b.order.map((o) => o.slot)),
              candidates,
            ),
          );
        },
      ),
      { numRuns: 500 },
    );
    // The generator does build ballots of different lengths, in a good share of runs.
    expect(unequal).toBeGreaterThan(runs / 5);
  });

  it('explains ties, and skips the next rank', () => {
    const ballot = (slot: number, ...order: number[]) => ({
      slot: slot as 1,
      order: order.map((s) => ({ slot: s as 1, reason: '' })),
    });
    const r = rankingOf(1, [ballot(1, 2, 3), ballot(2, 3, 1), ballot(3, 1, 2)], [], [1, 2, 3]);
    expect(r.aggregate.map((e) => [e.slot, e.rank, e.points, e.tied])).toEqual([
      [1, 1, 1, true],
      [2, 1, 1, true],
      [3, 1, 1, true],
    ]);
    expect(r.note).toContain('slots 1 and 2 and 3 share rank 1');
    const two = rankingOf(1, [ballot(1, 2, 3), ballot(4, 2, 3, 1)], [{ slot: 5, reason: 'x' }], [1, 2, 3, 4]);
    expect(two.aggregate.map((e) => [e.slot, e.rank])).toEqual([
      [2, 1],
      [3, 2],
      [1, 3],
      [4, 3],
    ]);
    expect(two.note).toContain('the next rank is skipped');
    expect(rankingNote(two)).toContain('Slot 5 gave no usable ranking: x.');
  });
});
