import { describe, expect, it } from 'vitest';
import { endReason } from './run.js';

const run = (over: Partial<Parameters<typeof endReason>[1]> = {}): Parameters<typeof endReason>[1] => ({
  error: undefined,
  reasons: [],
  verdict: undefined,
  consensus: undefined,
  mode: 'deep',
  ...over,
});

describe('endReason', () => {
  it('is absent while running and once completed', () => {
    expect(endReason('running', run({ error: 'x: y' }))).toBeUndefined();
    expect(endReason('completed', run({ error: 'x: y' }))).toBeUndefined();
  });

  it("is the run's own error when it stopped on one", () => {
    const error = 'quorum_not_met: round 2 had 0 answers, the quorum is 3';
    expect(endReason('partial', run({ error, reasons: [{ slot: 1, round: 2, code: 'timeout', message: 'm' }] }))).toBe(error);
  });

  it('names each failure by slot and where, the verdict as round 0', () => {
    const reasons = [
      { slot: 3 as const, round: 2, code: 'timeout' as const, message: 'm' },
      { slot: 1 as const, round: 0, code: 'invalid_output' as const, message: 'm' },
    ];
    expect(endReason('partial', run({ reasons }))).toBe(
      'slots_failed: slot 3 in round 2 (timeout), slot 1 in the verdict (invalid_output)',
    );
  });

  it('says a cancel, an unstructured verdict, a missing consensus, or at least the status', () => {
    expect(endReason('cancelled', run())).toBe('cancelled: the session was cancelled');
    const unstructured = { format: 'unstructured' } as NonNullable<Parameters<typeof endReason>[1]['verdict']>;
    expect(endReason('partial', run({ verdict: unstructured }))).toMatch(/^verdict_unstructured: /);
    expect(endReason('partial', run())).toMatch(/^no_consensus: /);
    expect(endReason('failed', run({ mode: 'parallel' }))).toBe('failed: the run ended failed');
  });
});
