import { describe, expect, it } from 'vitest';
import { hash53, intBetween, pick, seededRng, shuffled } from './seeded-random.js';

describe('seededRng', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const draw = (seed: string) => Array.from({ length: 8 }, seededRng(seed));
    expect(draw('anthropic|question')).toEqual(draw('anthropic|question'));
    expect(draw('anthropic|question')).not.toEqual(draw('openai|question'));
  });

  it('stays in [0, 1)', () => {
    const rng = seededRng('range');
    for (let i = 0; i < 10_000; i++) {
      const x = rng();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it('hash53 is a safe integer and sensitive to every character', () => {
    expect(Number.isSafeInteger(hash53('abc'))).toBe(true);
    expect(hash53('abc')).not.toBe(hash53('abd'));
    expect(hash53('abc', 1)).not.toBe(hash53('abc', 2));
  });
});

describe('helpers', () => {
  it('intBetween covers both ends and nothing outside', () => {
    const rng = seededRng('ints');
    const seen = new Set(Array.from({ length: 500 }, () => intBetween(rng, 1, 5)));
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('pick refuses an empty list; shuffled keeps every item', () => {
    const rng = seededRng('pick');
    expect(() => pick(rng, [])).toThrow(RangeError);
    expect(shuffled(rng, [1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
