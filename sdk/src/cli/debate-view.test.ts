import { expect, it } from 'vitest';
import type { Verdict } from '../generated/types.gen.js';
import { paint } from '../terminal/terminal.js';
import { renderVerdict } from './debate-view.js';

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
