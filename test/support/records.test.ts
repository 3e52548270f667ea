/**
 * The record checks of `records.ts`: `storedRecords` reads what the PostgreSQL store's own reader reads (archived
 * and not), and each check finds what it is for, and nothing in a whole debate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { DebateEvent, SessionEndedEvent } from '../../sdk/src/generated/types.gen.js';
import { PostgresDatabase } from '../../server/src/store/postgres/database.js';
import { debateSteps, FakeDebate } from './fake-debate.js';
import { postgres, startPostgres, type TestPostgres } from './postgres.js';
import {
  disagreements,
  missingAnswers,
  RECOVERY_JUMPS,
  recoveredAfter,
  sequenceBreaks,
  shownNotStored,
  storedRecords,
} from './records.js';

/** A whole two-round debate's events (slot 5 failed in round 1) and its session. */
function debate() {
  const d = new FakeDebate({ owner: 'u1', roundsRequested: 2 });
  debateSteps(d);
  return d;
}

/** `events` with seq renumbered from `from` on. */
const renumbered = (events: readonly DebateEvent[], from: number) => events.map((e, i) => ({ ...e, seq: from + i }));

const ended = (at: DebateEvent, seq: number, status: 'interrupted' | 'cancelled'): SessionEndedEvent => ({
  v: 1,
  type: 'session.ended',
  sessionId: at.sessionId,
  seq,
  ts: at.ts,
  status,
  missingSlots: [2],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: { usd: 0, priced: true },
});

describe('sequenceBreaks', () => {
  it('finds none in a whole debate, or across recovery and a continue', () => {
    const { raised } = debate();
    expect(sequenceBreaks(raised)).toStrictEqual([]);
    const before = raised.slice(0, 10);
    const end = ended(before[9]!, 10 + RECOVERY_JUMPS.end, 'interrupted');
    expect(sequenceBreaks([...before, end])).toStrictEqual([]);
    // Continued: the end removed, the continued run numbered after it.
    expect(sequenceBreaks([...before, ...renumbered(raised.slice(10), 10 + RECOVERY_JUMPS.continued)])).toStrictEqual([]);
    expect(recoveredAfter([...before, ...renumbered(raised.slice(10), 10 + RECOVERY_JUMPS.continued)])).toBe(10);
    expect(recoveredAfter(raised)).toBeUndefined();
  });

  it('names a hole, a jump that is no recovery, events after the end, and a wrong start', () => {
    const { raised } = debate();
    const holed = [...raised.slice(0, 4), ...raised.slice(7)];
    expect(sequenceBreaks(holed)).toStrictEqual([`3 events missing between ${raised[3]!.type} at 4 and ${raised[7]!.type} at 8`]);
    // The end's jump, but to an event that is no interrupted end.
    expect(sequenceBreaks([...raised.slice(0, 10), ...renumbered(raised.slice(10), 10 + RECOVERY_JUMPS.end)])).toHaveLength(1);
    expect(sequenceBreaks([...raised.slice(0, 10), ended(raised[9]!, 10 + RECOVERY_JUMPS.end, 'cancelled')])).toHaveLength(1);
    const end = raised.at(-1)!;
    expect(sequenceBreaks([...raised, { ...raised[3]!, seq: end.seq + 1 }])).toStrictEqual([
      `${raised[3]!.type} at ${end.seq + 1} after the end (partial) at ${end.seq}`,
    ]);
    expect(sequenceBreaks(raised.slice(1))).toStrictEqual([`starts with ${raised[1]!.type} at 2`]);
    expect(sequenceBreaks([])).toStrictEqual(['no events']);
  });
});

describe('disagreements', () => {
  it('none when the record holds the copy as it was, and more', () => {
    const { raised } = debate();
    expect(disagreements(raised.slice(0, 20), raised)).toStrictEqual([]);
    expect(disagreements(raised, raised)).toStrictEqual([]);
  });

  it('names the copy events the record lacks or changed, up to where the record was recovered', () => {
    const { raised } = debate();
    expect(disagreements(raised, [...raised.slice(0, 5), ...raised.slice(9)])).toStrictEqual([
      'lacks 4 events of the copy, 6 to 9',
    ]);
    const changed = raised.map((e) => (e.seq === 3 ? { ...e, ts: '2020-01-01T00:00:00.000Z' } : e));
    expect(disagreements(raised, changed)).toStrictEqual([
      `${raised[2]!.type} at 3 differs from the copy's (${raised[2]!.type})`,
    ]);
    // Recovered after 10: the copy's 11 on were lost and asked again, which the record says.
    const recovered = [...raised.slice(0, 10), ...renumbered(raised.slice(10), 10 + RECOVERY_JUMPS.continued)];
    expect(disagreements(raised, recovered)).toStrictEqual([]);
    expect(disagreements(raised, [...raised.slice(0, 4), ...recovered.slice(5)])).toStrictEqual([
      'lacks 1 events of the copy, 5 to 5',
    ]);
    // Told to look past recovery, every event of the copy counts.
    expect(disagreements(raised, recovered, Number.POSITIVE_INFINITY)).toStrictEqual([
      `lacks ${raised.length - 10} events of the copy, 11 to ${raised.length}`,
    ]);
  });
});

