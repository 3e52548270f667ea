import { describe, expect, it } from 'vitest';
import { mergeConsensus, normalizeStatement } from './consensus.js';
import type { FinalPosition } from './prompts.js';

const report = (r: Partial<FinalPosition>): FinalPosition => ({
  position: 'p',
  changed: false,
  changeReason: 'held',
  agreements: [],
  disagreements: [],
  ...r,
});

describe('mergeConsensus', () => {
  const panel = new Set([1, 2, 3, 4, 5]);

  it('merges the same agreement told by several models into one entry with the union of slots', () => {
    const c = mergeConsensus(
      3,
      [
        report({ agreements: [{ statement: 'Ship behind a flag.', slots: [1, 2] }] }),
        report({
          agreements: [
            { statement: 'ship  behind a FLAG', slots: [3, 2] },
            { statement: 'Measure first', slots: [3] },
          ],
        }),
      ],
      panel,
    );
    expect(c).toEqual({
      round: 3,
      agreements: [
        { statement: 'Ship behind a flag.', slots: [1, 2, 3] },
        { statement: 'Measure first', slots: [3] },
      ],
      disagreements: [],
    });
  });

  it('merges disagreements by topic and positions by text, and drops slots outside the panel', () => {
    const c = mergeConsensus(
      2,
      [
        report({ disagreements: [{ topic: 'Timing', positions: [{ position: 'Now', slots: [1, 9 as never] }] }] }),
        report({
          disagreements: [
            {
              topic: 'timing.',
              positions: [
                { position: 'now', slots: [2] },
                { position: 'Next quarter', slots: [4] },
              ],
            },
            { topic: 'Ghosts', positions: [{ position: 'x', slots: [5] }] },
          ],
        }),
      ],
      new Set([1, 2, 4]),
    );
    expect(c.disagreements).toEqual([
      {
        topic: 'Timing',
        positions: [
          { position: 'Now', slots: [1, 2] },
          { position: 'Next quarter', slots: [4] },
        ],
      },
    ]);
  });

  it('normalizes case, spacing and closing punctuation only', () => {
    expect(normalizeStatement('  A  b\tC. ')).toBe('a b c');
    expect(normalizeStatement('Not the same?')).toBe('not the same?');
  });
});

describe('mergeConsensus, as shown', () => {
  it('shows each statement, topic and position as first told, without the spaces around it', () => {
    const c = mergeConsensus(
      2,
      [
        report({
          agreements: [{ statement: '  Ship behind a flag.\n', slots: [1] }],
          disagreements: [{ topic: ' Rollout ', positions: [{ position: '\tAll at once ', slots: [2] }] }],
        }),
      ],
      new Set([1, 2]),
    );
    expect(c).toEqual({
      round: 2,
      agreements: [{ statement: 'Ship behind a flag.', slots: [1] }],
      disagreements: [{ topic: 'Rollout', positions: [{ position: 'All at once', slots: [2] }] }],
    });
  });
});
