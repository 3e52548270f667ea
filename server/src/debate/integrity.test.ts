import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer, PositionChange, Round, Session, Verdict } from '../../../sdk/src/generated/types.gen.js';
import { integrityReport, plurality, reasonKind } from './integrity.js';

type Slot = Answer['slot'];
const MODELS: Record<number, [string, string]> = {
  1: ['anthropic', 'claude-sonnet-4-5'],
  2: ['openai', 'gpt-4o'],
  3: ['ollama-a', 'qwen2.5:7b'],
  4: ['ollama-b', 'qwen2.5:14b'],
  5: ['xai', 'grok-3-mini'],
};

function answer(slot: number, round: number, position: string | undefined, extra: Partial<Answer> = {}): Answer {
  const [provider, model] = MODELS[slot]!;
  return {
    slot: slot as Slot,
    provider,
    model,
    offline: false,
    round: round as Answer['round'],
    text: position === undefined ? 'Some prose and no line.' : `Reasons, at length.\n\nPOSITION: ${position}`,
    usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30 },
    latencyMs: 5,
    finishReason: 'stop',
    ...extra,
  };
}

const round = (number: number, kind: Round['kind'], answers: Answer[]): Round => ({
  number: number as Round['number'],
  kind,
  answers,
  missingSlots: [],
});

function verdict(answerText: string, changes: PositionChange[] = []): Verdict {
  return {
    format: 'structured',
    summary: 'S.',
    answer: answerText,
    actions: { P0: [], P1: [], P2: [] },
    dissent: [],
    synthesizer: { slot: 1, provider: 'anthropic', model: 'claude-sonnet-4-5', reason: 'default', participated: true },
    degradation: { degraded: false, missingSlots: [], reasons: [] },
    positionChanges: changes,
  };
}

function session(rounds: Round[], v?: Verdict, extra: Partial<Session> = {}): Session {
  return {
    id: 'ses_0123456789abcdef',
    owner: 'usr_test01',
    mode: 'deep',
    question: 'What is 17 + 25?',
    roundsRequested: rounds.length,
    rounds,
    status: 'completed',
    missingSlots: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    cost: { usd: 0, priced: true },
    createdAt: '2026-11-28T10:00:00.000Z',
    updatedAt: '2026-11-28T10:00:00.000Z',
    ...(v && { verdict: v }),
    ...extra,
  };
}

const change = (slot: number, changed: boolean, reason: string): PositionChange => ({
  slot: slot as Slot,
  changed,
  round: 3,
  reason,
});

/** Round 1: 42, 42, 41, 40, 42; final: everyone 42 except slot 4 (held 40). */
function conformistDebate(reasonOf3: string) {
  return session(
    [
      round(1, 'independent', [
        answer(1, 1, '42'),
        answer(2, 1, '42.'),
        answer(3, 1, '41'),
        answer(4, 1, '40'),
        answer(5, 1, '**42**'),
      ]),
      round(
        2,
        'critique',
        [1, 2, 3, 4, 5].map((s) => answer(s, 2, undefined)),
      ),
      round(3, 'final', [answer(1, 3, '42'), answer(2, 3, '42'), answer(3, 3, '42'), answer(4, 3, '40'), answer(5, 3, '42')]),
    ],
    verdict('The sum is 42.\nPOSITION: 42', [
      change(1, false, 'Checked it twice.'),
      change(2, false, 'Held.'),
      change(3, true, reasonOf3),
      change(4, false, 'I still think 40.'),
      change(5, false, 'Same.'),
    ]),
  );
}

