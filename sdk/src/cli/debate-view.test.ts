import { describe, expect, it } from 'vitest';
import type { DebateEvent, SlotInfo, Verdict } from '../generated/types.gen.js';
import { paint } from '../terminal/terminal.js';
import { DebateView, renderVerdict } from './debate-view.js';

const verdict: Verdict = {
  format: 'structured',
  summary: 'Ship the small change.',
  answer: 'Small first, then measure.',
  actions: {
    P0: [{ title: 'Ship flow B', rationale: 'It is ready.', supportingSlots: [1, 3], supportingRounds: [1, 2] }],
    P1: [],
    P2: [{ title: 'Measure retention', rationale: 'Before the refactor.', supportingSlots: [2], supportingRounds: [2] }],
  },
  dissent: [],
  synthesizer: { slot: 1, provider: 'anthropic', model: 'm', reason: 'default', participated: true },
  degradation: { degraded: false, missingSlots: [], reasons: [] },
  positionChanges: [],
};

it('groups actions by priority with the slots that support each, skipping empty priorities', () => {
  const text = renderVerdict(verdict, paint(false), (slot) => `slot ${slot}`);
  expect(text).toMatch(/^Ship the small change\.\n\nSmall first, then measure\./);
  expect(text).toMatch(/\nP0\n {2}• Ship flow B — supported by slot 1, slot 3\n {4}It is ready\./);
  expect(text).toMatch(/\nP2\n {2}• Measure retention — supported by slot 2/);
  expect(text).not.toMatch(/\nP1\n/);
  // Streamed already: only the rest.
  expect(renderVerdict(verdict, paint(false), String, true)).not.toContain('Ship the small change.');
});

describe('DebateView', () => {
  const base = { v: 1, sessionId: 'ses_view', ts: '2026-01-01T00:00:00Z' } as const;
  let seq = 0;
  const ev = (e: Record<string, unknown>) => ({ ...base, seq: ++seq, ...e }) as unknown as DebateEvent;
  const slots = (names: string[]): SlotInfo[] =>
    names.map((provider, i) => ({ slot: i + 1, provider, model: 'm', status: 'offline' }) as unknown as SlotInfo);
  const answer = (slot: number, text: string) =>
    ev({
      type: 'answer.completed',
      answer: { slot, provider: 'p', model: 'm', offline: true, round: 1, text, usage: {}, latencyMs: 1, finishReason: 'stop' },
    });

  it('--full prints every answer whole, in slot order, each once, even while two are written at once', () => {
    let out = '';
    const view = new DebateView({ write: (t) => (out += t), paint: paint(false), live: true, columns: 80, full: true });
    view.event(ev({ type: 'session.started', mode: 'deep', question: 'Tabs?', roundsRequested: 1, slots: slots(['a', 'b']) }));
    view.event(ev({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2] }));
    view.event(ev({ type: 'answer.delta', round: 1, slot: 2, delta: 'Spaces, ' }));
    view.event(ev({ type: 'answer.delta', round: 1, slot: 1, delta: 'Tabs ' }));
    expect(out).toContain('1 a:\nTabs ');
    expect(out).not.toContain('Spaces'); // held until slot 1 is done
    view.event(ev({ type: 'answer.delta', round: 1, slot: 2, delta: 'always.' }));
    view.event(ev({ type: 'answer.delta', round: 1, slot: 1, delta: 'win.' }));
    view.event(answer(1, 'Tabs win.'));
    view.event(answer(2, 'Spaces, always.'));
    view.event(ev({ type: 'round.ended', round: 1, missingSlots: [], quorumMet: true }));
    expect(out).toContain('Tabs?\n');
    expect(out).toContain('\n1 a:\nTabs win.\n\n2 b:\nSpaces, always.\n');
    expect(out.match(/Spaces, always\./g)).toHaveLength(1);
    expect(out).not.toContain('\u001b[');
  });

  it('prints the consensus as statements with their slots, and each disagreement with its sides', () => {
    let out = '';
    const view = new DebateView({ write: (t) => (out += t), paint: paint(false), live: false, columns: 80 });
    view.event(
      ev({
        type: 'session.started',
        mode: 'deep',
        question: 'Q',
        roundsRequested: 2,
        slots: slots(['anthropic', 'openai', 'xai']),
      }),
    );
    view.event(
      ev({
        type: 'consensus',
        consensus: {
          round: 2,
          agreements: [{ statement: 'Measure first', slots: [1, 2] }],
          disagreements: [
            {
              topic: 'Language',
              positions: [
                { position: 'Rust', slots: [1] },
                { position: 'Go', slots: [2, 3] },
              ],
            },
          ],
        },
      }),
    );
    expect(out).toContain(
      'Consensus (round 2)\n  ✓ Measure first — 1 anthropic, 2 openai\n  ≠ Language\n      1 anthropic: Rust\n      2 openai, 3 xai: Go\n',
    );
  });

  it('keeps the live columns aligned and within the terminal for any provider name', () => {
    let out = '';
    const view = new DebateView({ write: (t) => (out += t), paint: paint(false), live: true, columns: 60 });
    const names = ['anthropic', 'a-very-long-openai-compatible-provider-name', 'x'];
    view.event(ev({ type: 'session.started', mode: 'deep', question: 'Q', roundsRequested: 1, slots: slots(names) }));
    view.event(ev({ type: 'round.started', round: 1, kind: 'independent', slots: [1, 2, 3] }));
    view.event(answer(1, 'one '.repeat(40)));
    view.event(answer(2, 'two '.repeat(40)));
    view.close();
    const rows = out
      .split('\n')
      .map((l) => l.replace(new RegExp(`${'\u001b'}\\[[0-9;]*[A-Za-z]`, 'g'), '')) // the redraw's cursor moves
      .filter((l) => /^\d /.test(l))
      .slice(-3); // the block as last drawn
    expect(rows.map((r) => r.slice(0, 2))).toEqual(['1 ', '2 ', '3 ']);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(60);
    // The state mark sits in the same column on every row.
    const marks = rows.map((r) => r.search(/[·●✓✗]/));
    expect(new Set(marks).size).toBe(1);
    expect(rows[1]).toContain('2 a-very-long-op… ✓');
  });
});
