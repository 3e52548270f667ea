import { expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import { copyOf } from './snapshot.js';

function debate() {
  const d = new FakeDebate({ owner: 'local' }).start();
  d.startRound(1);
  d.answer(1, 1);
  d.fail(1, 2);
  d.session.earlyStop = { afterRound: 1, roundsSaved: 1, callsSaved: 5, tokensSaved: 900 };
  return d;
}

it('equals the session it copies, answers, consensus and verdict shared', () => {
  const d = debate();
  d.consensus();
  const copy = copyOf(d.session);
  expect(copy).toEqual(d.session);
  expect(copy).not.toBe(d.session);
  expect(copy.rounds[0]!.answers[0]).toBe(d.session.rounds[0]!.answers[0]);
  expect(copy.consensus).toBe(d.session.consensus);
});

it('keeps the session as it was while the run changes it in place', () => {
  const d = debate();
  const copy = copyOf(d.session);
  const before = structuredClone(copy);
  const s = d.session;
  s.status = 'completed';
  s.missingSlots.push(3);
  s.usage.totalTokens += 1000;
  s.cost.usd += 1;
  s.earlyStop!.roundsSaved = 9;
  s.rounds[0]!.answers.push(s.rounds[0]!.answers[0]!);
  s.rounds[0]!.missingSlots.push(4);
  s.rounds[0]!.kind = 'final';
  s.rounds.push({ number: 2, kind: 'critique', answers: [], missingSlots: [] });
  d.answer(2, 1);
  expect(copy).toEqual(before);
});

it('copies a session without the optional parts', () => {
  const d = new FakeDebate({ owner: 'local' });
  expect(d.session.earlyStop).toBeUndefined();
  const copy = copyOf(d.session);
  expect(copy).toEqual(d.session);
  expect('earlyStop' in copy).toBe(false);
});