describe('the round-1 vote', () => {
  it('is the plurality of the stated positions, compared as the consensus compares statements', () => {
    const vote = plurality(conformistDebate('').rounds[0]!.answers);
    expect(vote).toMatchObject({ position: '42', slots: [1, 2, 5], share: 0.6, answered: 5, stated: 5, tie: false });
    expect(vote.positions.map((p) => p.position)).toEqual(['42', '41', '40']);
  });

  it('has no position on a tie, or when no answer states one; failed and offline answers state none', () => {
    expect(plurality([answer(1, 1, 'A'), answer(2, 1, 'B')])).toMatchObject({ tie: true, share: 0, answered: 2 });
    expect(plurality([answer(1, 1, 'A'), answer(2, 1, undefined)]).position).toBe('A');
    const failed = answer(2, 1, 'B', { error: { code: 'timeout', message: 't', retryable: true, attempts: 1 } });
    const offline = answer(3, 1, 'B', { offline: true });
    expect(plurality([answer(1, 1, 'A'), failed, offline])).toMatchObject({ position: 'A', answered: 2, stated: 1, share: 0.5 });
    expect(plurality([answer(1, 1, undefined)])).toMatchObject({ stated: 0, tie: false, positions: [] });
  });

  it('equals a plurality counted independently (property)', () => {
    const positions = fc.array(fc.option(fc.constantFrom('A', 'b', 'B.', 'c', 'D'), { nil: undefined }), {
      minLength: 1,
      maxLength: 5,
    });
    fc.assert(
      fc.property(positions, (list) => {
        const answers = list.map((p, i) => answer(i + 1, 1, p));
        const counts = new Map<string, number>();
        for (const p of list)
          if (p !== undefined)
            counts.set(p.replace('.', '').toLowerCase(), (counts.get(p.replace('.', '').toLowerCase()) ?? 0) + 1);
        const max = Math.max(0, ...counts.values());
        const winners = [...counts].filter(([, n]) => n === max).map(([k]) => k);
        const vote = plurality(answers);
        if (winners.length === 1) {
          expect(vote.position?.toLowerCase()).toBe(winners[0]);
          expect(vote.share).toBeCloseTo(max / list.length);
        } else expect(vote.position).toBeUndefined();
        expect(vote.tie).toBe(winners.length > 1);
      }),
    );
  });
});

