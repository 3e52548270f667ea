import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng } from '../providers/offline/seeded-random.js';
import { assignLabels, labelMaps, namedFinal, slotsOf } from './anonymise.js';

const FIVE = [1, 2, 3, 4, 5];

describe('assignLabels', () => {
  it('property: each reader gets every quoted slot but itself; a label never names one slot for two readers', () => {
    fc.assert(
      fc.property(
        fc.subarray(FIVE, { minLength: 2 }),
        fc.subarray(FIVE, { minLength: 1 }),
        fc.string(),
        (readers, quoted, seed) => {
          const labels = assignLabels(readers, quoted, seededRng(seed));
          expect([...labels.keys()].sort()).toEqual([...readers].sort());
          for (const [reader, responses] of labels) {
            expect(responses.map((r) => r.slot).sort()).toEqual(quoted.filter((q) => q !== reader).sort());
            // Labels in order, each once.
            expect(responses.map((r) => r.label)).toEqual([...responses.map((r) => r.label)].sort());
            expect(new Set(responses.map((r) => r.label)).size).toBe(responses.length);
          }
          const byLabel = new Map<string, number[]>();
          for (const responses of labels.values())
            for (const r of responses) byLabel.set(r.label, [...(byLabel.get(r.label) ?? []), r.slot]);
          for (const slots of byLabel.values()) expect(new Set(slots).size).toBe(slots.length);
        },
      ),
    );
  });

  it('shuffles the whole mapping: thousands of draws for five slots give every one of the 144 possible', () => {
    // 144 mappings (24 cycles × 24 offset orders, each counted 4 times: a power of the cycle with its offsets divided is the same mapping); fixing the cycle or the offsets leaves 24.
    const random = seededRng('spread');
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(JSON.stringify(labelMaps(2, 'debate', assignLabels(FIVE, FIVE, random))));
    expect(seen.size).toBe(144);
  });
});

describe('mapping labels back', () => {
  const labels = [
    { label: 'A' as const, slot: 4 as const },
    { label: 'B' as const, slot: 2 as const },
  ];

  it('"you" is the reader, a label its slot, an unknown label no one', () => {
    expect(slotsOf(['you', 'A', 'response b', 'Z', 'C'], 3, labels)).toEqual([2, 3, 4]);
  });

  it('a final position credits slots, never labels', () => {
    const final = namedFinal(
      {
        position: 'p',
        changed: true,
        changeReason: 'r',
        agreements: [{ statement: 's', responses: ['B', 'you'] }],
        disagreements: [{ topic: 't', positions: [{ position: 'x', responses: ['A'] }] }],
      },
      5,
      labels,
    );
    expect(final.agreements).toEqual([{ statement: 's', slots: [2, 5] }]);
    expect(final.disagreements).toEqual([{ topic: 't', positions: [{ position: 'x', slots: [4] }] }]);
  });
});