describe('missingAnswers', () => {
  it('none for a whole debate, whose failed slot is named missing', () => {
    const { session, raised } = debate();
    expect(missingAnswers(session, raised)).toStrictEqual([]);
  });

  it('names an answer neither stored nor named missing, and a round not stored', () => {
    const { session, raised } = debate();
    const lacking = structuredClone(session);
    lacking.rounds[1]!.answers = lacking.rounds[1]!.answers.filter((a) => a.slot !== 3);
    expect(missingAnswers(lacking, raised)).toStrictEqual(["round 2 lacks slot 3's answer, not named missing"]);
    expect(missingAnswers({ ...lacking, missingSlots: [3, 5] }, raised)).toStrictEqual([]);
    expect(missingAnswers({ ...session, rounds: session.rounds.slice(0, 1) }, raised)).toStrictEqual(['round 2 is not stored']);
  });
});

describe('shownNotStored', () => {
  it('passes what is stored as shown, deltas and an interrupted end', () => {
    const { raised } = debate();
    expect(shownNotStored(raised, raised)).toStrictEqual([]);
    const before = raised.slice(0, 12);
    const shown = [...before, ended(before.at(-1)!, 13, 'interrupted')];
    expect(shownNotStored(shown, before)).toStrictEqual([]);
    // Deltas and answers ahead of the store are not what this checks.
    expect(shownNotStored(raised.slice(0, 30), raised.slice(0, 2))).toStrictEqual([]);
  });

  it('names a verdict, a consensus and an end shown but not stored, or stored otherwise', () => {
    const { raised } = debate();
    const verdict = raised.find((e) => e.type === 'verdict')!;
    const consensus = raised.find((e) => e.type === 'consensus')!;
    const end = raised.at(-1)!;
    const stored = raised.filter((e) => e.type !== 'verdict' && e !== end);
    expect(shownNotStored(raised, stored)).toStrictEqual([
      `verdict at ${verdict.seq} was shown, not stored`,
      `session.ended (partial) at ${end.seq} was shown, not stored`,
    ]);
    const other = raised.map((e) => (e === consensus ? { ...e, ts: '2020-01-01T00:00:00.000Z' } : e));
    expect(shownNotStored(raised, other)).toStrictEqual([`consensus at ${consensus.seq} was shown, not stored`]);
    const cancelled = { ...ended(end, end.seq, 'cancelled'), error: 'gone: taken' };
    expect(shownNotStored([cancelled], raised)).toStrictEqual([
      `session.ended (cancelled: gone: taken) at ${end.seq} was shown, not stored`,
    ]);
  });
});

describe.skipIf(!postgres.available)('storedRecords', () => {
  let server: TestPostgres | undefined;
  afterAll(() => server?.stop());

  it('reads each session as the store reads it: an archived one, and one still running', async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    const database = await PostgresDatabase.open(url, { recoverEveryMs: 0 });
    try {
      const store = database.sessions;
      const whole = new FakeDebate({ owner: 'u1', roundsRequested: 2 });
      for (const step of debateSteps(whole)) await store.write({ ...step, run: step.events[0]!.seq === 1 ? 'first' : 'later' });
      await store.archivesDone();
      // Archived already: nothing left to archive.
      expect(await store.archive(whole.session.id)).toBe(false);
      const running = new FakeDebate({ owner: 'u1' }).start().startRound(1);
      running.answer(1, 1);
      await store.write({ ...running.step({ rounds: [1] }), run: 'first' });

      const records = await storedRecords(url);
      expect([...records.keys()].sort()).toStrictEqual([whole.session.id, running.session.id].sort());
      expect(records.get(whole.session.id)).toStrictEqual({
        id: whole.session.id,
        status: 'partial',
        missingSlots: [5],
        events: await store.events(whole.session.id, 0),
      });
      expect(records.get(whole.session.id)!.events).toStrictEqual(whole.raised);
      expect(records.get(running.session.id)).toMatchObject({ status: 'running', events: running.raised });
    } finally {
      await database.close();
    }
  });
});