describe('the integrity report', () => {
  it('follows each slot from round 1 to the final round, with its direction and reason', () => {
    const report = integrityReport(conformistDebate(''))!;
    const bySlot = new Map(report.slots.map((s) => [s.slot, s]));
    expect(bySlot.get(3)).toMatchObject({
      first: '41',
      final: '42',
      changed: true,
      reportedChanged: true,
      direction: 'towards_majority',
      towards: [1, 2, 5],
      reason: 'none',
      family: 'qwen',
    });
    expect(bySlot.get(1)).toMatchObject({
      first: '42',
      final: '42',
      changed: false,
      direction: 'unchanged',
      reason: 'held',
      survived: true,
    });
    expect(bySlot.get(4)).toMatchObject({ direction: 'unchanged', survived: false });
    expect(report.verdict).toEqual({ position: '42', source: 'verdict', agreesWithVote: true });
    expect(report.summary).toBe('The verdict agrees with the round-1 vote (“42”, 3 of 5).');
  });

  it('flags the conformist, the dissent kept and the same family', () => {
    const report = integrityReport(conformistDebate(''))!;
    expect(report.flags.map((f) => [f.kind, f.slots])).toEqual([
      ['conformity', [3]],
      ['dissent_kept', [4]],
      ['same_family', [3, 4]],
    ]);
    expect(report.flags[0]!.message).toBe('Slot 3 moved to the round-1 majority (“42”) without a stated reason.');
    expect(report.flags[2]!.message).toBe('Slots 3 and 4 are the same model family (qwen): their agreement is weaker evidence.');
  });

  it('does not flag a move with a reason of its own; flags one that only points at the majority', () => {
    const reasoned = integrityReport(conformistDebate('I mis-added: 17 + 25 carries a one, so 42.'))!;
    expect(reasoned.slots.find((s) => s.slot === 3)).toMatchObject({
      reason: 'stated',
      reasonText: 'I mis-added: 17 + 25 carries a one, so 42.',
    });
    expect(reasoned.flags.some((f) => f.kind === 'conformity')).toBe(false);
    const herd = integrityReport(conformistDebate('Most of the panel said 42.'))!;
    expect(herd.flags[0]).toMatchObject({
      kind: 'conformity',
      message: 'Slot 3 moved to the round-1 majority (“42”) giving only the majority as its reason.',
    });
  });

  it('flags a collapse from disagreement to unanimity, and a verdict that differs from the vote', () => {
    const s = session(
      [
        round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'A'), answer(5, 1, 'B')]),
        round(2, 'final', [answer(1, 2, 'C'), answer(2, 2, 'C'), answer(5, 2, 'C')]),
      ],
      verdict('Go with C.\nPOSITION: C', [change(1, true, ''), change(2, true, 'The cost model.'), change(5, true, 'x')]),
    );
    const report = integrityReport(s)!;
    expect(report.flags.find((f) => f.kind === 'collapse')).toMatchObject({
      slots: [1, 2, 5],
      message: 'Round 1 disagreed (2 positions); the final round is unanimous (“C”).',
    });
    expect(report.slots.map((x) => x.direction)).toEqual(['away_from_majority', 'away_from_majority', 'new_position']);
    expect(report.summary).toBe('The verdict differs from the round-1 vote (“A”, 2 of 3): it says “C”.');
  });

  it('names a move to another slot’s position, and one model behind two endpoints', () => {
    const s = session(
      [
        round(1, 'independent', [
          answer(1, 1, 'A'),
          answer(2, 1, 'A', { provider: 'openrouter', model: 'openai/gpt-4o' }),
          answer(3, 1, 'B'),
          answer(5, 1, 'C'),
        ]),
        round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, 'A'), answer(3, 2, 'C'), answer(5, 2, 'C')]),
      ],
      verdict('No line here.'),
      { promptVersion: 'x' },
    );
    s.rounds[0]!.answers.push({ ...answer(2, 1, 'A'), slot: 4 as Slot, provider: 'openai', model: 'gpt-4o-2024-08-06' });
    const report = integrityReport(s)!;
    expect(report.slots.find((x) => x.slot === 3)).toMatchObject({ direction: 'to_other', towards: [5] });
    expect(report.flags.find((f) => f.kind === 'same_family')).toMatchObject({
      slots: [2, 4],
      message:
        'Slots 2 and 4 are the same model (gpt-4o) behind different endpoints: their agreement is weaker evidence, and slots 2 and 4 hold the round-1 majority together.',
    });
    // No POSITION line in the verdict: the final round's plurality (a tie of A and C here) gives none.
    expect(report.verdict).toEqual({ source: 'none' });
    expect(report.summary).toBe('The verdict states no position to compare with the round-1 vote (“A”, 3 of 5).');
  });

  it('reads the verdict from the final round when it states none, and says so', () => {
    const s = session(
      [
        round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'B'), answer(3, 1, 'B')]),
        round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, 'A'), answer(3, 2, 'B')]),
      ],
      verdict('Prose only.'),
    );
    const report = integrityReport(s)!;
    expect(report.verdict).toEqual({ position: 'A', source: 'final_round', agreesWithVote: false });
    expect(report.summary).toBe(
      'The verdict differs from the round-1 vote (“B”, 2 of 3): it says “A” (read from the final round’s positions).',
    );
  });

  it('falls back to the model’s own report when a position is not stated, and says when there is no vote', () => {
    const s = session(
      [
        round(1, 'independent', [answer(1, 1, undefined), answer(2, 1, undefined)]),
        round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, undefined)]),
      ],
      verdict('x', [change(1, true, 'Because.'), change(2, false, 'Held.')]),
    );
    const report = integrityReport(s)!;
    expect(report.slots.map((x) => [x.direction, x.changed])).toEqual([
      ['unknown', true],
      ['unknown', false],
    ]);
    expect(report.summary).toBe('No round-1 answer stated a position, so there is no vote to compare the verdict with.');
    const tied = integrityReport(session([round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'B')])]))!;
    expect(tied.summary).toBe('Round 1 has no majority (1× “A”, 1× “B”), so there is no vote to compare the verdict with.');
  });

  it('is the vote when an adaptive debate stopped after round 1; the peer rank comes from the ranking', () => {
    const v = {
      ...verdict('42'),
      synthesizer: {
        slot: 1 as Slot,
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        reason: 'vote' as const,
        participated: true,
      },
    };
    const s = session([round(1, 'independent', [answer(1, 1, '42'), answer(2, 1, '42')])], v, {
      adaptive: { threshold: 1, agreement: 1, stopped: true, saved: { calls: 5, tokens: 900, usd: 0, priced: true } },
      rankings: [
        { round: 1, ballots: [], missing: [], aggregate: [{ slot: 2, rank: 1, points: 1, ballots: 1, score: 1, tied: false }] },
      ],
    });
    const report = integrityReport(s)!;
    expect(report.verdict).toEqual({ position: '42', source: 'vote', agreesWithVote: true });
    expect(report.summary).toBe('The verdict is the round-1 vote (“42”, 2 of 2): the debate stopped after round 1.');
    expect(report.adaptive).toEqual(s.adaptive);
    expect(report.slots.find((x) => x.slot === 2)?.peerRank).toBe(1);
    expect(report.flags).toEqual([]);
  });

  it('follows slots whatever the order answers were stored in', () => {
    const s = session(
      [
        round(1, 'independent', [answer(3, 1, 'B'), answer(2, 1, 'a'), answer(1, 1, 'A.'), answer(5, 1, 'C')]),
        round(2, 'final', [answer(5, 2, 'C'), answer(3, 2, 'A'), answer(1, 2, 'A'), answer(2, 2, 'A')]),
      ],
      verdict('POSITION: A', [change(3, true, 'The carry.')]),
      {
        rankings: [
          { round: 2, ballots: [], missing: [], aggregate: [{ slot: 1, rank: 4, points: 0, ballots: 1, score: 0, tied: false }] },
          {
            round: 1,
            ballots: [],
            missing: [],
            aggregate: [
              { slot: 2, rank: 1, points: 2, ballots: 1, score: 1, tied: false },
              { slot: 1, rank: 2, points: 1, ballots: 1, score: 0.5, tied: false },
            ],
          },
        ],
      },
    );
    const report = integrityReport(s)!;
    // The wording is the lowest slot's; positions held as often are listed by their first holder.
    expect(report.vote).toMatchObject({ position: 'A', slots: [1, 2] });
    expect(report.vote.positions.map((p) => p.position)).toEqual(['A', 'B', 'C']);
    expect(report.slots.map((x) => x.slot)).toEqual([1, 2, 3, 5]);
    expect(report.slots.map((x) => x.peerRank)).toEqual([2, 1, undefined, undefined]);
    // A slot that held its position names nobody it moved towards.
    expect(report.slots[0]!.towards).toBeUndefined();
    expect(report.slots[2]).toMatchObject({ direction: 'towards_majority', towards: [1, 2] });
    expect(report.flags.find((f) => f.kind === 'dissent_kept')).toEqual({
      kind: 'dissent_kept',
      slots: [5],
      message: 'Slot 5 kept its round-1 position (“C”) against the majority (“A”).',
    });
  });

  it('leaves out the offline stand-in, and counts a slot that answered only the final round', () => {
    const failed = { error: { code: 'timeout' as const, message: 't', retryable: true, attempts: 1 } };
    const s = session(
      [
        round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'B', { offline: true }), answer(3, 1, 'A', failed)]),
        round(2, 'final', [answer(1, 2, 'A'), answer(3, 2, 'A')]),
      ],
      verdict('POSITION: A', [{ slot: 2 as Slot, changed: true, reason: 'x' }]),
    );
    const report = integrityReport(s)!;
    expect(report.slots.map((x) => [x.slot, x.direction, x.changed])).toEqual([
      [1, 'unchanged', false],
      [3, 'unknown', false],
    ]);
    expect(report.slots[1]!.towards).toBeUndefined();
  });

  it('flags no collapse when round 1 already agreed, or only one slot gave a final position; names only the movers', () => {
    const agreed = session([
      round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'A')]),
      round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, 'A')]),
    ]);
    expect(integrityReport(agreed)!.flags.some((f) => f.kind === 'collapse')).toBe(false);
    const alone = session([
      round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'B')]),
      round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, undefined)]),
    ]);
    expect(integrityReport(alone)!.flags.some((f) => f.kind === 'collapse')).toBe(false);
    const two = session([
      round(1, 'independent', [answer(1, 1, 'A'), answer(2, 1, 'B')]),
      round(2, 'final', [answer(1, 2, 'A'), answer(2, 2, 'A')]),
    ]);
    expect(integrityReport(two)!.flags.find((f) => f.kind === 'collapse')).toMatchObject({ slots: [2] });
    // A tie has no majority: no dissent is kept against it.
    expect(integrityReport(alone)!.flags.some((f) => f.kind === 'dissent_kept')).toBe(false);
  });

  it('names three same-family slots, and one model behind one endpoint', () => {
    const s = session([
      round(1, 'independent', [
        answer(1, 1, 'A', { provider: 'ollama', model: 'qwen2.5:7b' }),
        answer(2, 1, 'A', { provider: 'ollama', model: 'qwen2.5:7b' }),
        answer(3, 1, 'B', { provider: 'ollama', model: 'qwen2.5:7b' }),
        answer(4, 1, 'B', { provider: 'x', model: 'llama3.1' }),
        answer(5, 1, 'B', { provider: 'y', model: 'llama3.2' }),
      ]),
    ]);
    const flags = integrityReport(s)!.flags.filter((f) => f.kind === 'same_family');
    expect(flags.map((f) => f.message)).toEqual([
      'Slots 1, 2 and 3 are the same model (qwen2.5:7b) behind one endpoint: their agreement is weaker evidence.',
      'Slots 4 and 5 are the same model family (llama): their agreement is weaker evidence, and slots 4 and 5 hold the round-1 majority together.',
    ]);
    const tied = session([round(1, 'independent', [answer(3, 1, 'A'), answer(4, 1, 'B')])]);
    expect(integrityReport(tied)!.flags.find((f) => f.kind === 'same_family')?.message).toBe(
      'Slots 3 and 4 are the same model family (qwen): their agreement is weaker evidence.',
    );
  });

  it('is made for deep sessions only', () => {
    expect(integrityReport({ ...conformistDebate(''), mode: 'parallel' })).toBeUndefined();
    expect(integrityReport(session([]))).toBeUndefined();
  });
});

