import { describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { THREAD_CHARS, THREAD_EXCHANGES, threadContext } from './thread.js';

function session(n: number, extra: Partial<Session> = {}): Session {
  return {
    id: `ses_${String(n).padStart(12, '0')}`,
    owner: 'local',
    mode: 'deep',
    question: `Question number ${n}: ${'why '.repeat(200)}`,
    roundsRequested: 2,
    rounds: [],
    status: 'completed',
    missingSlots: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    cost: { usd: 0, priced: true },
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    consensus: { round: 2, agreements: [{ statement: `Agreed ${n}`, slots: [1, 2] }], disagreements: [] },
    verdict: {
      format: 'structured',
      summary: `Summary ${n}. ${'long '.repeat(300)}`,
      answer: `Answer ${n}.`,
      actions: { P0: [{ title: `Do ${n}`, rationale: 'r', supportingSlots: [1], supportingRounds: [1] }], P1: [], P2: [] },
      dissent: [],
      synthesizer: { slot: 1, provider: 'anthropic', model: 'm', reason: 'default', participated: true },
      degradation: { degraded: false, missingSlots: [], reasons: [] },
      positionChanges: [],
    },
    ...extra,
  };
}

describe('threadContext', () => {
  it('shows each earlier question with its consensus, verdict and actions', () => {
    const text = threadContext([session(1)]);
    expect(text).toMatch(/^### Earlier question 1\nAsked \(deep\): Question number 1: why/);
    expect(text).toContain('The panel agreed: Agreed 1');
    expect(text).toContain('Verdict: Summary 1.');
    expect(text).toContain('Actions: P0 Do 1');
  });

  it('uses the answers when there is no verdict', () => {
    const answer = {
      slot: 2,
      provider: 'openai',
      model: 'm',
      offline: false,
      round: 1,
      text: 'Use a queue.',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      latencyMs: 1,
      finishReason: 'stop',
    } as const;
    const single = session(1, {
      mode: 'single',
      consensus: undefined,
      verdict: undefined,
      rounds: [{ number: 1, kind: 'independent', answers: [answer], missingSlots: [] }],
    });
    expect(threadContext([single])).toContain('Slot 2 (openai) answered: Use a queue.');
  });

  it('stays bounded however long the thread: the latest exchanges, the rest counted', () => {
    const thread = Array.from({ length: 30 }, (_, i) => session(i + 1));
    const text = threadContext(thread);
    expect(text.length).toBeLessThanOrEqual(THREAD_CHARS);
    expect(text).toContain('### Earlier question 30');
    expect(text).not.toContain('### Earlier question 26\n');
    expect(text).toMatch(/^\(\d+ earlier exchanges not shown\.\)/);
    expect(text.match(/### Earlier question/g)!.length).toBeLessThanOrEqual(THREAD_EXCHANGES);
  });
});

describe('threadContext, line by line', () => {
  const answer = (slot: number, text: string, error?: boolean) => ({
    slot,
    provider: 'openai' as const,
    model: 'm',
    offline: false,
    round: 1,
    text,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    latencyMs: 1,
    finishReason: 'stop' as const,
    ...(error ? { error: { code: 'timeout', message: 'late', retryable: true } } : {}),
  });
  const withAnswers = (answers: ReturnType<typeof answer>[], extra: Partial<Session> = {}) =>
    session(1, {
      consensus: undefined,
      verdict: undefined,
      rounds: [{ number: 1, kind: 'independent', answers: answers as never, missingSlots: [] }],
      ...extra,
    });
  const structured = session(1).verdict!;

  it('collapses whitespace and trims; a part at its length is kept whole, one past it is cut with an ellipsis', () => {
    const asked = (question: string) => threadContext([session(1, { question })]).split('\n')[1];
    expect(asked('  Why\n\n  not\tthis?  ')).toBe('Asked (deep): Why not this?');
    const exact = 'q'.repeat(400);
    expect(asked(exact)).toBe(`Asked (deep): ${exact}`);
    expect(asked(`${exact}r`)).toBe(`Asked (deep): ${'q'.repeat(399)}…`);
  });

  it('shows three agreements at most, joined by " | "', () => {
    const agreements = ['One', 'Two', 'Three', 'Four'].map((statement) => ({ statement, slots: [1] }));
    const text = threadContext([session(1, { consensus: { round: 2, agreements, disagreements: [] } })]);
    expect(text.split('\n')[2]).toBe('The panel agreed: One | Two | Three');
  });

  it('a verdict with a summary or an answer only shows that one', () => {
    const line = (verdict: Partial<typeof structured>) =>
      threadContext([session(1, { verdict: { ...structured, ...verdict } })])
        .split('\n')
        .find((l) => l.startsWith('Verdict:'));
    expect(line({ summary: 'Only the summary.', answer: undefined })).toBe('Verdict: Only the summary.');
    expect(line({ summary: undefined, answer: 'Only the answer.' })).toBe('Verdict: Only the answer.');
  });

  it('lists four P0 and P1 actions at most, P0 first, joined by "; ", and no line when there are none', () => {
    const action = (title: string) => ({ title, rationale: 'r', supportingSlots: [1], supportingRounds: [1] });
    const actions = { P0: [action('a'), action('b'), action('c')], P1: [action('d'), action('e')], P2: [action('f')] };
    const text = threadContext([session(1, { verdict: { ...structured, actions } })]);
    expect(text.split('\n').at(-1)).toBe('Actions: P0 a; P0 b; P0 c; P1 d');
    for (const none of [{ P0: [], P1: [], P2: [action('f')] }, undefined]) {
      const without = threadContext([session(1, { verdict: { ...structured, actions: none as never } })]);
      expect(without).not.toContain('Actions:');
      expect(without.split('\n').at(-1)).toMatch(/^Verdict: /);
    }
  });

  it('an unstructured verdict shows its raw text, cut to 500', () => {
    const rawText = `Plain ${'x'.repeat(600)}`;
    const text = threadContext([session(1, { verdict: { format: 'raw', rawText } as never })]);
    expect(text.split('\n').at(-1)).toBe(`Verdict (unstructured): ${rawText.slice(0, 499)}…`);
    expect(text).not.toContain('Answered');
  });

  it('without a verdict: the last round’s first five answers that did not fail, or says none was recorded', () => {
    const answers = [answer(1, 'failed', true), ...[2, 3, 4, 5, 6, 7].map((slot) => answer(slot, `Answer ${slot}`))];
    expect(
      threadContext([withAnswers(answers)])
        .split('\n')
        .slice(2),
    ).toEqual([
      'Slot 2 (openai) answered: Answer 2',
      'Slot 3 (openai) answered: Answer 3',
      'Slot 4 (openai) answered: Answer 4',
      'Slot 5 (openai) answered: Answer 5',
      'Slot 6 (openai) answered: Answer 6',
    ]);
    expect(threadContext([withAnswers([answer(2, 'Answer 2')])])).not.toContain('No answer was recorded');
    expect(
      threadContext([withAnswers([answer(1, 'failed', true)])])
        .split('\n')
        .at(-1),
    ).toBe('(No answer was recorded.)');
    expect(
      threadContext([withAnswers([], { rounds: [] })])
        .split('\n')
        .at(-1),
    ).toBe('(No answer was recorded.)');
  });

  it('separates exchanges by a blank line, numbered from the oldest, and counts those left out (one, or several)', () => {
    const short = (n: number) => withAnswers([answer(2, `A${n}`)], { question: `Q${n}` });
    expect(threadContext([short(1), short(2)])).toBe(
      [
        '### Earlier question 1',
        'Asked (deep): Q1',
        'Slot 2 (openai) answered: A1',
        '',
        '### Earlier question 2',
        'Asked (deep): Q2',
        'Slot 2 (openai) answered: A2',
      ].join('\n'),
    );
    // A long thread keeps its latest exchanges, each under its own number: never the oldest ones renumbered.
    const six = [1, 2, 3, 4, 5, 6].map(short);
    const latest = threadContext(six);
    for (const n of [3, 4, 5, 6]) expect(latest).toContain(`### Earlier question ${n}\nAsked (deep): Q${n}\n`);
    expect(latest).not.toMatch(/Q1\b|Q2\b|A1\b|A2\b/);
    const five = [1, 2, 3, 4, 5].map(short);
    expect(threadContext(five)).toMatch(/^\(1 earlier exchange not shown\.\)\n\n### Earlier question 2\n/);
    expect(threadContext([...five, short(6)])).toMatch(/^\(2 earlier exchanges not shown\.\)\n\n### Earlier question 3\n/);
  });

  it('leaves out the oldest of the latest exchanges until the rest fits, and keeps what fits', () => {
    // Each of these is about 2,200 characters: two fit in THREAD_CHARS, three do not.
    const long = (text: string) => `${text} ${'w'.repeat(300)}`;
    const agreements = [1, 2, 3].map((i) => ({ statement: long(`Agreed ${i}`), slots: [1] }));
    const action = (title: string) => ({ title: long(title), rationale: 'r', supportingSlots: [1], supportingRounds: [1] });
    const actions = { P0: [action('a'), action('b')], P1: [action('c'), action('d')], P2: [] };
    const big = (n: number) =>
      session(n, {
        question: long(`Q${n}`),
        consensus: { round: 2, agreements, disagreements: [] },
        verdict: { ...session(n).verdict!, actions },
      });
    const text = threadContext([big(1), big(2), big(3), big(4)]);
    expect(text).toMatch(/^\(2 earlier exchanges not shown\.\)\n\n### Earlier question 3\n/);
    expect(text).toContain('\n\n### Earlier question 4\n');
    expect(text.length).toBeLessThanOrEqual(THREAD_CHARS);
    expect(text.endsWith(`P1 d ${'w'.repeat(97)}…`)).toBe(true);
  });

  // An exchange of about 2,000 characters, one more for each character of `extra` (the question's).
  const action = { title: `T${'t'.repeat(100)}`, rationale: 'r', supportingSlots: [1], supportingRounds: [1] };
  const sized = (n: number, extra: number) =>
    session(n, {
      question: `Q${n} ${'q'.repeat(extra)}`,
      consensus: {
        round: 2,
        agreements: [1, 2, 3].map((i) => ({ statement: `A${i} ${'w'.repeat(200)}`, slots: [1] })),
        disagreements: [],
      },
      verdict: {
        ...session(n).verdict!,
        summary: 's'.repeat(800),
        answer: 'x',
        actions: { P0: [action, action], P1: [action, action], P2: [] },
      },
    });

  it('counts the line saying how many were left out in the bound: what fits without it is cut to THREAD_CHARS', () => {
    // Three of these exchanges fit in THREAD_CHARS, 4 characters short of it; the count line does not.
    const text = threadContext([1, 2, 3, 4].map((n) => sized(n, 186)));
    expect(text).toMatch(/^\(1 earlier exchange not shown\.\)\n\n### Earlier question 2\n/);
    expect(text).toHaveLength(THREAD_CHARS);
  });

  it('keeps exchanges that fill THREAD_CHARS exactly, blank lines between them counted; one character more does not fit', () => {
    // Exchanges 2-4 and the two blank lines between them: 6,000 characters, then 6,001.
    const exact = threadContext([sized(1, 195), sized(2, 195), sized(3, 195), sized(4, 197)]);
    expect(exact).toMatch(/^\(1 earlier exchange not shown\.\)\n\n### Earlier question 2\n/);
    const over = threadContext([1, 2, 3, 4].map((n) => sized(n, 196)));
    expect(over).toMatch(/^\(2 earlier exchanges not shown\.\)\n\n### Earlier question 3\n/);
  });
});
