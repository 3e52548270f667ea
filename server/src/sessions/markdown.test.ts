import { describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../config/slots.js';
import { DebateEngine } from '../debate/engine.js';
import { createSlotModel } from '../providers/models.js';
import { escapeMarkdown, inert, sessionMarkdown } from './markdown.js';

function offlineEngine(): DebateEngine {
  return new DebateEngine({
    panel: slotsFromEnv({}).map((config) => ({ config, model: createSlotModel(config, {}, { offline: { tokenDelayMs: 0 } }) })),
    quorum: 3,
    callTimeoutMs: 30_000,
    maxRetries: 0,
    prices: {},
    owner: 'test',
  });
}

describe('sessionMarkdown', () => {
  it('reads top to bottom: the question, every round per model, the consensus, the verdict with P0/P1/P2', async () => {
    const session = await offlineEngine().deep('Should we shard the sessions table by owner?', { rounds: 3 });
    const md = sessionMarkdown(session);
    const at = (text: string) => {
      const index = md.indexOf(text);
      expect(index, text).toBeGreaterThanOrEqual(0);
      return index;
    };
    const order = [
      at('# Should we shard the sessions table by owner?'),
      at('## Round 1: independent'),
      at('## Round 2: critique'),
      at('## Round 3: final'),
      at('## Consensus'),
      at('## Verdict'),
      at('### P0'),
      at('### P1'),
      at('### P2'),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const round of session.rounds) {
      for (const answer of round.answers) {
        expect(md).toContain(`### Slot ${answer.slot}: ${answer.provider} (${answer.model}, offline)`);
        expect(md).toContain(escapeMarkdown(answer.text.split('\n')[0]!.trim()));
      }
    }
    expect(md).toContain(`Status: **${session.status}**`);
    for (const action of session.verdict!.actions!.P0) expect(md).toContain(escapeMarkdown(action.title));
  });

  it('names failed answers and an unstructured verdict honestly', () => {
    const session: Session = {
      id: 'ses_01JD3W8Y6Q2N5Z4K7M9P1R3T5V',
      owner: 'local',
      mode: 'deep',
      question: 'Why?',
      roundsRequested: 2,
      rounds: [
        {
          number: 1,
          kind: 'independent',
          answers: [
            {
              slot: 2,
              provider: 'openai',
              model: 'gpt-x',
              offline: false,
              round: 1,
              text: '',
              usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 },
              latencyMs: 5,
              finishReason: 'error',
              error: { code: 'rate_limited', message: '429 Too Many Requests', retryable: true, attempts: 3 },
            },
          ],
          missingSlots: [2],
        },
      ],
      verdict: {
        format: 'unstructured',
        rawText: 'not json ``` at all',
        synthesizer: { slot: 3, provider: 'deepseek', model: 'ds', reason: 'fallback', fallbackFrom: 1, participated: true },
        dissent: [],
        degradation: {
          degraded: true,
          missingSlots: [2],
          reasons: [{ slot: 2, round: 1, code: 'rate_limited', message: '429' }],
        },
        positionChanges: [],
      },
      status: 'partial',
      missingSlots: [2],
      usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 },
      cost: { usd: 0, priced: false },
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:01.000Z',
      endReason: 'slots_failed: slot 2 in round 1 (rate_limited)',
      unmatchedLabels: [{ round: 2, reader: 3, statement: 'Ship *small* first', text: 'Response Z' }],
    };
    const md = sessionMarkdown(session);
    expect(md).toContain('- Did not complete: slots\\_failed: slot 2 in round 1 (rate\\_limited)');
    expect(md).toContain('- Slot 3, round 2: Ship \\*small\\* first — “Response Z”');
    expect(md).toContain('_Failed: rate\\_limited — 429 Too Many Requests_');
    expect(md).toContain('missing slot 2');
    expect(md).toContain('standing in for slot 1');
    expect(md).toContain('The verdict did not validate; this is its raw text.');
    // The raw text sits in a fence longer than any backtick run inside it.
    expect(md).toContain('````text\nnot json ``` at all\n````');
    expect(md).toContain('(lower bound: some usage had no price)');
  });
});

describe('inert', () => {
  it('escapes every structural character, keeps each line with a hard break, and indents with no-break spaces', () => {
    const text =
      'Hi <script>alert(1)</script> and `<b>` here\n> quoted\n\n```html\n    <img src=x onerror=alert(1)>\n## Verdict\n1. [x](javascript:alert(1))';
    expect(inert(text)).toBe(
      [
        'Hi \\<script\\>alert(1)\\</script\\> and \\`\\<b\\>\\` here\\',
        '\\> quoted',
        '',
        '\\`\\`\\`html\\',
        '\u00a0\u00a0\u00a0\u00a0\\<img src=x onerror=alert(1)\\>\\',
        '\\#\\# Verdict\\',
        '1\\. \\[x\\](javascript:alert(1))',
      ].join('\n'),
    );
  });
});