describe('reasonKind', () => {
  it('tells a reason of its own from none and from one that only points at the others', () => {
    expect(reasonKind('')).toBe('none');
    expect(reasonKind('  ')).toBe('none');
    expect(reasonKind('N/A')).toBe('none');
    expect(reasonKind(undefined)).toBe('none');
    expect(reasonKind('The majority agreed.')).toBe('majority');
    expect(reasonKind('Everyone else said 42.')).toBe('majority');
    expect(reasonKind('The others showed my carry was wrong.')).toBe('stated');
    expect(reasonKind('The replay cost is higher than I assumed.')).toBe('stated');
  });

  it('reads every spelling of no reason as none', () => {
    for (const text of ['none', 'NA', 'n/a', 'No reason', 'nothing', 'null', '-', '---', '.', '...', '—', '…'])
      expect(reasonKind(text), text).toBe('none');
  });

  it('counts a reason that points at the others in any of its words as the majority', () => {
    for (const text of [
      'Most of the panelists said 42.',
      'Most panel members said 42.',
      'Most others said 42.',
      'Most of the others said 42.',
      'The other models said 42.',
      'Other responses said 42.',
      'The other panelists said 42.',
      'I follow the consensus.',
    ])
      expect(reasonKind(text), text).toBe('majority');
  });

  it('counts grounds of its own, whatever their ending, as a stated reason', () => {
    for (const text of [
      'The others show the carry.',
      'The others overlooked nothing; I overlooked the carry.',
      'The others noticed I missed the carry.',
      'The majority calculated it again.',
      'The majority recomputed it.',
      'The majority checked it.',
      'The majority verified it.',
      'The majority showed it.',
    ])
      expect(reasonKind(text), text).toBe('stated');
  });

  it('takes a pointer at the others for a reason only while it is short', () => {
    // Twelve words, however spaced, still only point at the majority; thirteen say more.
    expect(reasonKind('I  go  with  the majority here as it seems the safest choice')).toBe('majority');
    expect(reasonKind('I go with the majority here as it seems the safest choice today')).toBe('stated');
  });
});
