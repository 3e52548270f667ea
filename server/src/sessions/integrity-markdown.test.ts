import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { IntegrityReport } from '../../../sdk/src/generated/types.gen.js';
import { integritySection } from './integrity-markdown.js';
import { escapeMarkdown } from './markdown.js';

const HOSTILE = '<img src=x onerror=alert(1)> | cell [link](javascript:x) **b**';
const report: IntegrityReport = {
  vote: {
    position: '42',
    slots: [1, 2],
    share: 2 / 3,
    answered: 3,
    stated: 3,
    tie: false,
    positions: [
      { position: '42', slots: [1, 2] },
      { position: HOSTILE, slots: [3] },
    ],
  },
  verdict: { position: '42', source: 'verdict', agreesWithVote: true },
  summary: 'The verdict agrees with the round-1 vote (“42”, 2 of 3).',
  slots: [
    {
      slot: 1,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      family: 'claude',
      first: '42',
      final: '42',
      changed: false,
      direction: 'unchanged',
      reason: 'held',
    },
    {
      slot: 3,
      provider: 'ollama',
      model: 'qwen2.5:7b',
      family: 'qwen',
      first: HOSTILE,
      final: '42',
      changed: true,
      direction: 'towards_majority',
      towards: [1, 2],
      reason: 'stated',
      reasonText: HOSTILE,
    },
  ],
  flags: [{ kind: 'conformity', slots: [3], message: `Slot 3 moved (${HOSTILE}).` }],
  adaptive: { threshold: 0.6, agreement: 2 / 3, stopped: false },
};

describe('integritySection', () => {
  const lines = integritySection(report, (t) => escapeMarkdown(t.replace(/\s+/g, ' ')));
  const md = lines.join('\n');

  it('says in one line what the verdict did with the vote, then the vote, each slot and the flags', () => {
    expect(lines.slice(0, 3)).toEqual(['## Integrity', '', '**The verdict agrees with the round-1 vote (“42”, 2 of 3).**']);
    expect(md).toContain('- Round-1 vote: 42 (2 of 3); 3 of 3 answers stated a position');
    expect(md).toContain("- Verdict's position: 42 (verdict)");
    expect(md).toContain('- Adaptive: agreement 67 %, threshold 60 % — debated on');
    expect(md).toContain('| 1 | anthropic claude-sonnet-4-5 (claude) | 42 | 42 | held | — |');
    expect(md).toContain('- **Conformity** — Slot 3 moved');
  });

  it('keeps model text inert: no HTML, no link, no cell it could end', () => {
    const html = new MarkdownIt({ html: true, linkify: false }).render(md);
    expect(html).not.toMatch(/<img|<a |onerror="/);
    const row = lines.find((l) => l.startsWith('| 3 |'))!;
    // Six cells and the edges: a `|` in model text is escaped.
    expect(row.split(/(?<!\\)\|/).length).toBe(8);
    expect(html.match(/<tr>/g)).toHaveLength(3);
  });
});
