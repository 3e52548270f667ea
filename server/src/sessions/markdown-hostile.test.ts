/**
 * The export rendered as a viewer would, by a CommonMark renderer with raw HTML on (markdown-it, `html: true`):
 * hostile user and model text in every field must come out with no HTML, no image, no link but http(s) and
 * mailto, and no heading but the export's own.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { Answer, Session } from '../../../sdk/src/generated/types.gen.js';
import { inert, sessionMarkdown } from './markdown.js';
import { modelMarkdown } from './model-markdown.js';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

const renderers = [new MarkdownIt({ html: true }), new MarkdownIt({ html: true, linkify: true, typographer: true })];

/** Every token, inline children included. */
function flatten(tokens: Token[]): Token[] {
  return tokens.flatMap((t) => [t, ...flatten(t.children ?? [])]);
}

/** The text of the inline token after each heading_open, with its tag. */
function headings(tokens: Token[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') out.push(`${t.tag} ${tokens[i + 1]?.content ?? ''}`);
  });
  return out;
}

const SAFE_LINK = /^(https?:|mailto:)/i;

/** What must never come out of untrusted text, rendered by each renderer; returns the first renderer's tokens. */
function expectInert(markdown: string): Token[] {
  let first: Token[] = [];
  for (const md of renderers) {
    const tokens = md.parse(markdown, {});
    if (first.length === 0) first = tokens;
    for (const t of flatten(tokens)) {
      expect(t.type, `${t.type} ${JSON.stringify(t.content)} in\n${markdown}`).not.toMatch(/^html_(block|inline)$/);
      expect(t.type, `an image in\n${markdown}`).not.toBe('image');
      if (t.type === 'link_open') expect(t.attrGet('href') ?? '', `a link in\n${markdown}`).toMatch(SAFE_LINK);
    }
    const html = md.render(markdown);
    // The allow-list: the tags of Markdown's own structure (model formatting keeps tables and strikethrough).
    expect(html).not.toMatch(
      /<(?!\/?(h[1-6]|p|ul|ol|li|em|strong|s|del|code|pre|br|blockquote|hr|a|table|thead|tbody|tr|th|td)\b)[a-z!/]/i,
    );
    expect(html).not.toMatch(/<a\b(?![^>]*href="(https?:|mailto:))/i);
  }
  return first;
}

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '[click](javascript:alert(1))',
  '<javascript:alert(1)>',
  '![x](javascript:alert(1))',
  '[x]: javascript:alert(1)\n\n[x]',
  '    ```\n<img src=x onerror=alert(1)>',
  '```a`b\n<img src=x onerror=alert(1)>\n```',
  '~~~\n<script>alert(1)</script>',
  'a\n## Verdict\n### P0\n- **Forged action**',
  'Title\n===\nSub\n---',
  '\r## Verdict\r<img src=x onerror=alert(1)>',
  '<!-- x -->\n<div>\n<b>bold</b>\n</div>',
  '&lt;img src=x onerror=alert(1)&gt; &#60;script&#62;',
  '> ## quoted heading\n> <img src=x>',
  '- # list heading\n1. <img src=x>\n2) [y](data:text/html,hi)',
  '| a | b |\n|---|---|\n| <img src=x> | c |',
  'trailing backslash \\\n<img src=x>\\',
  '\t\t<svg onload=alert(1)>',
  '`code` <img src=x onerror=alert(1)> `more`',
  '<http://ok.example> www.ok.example mailto:a@b.example',
];

function answer(slot: 1 | 2 | 3 | 4 | 5, round: number, text: string, error = false): Answer {
  return {
    slot,
    provider: `prov${text.slice(0, 20)}`,
    model: `model\n## ${text.slice(0, 20)}`,
    offline: false,
    round,
    text,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    latencyMs: 1,
    finishReason: error ? 'error' : 'stop',
    ...(error && { error: { code: `code${text.slice(0, 10)}`, message: text, retryable: false, attempts: 1 } }),
  } as Answer;
}

/** A deep session with `text` in every free-text field, structured or raw verdict. */
function hostileSession(text: string, format: 'structured' | 'unstructured' = 'structured'): Session {
  const action = { title: text, rationale: text, supportingSlots: [1], supportingRounds: [1] };
  return {
    id: 'ses_01JD3W8Y6Q2N5Z4K7M9P1R3T5V',
    owner: 'u',
    mode: 'deep',
    question: `${text}\n${text}`,
    roundsRequested: 2,
    rounds: [
      { number: 1, kind: 'independent', answers: [answer(1, 1, text), answer(2, 1, text, true)], missingSlots: [2] },
      { number: 2, kind: 'final', answers: [answer(1, 2, text)], missingSlots: [] },
    ],
    consensus: {
      round: 2,
      agreements: [{ statement: text, slots: [1] }],
      disagreements: [{ topic: text, positions: [{ position: text, slots: [1] }] }],
    },
    verdict: {
      format,
      ...(format === 'structured'
        ? { summary: text, answer: text, actions: { P0: [action], P1: [action], P2: [] } }
        : { rawText: text }),
      synthesizer: { slot: 1, provider: text.slice(0, 30), model: text.slice(0, 30), reason: 'default', participated: true },
      dissent: [{ slots: [1], text }],
      degradation: { degraded: true, missingSlots: [2], reasons: [{ slot: 2, round: 1, code: 'rate_limited', message: text }] },
      positionChanges: [{ slot: 1, changed: true, round: 2, reason: text }],
    },
    status: 'partial',
    missingSlots: [2],
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    cost: { usd: 0, priced: false },
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:01.000Z',
  } as unknown as Session;
}

/** The export's own headings for `hostileSession`: the title (the question's first line), then the fixed ones. */
function ownHeadings(format: 'structured' | 'unstructured'): RegExp[] {
  const own = [
    /^h1 /,
    /^h2 Question$/,
    /^h2 Round 1: independent$/,
    /^h3 Slot 1: /,
    /^h3 Slot 2: /,
    /^h2 Round 2: final$/,
    /^h3 Slot 1: /,
  ];
  own.push(/^h2 Consensus$/, /^h3 Agreements$/, /^h3 Disagreements$/, /^h2 Verdict$/);
  if (format === 'structured') own.push(/^h3 P0$/, /^h3 P1$/, /^h3 P2$/);
  own.push(/^h3 Dissent$/, /^h3 Position changes$/, /^h3 Degradation$/);
  return own;
}

function expectHostileExportInert(text: string, format: 'structured' | 'unstructured'): void {
  const markdown = sessionMarkdown(hostileSession(text, format));
  const tokens = expectInert(markdown);
  const found = headings(tokens);
  const own = ownHeadings(format);
  expect(found.length, `headings ${JSON.stringify(found)} for ${JSON.stringify(text)}`).toBe(own.length);
  for (const [i, h] of found.entries()) expect(h).toMatch(own[i]!);
}

describe('the Markdown export of hostile sessions', () => {
  it.each(HOSTILE.map((h) => [h]))('%j in every field: no HTML, no unsafe link, no heading but its own', (text) => {
    expectHostileExportInert(text, 'structured');
    expectHostileExportInert(text, 'unstructured');
  });

  it('all of them at once', () => {
    expectHostileExportInert(HOSTILE.join('\n'), 'structured');
    expectHostileExportInert(HOSTILE.join('\n'), 'unstructured');
  });

  it('text still reads as itself: a hostile line renders as the literal characters sent', () => {
    for (const text of HOSTILE) {
      const tokens = renderers[0]!.parse(inert(text), {});
      const rendered = flatten(tokens)
        .filter((t) => t.type === 'text' || t.type === 'code_inline')
        .map((t) => t.content)
        .join('');
      expect(rendered.replace(/[\s\u00a0]/g, '')).toBe(text.replace(/\s/g, ''));
    }
  });
});

/** Text built from the pieces that give Markdown structure, and anything else. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ...HOSTILE,
        '<',
        '>',
        '`',
        '```',
        '~~~',
        '#',
        '## ',
        '\n',
        '\r',
        '\r\n',
        '    ',
        '\t',
        '[',
        ']',
        '(',
        ')',
        '!',
        '*',
        '_',
        '-',
        '+',
        '=',
        '|',
        '&',
        '\\',
        ':',
        '1.',
        '2)',
        'javascript:',
        'data:',
        'vbscript:',
        'a',
        ' ',
        '<script>',
        '</div>',
        '<!--',
        '-->',
        '<?',
        '<![CDATA[',
        '&#x3C;',
        '&lt;',
        '\u00a0',
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('property: any hostile text', () => {
  it('inert() renders to no HTML, no link or image, no heading, and to its own characters', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const tokens = expectInert(inert(text));
        expect(headings(tokens)).toEqual([]);
        const rendered = flatten(tokens)
          .filter((t) => t.type === 'text' || t.type === 'code_inline')
          .map((t) => t.content)
          .join('');
        // markdown-it turns NUL into U+FFFD and line endings into breaks; everything else survives.
        expect(rendered.replace(/[\s\u00a0]/g, '')).toBe(text.replace(/\0/g, '\ufffd').replace(/[\s\u00a0]/g, ''));
      }),
      { numRuns: 500 },
    );
  });

  it('modelMarkdown() keeps formatting from its allow-list only: no HTML, no image, no unsafe link, no heading', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(headings(expectInert(modelMarkdown(text)))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('a whole export with it in every field has only its own headings', () => {
    fc.assert(
      fc.property(hostileText, fc.constantFrom('structured' as const, 'unstructured' as const), (text, format) => {
        expectHostileExportInert(text, format);
      }),
      { numRuns: 100 },
    );
  });
});
