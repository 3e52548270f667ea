import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng } from '../providers/offline/seeded-random.js';
import { assignLabels, labelMaps, namedFinal, readHolders, slotsOf } from './anonymise.js';

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

describe('labels as models write them', () => {
  // Reader 3 sees slot 4 as A and slot 2 as B; slot 1 is not among its peers.
  const labels = [
    { label: 'A' as const, slot: 4 as const },
    { label: 'B' as const, slot: 2 as const },
  ];
  const names = [
    { slot: 1 as const, provider: 'openai', model: 'gpt-4o' },
    { slot: 2 as const, provider: 'anthropic', model: 'claude-sonnet-4-5' },
    { slot: 3 as const, provider: 'google', model: 'gemini-2.5-pro' },
    { slot: 4 as const, provider: 'xai', model: 'grok-4' },
  ];
  const read = (holder: string) => readHolders([holder], 3, labels, names);

  it.each([
    ['Response A', [4]],
    ['A', [4]],
    ['response a', [4]],
    ['[A]', [4]],
    ['(A)', [4]],
    ['Answer A', [4]],
    ['**Response B**', [2]],
    ['"B".', [2]],
    ['Model B', [2]],
    ['the response B', [2]],
    ['Responses A and B', [2, 4]],
    ['A, B', [2, 4]],
    ['A & you', [3, 4]],
    ['You', [3]],
    ['me', [3]],
    ['your response', [3]],
    ['Slot 3', [3]],
    ['slot 3 (google)', [3]],
    ['slot 2', [2]],
    ['anthropic', [2]],
    ['Grok-4', [4]],
  ])('%s credits %j', (holder, slots) => {
    expect(read(holder)).toEqual({ slots, unmatched: [] });
  });

  it('returns what names no slot of the reader, never crediting it', () => {
    expect(read('Response C')).toEqual({ slots: [], unmatched: ['Response C'] });
    // Slot 1 is on the panel but not among this reader's peers: naming it credits no one.
    expect(read('slot 1')).toEqual({ slots: [], unmatched: ['slot 1'] });
    expect(read('openai')).toEqual({ slots: [], unmatched: ['openai'] });
    expect(read('A and the rest')).toEqual({ slots: [4], unmatched: ['the rest'] });
  });

  it('a final position reports each unmatched holder with the statement it was given for', () => {
    const unmatched: unknown[] = [];
    const final = namedFinal(
      {
        position: 'p',
        changed: false,
        changeReason: 'r',
        agreements: [{ statement: 'Ship small first', responses: ['Response Z', 'you'] }],
        disagreements: [{ topic: 'When', positions: [{ position: 'Now', responses: ['Participant 7'] }] }],
      },
      3,
      labels,
      names,
      (u) => unmatched.push(u),
    );
    expect(final.agreements).toEqual([{ statement: 'Ship small first', slots: [3] }]);
    expect(final.disagreements[0]!.positions[0]!.slots).toEqual([]);
    expect(unmatched).toEqual([
      { statement: 'Ship small first', text: 'Response Z' },
      { statement: 'When: Now', text: 'Participant 7' },
    ]);
  });
});
