import { describe, expect, it } from 'vitest';
import { wilson } from './stats.js';

describe('wilson', () => {
  it('matches the textbook values', () => {
    // 7 of 10: 0.3968–0.8922 (Wilson 1927; Newcombe 1998, table I).
    const { low, high } = wilson(7, 10);
    expect(low).toBeCloseTo(0.3968, 3);
    expect(high).toBeCloseTo(0.8922, 3);
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(0, 10).high).toBeCloseTo(0.2775, 3);
    expect(wilson(10, 10).high).toBeCloseTo(1, 12);
    expect(wilson(10, 10).low).toBeCloseTo(0.7225, 3);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});
