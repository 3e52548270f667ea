import { describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { sessionMarkdown } from './markdown.js';

const base: Session = {
  id: 'ses_01JD3W8Y6Q2N5Z4K7M9P1R3T5V',
  owner: 'u',
  mode: 'deep',
  question: 'Which queue?',
  roundsRequested: 2,
  rounds: [],
  status: 'completed',
  missingSlots: [],
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  cost: { usd: 0, priced: true },
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
};

describe('the export of a chosen, anonymous, ranked panel', () => {
  it('names the panel, who was behind each label, the ranking with its reasons escaped, and every prompt cut', () => {
    const md = sessionMarkdown({
      ...base,
      panel: { slots: [2, 4], synthesizer: 3, anonymous: true, ranking: true, models: [{ slot: 2, model: 'gpt-4.1-mini' }] },
      labels: [{ round: 2, purpose: 'debate', reader: 2, responses: [{ label: 'A', slot: 4 }] }],
      rankings: [
        {
          round: 1,
          ballots: [{ slot: 2, order: [{ slot: 4, reason: '<img src=x onerror=alert(1)> best' }] }],
          missing: [{ slot: 4, reason: 'fewer than two other answers to rank' }],
          aggregate: [
            { slot: 4, rank: 1, points: 0, ballots: 1, score: 0, tied: true },
            { slot: 2, rank: 1, points: 0, ballots: 0, score: 0, tied: true },
          ],
          note: 'Tied on Borda points per ballot',
        },
      ],
      promptCuts: [{ round: 2, reader: 2, slot: 4, quotedRound: 1, chars: 5_000_000, keptChars: 160_000 }],
    });
    expect(md).toContain(
      '- Panel: slots 2, 4; synthesizer slot 3; peers anonymous, in a shuffled order; peer ranking; slot 2 on model gpt-4.1-mini',
    );
    expect(md).toContain(
      '## Peer ranking after round 1\n\n1. Slot 4: 0 Borda points from 1 ballot (tied)\n1. Slot 2: 0 Borda points from 0 ballots (tied)',
    );
    // Escaped, so a renderer shows it as text.
    expect(md).toContain('slot 4 (\\<img');
    expect(md).not.toMatch(/[^\\]<img/);
    expect(md).toContain('- Slot 4 gave no ranking: fewer than two other answers to rank');
    expect(md).toContain('- round 2, slot 2 read: A = slot 4');
    expect(md).toContain("- round 2, slot 2's prompt: slot 4's answer (round 1) kept 160000 of 5000000 characters");
  });

  it('says nothing of a panel a session did not record', () => {
    const md = sessionMarkdown(base);
    expect(md).not.toMatch(/Panel:|Peer ranking|behind each label|Prompts cut/);
  });
});
