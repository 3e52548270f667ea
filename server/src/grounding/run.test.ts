import { describe, expect, it } from 'vitest';
import type { Grounding, GroundingPage, Verdict } from '../../../sdk/src/generated/types.gen.js';
import { GroundingRun } from './run.js';
import { WikiSource } from './wiki-source.js';

/** A source no request ever reaches: these runs are resumed from a stored grounding and read nothing more. */
const source = new WikiSource({
  name: 'team-wiki',
  api: 'http://0.0.0.0/never/api.php',
  userAgent: 'Consilium tests',
  limits: { pages: 2, bytesPerPage: 400, requestsPerRound: 0, maxResponseBytes: 65_536 },
  timeoutMs: 100,
});

const page = (n: number, title: string, text: string): GroundingPage => ({
  n,
  title,
  pageId: 100 + n,
  revisionId: 1000 + n,
  url: `http://wiki.invalid/index.php?oldid=${1000 + n}`,
  text,
  sha256: `${n}`.repeat(64),
  retrievedBy: 'search',
});

const stored: Grounding = {
  source: 'team-wiki',
  status: 'complete',
  pages: [page(1, 'Deploy policy', 'Deploys happen on Tuesdays.'), page(2, 'On call', 'The pager rotates weekly.')],
  citations: [],
  verifiedCitations: 0,
  unverifiedCitations: 0,
  lookups: [],
  usage: { requests: 2, bytes: 80, ms: 5 },
};

const verdict = (over: Partial<Verdict>): Verdict => ({
  format: 'structured',
  summary: 'Deploy on Tuesdays.',
  answer: 'Keep the policy.',
  actions: { P0: [], P1: [], P2: [] },
  synthesizer: { slot: 2, provider: 'openai', model: 'gpt-5', reason: 'default', participated: true },
  dissent: [],
  degradation: { degraded: false, missingSlots: [], reasons: [] },
  positionChanges: [],
  ...over,
});

const resumed = () => new GroundingRun({ source, from: structuredClone(stored) });

describe('GroundingRun: the verdict’s citations', () => {
  it('checks the dissent’s citations as it checks the summary’s: a quotation not on the cited page is unverified', () => {
    const run = resumed();
    run.verdict(
      verdict({
        dissent: [
          { slots: [4], text: 'But "the pager rotates weekly" [2], and "deploys happen on Fridays" [1].' },
          { slots: [5], text: 'See [7].' },
        ],
      }),
    );
    expect(run.citations).toEqual([
      { round: 0, slot: 2, ref: '2', quote: 'the pager rotates weekly', verified: true, source: 2 },
      { round: 0, slot: 2, ref: '1', quote: 'deploys happen on Fridays', verified: false, reason: 'quote_not_found' },
      { round: 0, slot: 2, ref: '7', verified: false, reason: 'not_retrieved' },
    ]);
    expect(run.snapshot()).toMatchObject({ verifiedCitations: 1, unverifiedCitations: 2 });
  });
});
