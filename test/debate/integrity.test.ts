/**
 * The integrity report, the adaptive strategy and the cost estimate over real HTTP, on scripted models of known
 * behaviour (`support/scripted-models.ts`): what the report says is checked against what the test works out on
 * its own from the models' scripts, never against the server's own reading.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Consilium } from '../../sdk/src/facade/consilium.js';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { beforeFirstTest } from '../support/lazy.js';
import { type ScriptedModels, scriptedPanel, startScriptedModels, sumQuestions } from '../support/scripted-models.js';
import { type RunningServer, startServer } from '../support/server.js';

/** p-model, conformist, stubborn, and two of one family. */
const PANEL = ['accurate-0.7', 'conformist-0.5', 'stubborn-0.6', 'qwen2.5:7b', 'qwen2.5:14b'];
const QUESTIONS = sumQuestions(10, 7);

let models: ScriptedModels;
let server: RunningServer;
let consilium: Consilium;
beforeFirstTest(async () => {
  models = await startScriptedModels({ seed: 7 });
  server = await startServer(scriptedPanel(models.baseUrl, PANEL));
  consilium = new Consilium({ baseUrl: server.baseUrl, token: server.token });
});
afterAll(async () => {
  await server?.close();
  await models?.close();
});

/** The plurality of `answers` (slot → number), counted here: the winner, or undefined on a tie. */
function pluralityOf(answers: readonly number[]): { value?: number; holders: number[] } {
  const counts = new Map<number, number[]>();
  for (const [i, a] of answers.entries()) counts.set(a, [...(counts.get(a) ?? []), i + 1]);
  const top = Math.max(...[...counts.values()].map((h) => h.length));
  const winners = [...counts].filter(([, h]) => h.length === top);
  return winners.length === 1 ? { value: winners[0]![0], holders: winners[0]![1] } : { holders: [] };
}

const firstAnswers = (question: string, panel = PANEL) => panel.map((m) => models.firstAnswer(m, question));
const callsFor = (question: string) => models.calls.filter((c) => c.question === question);

describe('the integrity report on scripted models', () => {
  const sessions: Session[] = [];

  it('is on every deep session, stored and exported, with the round-1 vote a plurality counted independently', async () => {
    for (const q of QUESTIONS) sessions.push(await consilium.debates.run(q.question, { rounds: 3 }));
    for (const [i, session] of sessions.entries()) {
      const report = session.integrity!;
      expect(report, session.id).toBeDefined();
      const expected = pluralityOf(firstAnswers(QUESTIONS[i]!.question));
      expect(report.vote.position, QUESTIONS[i]!.question).toBe(
        expected.value === undefined ? undefined : String(expected.value),
      );
      expect(report.vote.slots ?? []).toEqual(expected.holders);
      expect(report.vote.answered).toBe(5);
      expect(report.vote.stated).toBe(5);
      // Stored as it was returned, and in the export.
      expect((await consilium.sessions.get(session.id)).integrity).toEqual(report);
      const markdown = await consilium.sessions.export(session.id);
      expect(markdown).toContain('## Integrity');
      expect(markdown).toContain(report.summary.replace(/[“”]/g, (c) => c).slice(0, 20));
    }
    // The sample is not degenerate: some sessions have a majority, and the conformist moves in some.
    expect(sessions.some((s) => s.integrity!.vote.position !== undefined)).toBe(true);
  });

  it('flags the conformist in every session where it moved without a reason, and only there', async () => {
    let moved = 0;
    for (const [i, session] of sessions.entries()) {
      const answers = firstAnswers(QUESTIONS[i]!.question);
      const majority = pluralityOf(answers).value;
      // The others never move, so the conformist ends on the round-1 majority when there is one.
      const conformistMoves = majority !== undefined && majority !== answers[1];
      const slot2 = session.integrity!.slots.find((s) => s.slot === 2)!;
      expect(slot2.changed, session.id).toBe(conformistMoves);
      const flagged = session.integrity!.flags.filter((f) => f.kind === 'conformity').map((f) => f.slots);
      expect(flagged, session.id).toEqual(conformistMoves ? [[2]] : []);
      if (conformistMoves) {
        moved++;
        expect(slot2).toMatchObject({ direction: 'towards_majority', reason: 'none', final: String(majority) });
      }
      // The stubborn and accurate models never move.
      for (const s of [1, 3, 4, 5]) expect(session.integrity!.slots.find((x) => x.slot === s)!.direction).toBe('unchanged');
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('names the two slots of one family in every session', () => {
    for (const session of sessions) {
      expect(session.integrity!.flags.filter((f) => f.kind === 'same_family')).toEqual([
        {
          kind: 'same_family',
          slots: [4, 5],
          message: expect.stringMatching(/^Slots 4 and 5 are the same model family \(qwen\): their agreement is weaker evidence/),
        },
      ]);
    }
  });

  it('says in one line whether the verdict differs from the vote', () => {
    for (const session of sessions) {
      const { vote, verdict, summary } = session.integrity!;
      if (vote.position === undefined) expect(summary).toMatch(/no vote to compare/);
      else if (verdict.agreesWithVote) expect(summary).toMatch(/^The verdict agrees with the round-1 vote/);
      else expect(summary).toMatch(/^The verdict differs from the round-1 vote/);
      expect(verdict.source).toBe('verdict');
    }
  });

  it('streams the report as the last event before the session ends', async () => {
    const events = [];
    for await (const e of consilium.debates.stream(QUESTIONS[0]!.question, { rounds: 2 })) events.push(e);
    const types = events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['integrity', 'session.ended']);
  });
});

describe('collapse', () => {
  it('is flagged when round-1 disagreement becomes unanimity, with each conformist', async () => {
    const scripted = await startScriptedModels({ seed: 3 });
    // Three right, two always wrong in round 1 that then follow the majority; slots 1 and 2 are one model.
    const panel = ['accurate-1', 'accurate-1', 'stubborn-1', 'conformist-0', 'conformist-0'];
    const collapsing = await startServer(scriptedPanel(scripted.baseUrl, panel));
    try {
      const client = new Consilium({ baseUrl: collapsing.baseUrl, token: collapsing.token });
      const session = await client.debates.run('What is 20 + 22?', { rounds: 3 });
      const report = session.integrity!;
      expect(report.vote).toMatchObject({ position: '42', slots: [1, 2, 3], share: 0.6 });
      expect(report.flags.map((f) => [f.kind, f.slots])).toEqual([
        ['conformity', [4]],
        ['conformity', [5]],
        ['collapse', [4, 5]],
        ['same_family', [1, 2]],
        ['same_family', [4, 5]],
      ]);
      expect(report.flags.find((f) => f.kind === 'same_family')!.message).toMatch(
        /same model \(accurate-1\) behind different endpoints/,
      );
    } finally {
      await collapsing.close();
      await scripted.close();
    }
  });
});

describe('adaptive', () => {
  it('stops at round 1 exactly when the answers agree, with the vote as the verdict and the saving stated', async () => {
    const threshold = 0.6;
    const questions = sumQuestions(10, 11);
    let stops = 0;
    for (const q of questions) {
      const session = await consilium.debates.run(q.question, { rounds: 3, strategy: 'adaptive', agreement: threshold });
      const expected = pluralityOf(firstAnswers(q.question));
      const agree = expected.value !== undefined && expected.holders.length / 5 >= threshold;
      expect(session.adaptive, q.question).toMatchObject({ threshold, stopped: agree });
      expect(session.adaptive!.agreement).toBeCloseTo(agree || expected.value !== undefined ? expected.holders.length / 5 : 0);
      const kinds = callsFor(q.question).map((c) => c.kind);
      if (agree) {
        stops++;
        expect(session.rounds.map((r) => r.number)).toEqual([1]);
        expect(kinds).toEqual(Array(5).fill('independent'));
        expect(session.verdict).toMatchObject({ answer: String(expected.value), synthesizer: { reason: 'vote' } });
        expect(session.status).toBe('completed');
        expect(session.integrity!.summary).toMatch(/stopped after round 1/);
        const saved = session.adaptive!.saved!;
        // Two more rounds of five answers and the verdict.
        expect(saved.calls).toBe(11);
        expect(saved.tokens).toBeGreaterThan(session.usage.totalTokens);
        expect(saved.usd).toBeGreaterThan(0);
      } else {
        expect(session.rounds.map((r) => r.number)).toEqual([1, 2, 3]);
        expect(kinds.filter((k) => k === 'verdict')).toHaveLength(1);
        expect(session.adaptive!.saved).toBeUndefined();
      }
    }
    expect(stops).toBeGreaterThan(0);
    expect(stops).toBeLessThan(questions.length);
  });

  it('a follow-up of an adaptive session votes first too, at its threshold, unless it asks for the debate', async () => {
    const parent = await consilium.debates.run('What is 5 + 6? (settled)', { rounds: 3, strategy: 'adaptive', agreement: 0.8 });
    expect(parent.adaptive).toMatchObject({ threshold: 0.8, stopped: true });
    // Every model answers a settled question right: round 1 agrees.
    const question = 'What is 7 + 8? (settled)';
    const followUp = await consilium.sessions.followUp(parent.id, question);
    expect(followUp.adaptive).toMatchObject({ threshold: 0.8, stopped: true, agreement: 1 });
    expect(followUp.rounds.map((r) => r.number)).toEqual([1]);
    expect(callsFor(question).map((c) => c.kind)).toEqual(Array(5).fill('independent'));
    expect(followUp.verdict).toMatchObject({ answer: '15', synthesizer: { reason: 'vote' } });
    // Its own strategy wins: the whole debate, and its own threshold.
    const debated = await consilium.sessions.followUp(followUp.id, 'What is 9 + 9? (settled)', { strategy: 'debate' });
    expect(debated.adaptive).toBeUndefined();
    expect(debated.rounds.map((r) => r.number)).toEqual([1, 2, 3]);
    const own = await consilium.sessions.followUp(followUp.id, 'What is 4 + 4? (settled)', { agreement: 0.6 });
    expect(own.adaptive).toMatchObject({ threshold: 0.6, stopped: true });
    // A debate's follow-up takes no threshold it does not ask for.
    await expect(consilium.sessions.followUp(debated.id, 'What is 1 + 1?', { agreement: 0.6 })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('refuses an agreement threshold without the adaptive strategy', async () => {
    const response = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is 1 + 2?', agreement: 0.8 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.agreement' }] });
  });
});

describe('the estimate', () => {
  it('brackets the measured cost of the same request, from the models’ past answers', async () => {
    const question = 'What is 31 + 47?';
    const estimate = await consilium.debates.estimate(question, { rounds: 3, budget: { maxCostUsd: 1e-6 } });
    expect(estimate.slots.map((s) => s.pastAnswers >= 3)).toEqual([true, true, true, true, true]);
    expect(estimate.total.calls).toEqual({ low: 16, expected: 16, high: 17 });
    expect(estimate.budget).toMatchObject({ verdict: 'exceeds', maxCostUsd: 1e-6 });
    const before = models.calls.length;
    const session = await consilium.debates.run(question, { rounds: 3 });
    expect(models.calls.length - before).toBe(16);
    const { costUsd, inputTokens, outputTokens } = estimate.total;
    expect(session.cost.usd).toBeGreaterThanOrEqual(costUsd.low);
    expect(session.cost.usd).toBeLessThanOrEqual(costUsd.high);
    expect(session.usage.inputTokens).toBeGreaterThanOrEqual(inputTokens.low);
    expect(session.usage.inputTokens).toBeLessThanOrEqual(inputTokens.high);
    expect(session.usage.outputTokens).toBeLessThanOrEqual(outputTokens.high);
    for (const slot of estimate.slots) {
      const spent = session.rounds.flatMap((r) => r.answers).filter((a) => a.slot === slot.slot);
      const usd = spent.reduce((sum, a) => sum + (a.cost?.usd ?? 0), 0);
      // The verdict's cost is the session's, not an answer's: slot 1 is checked in the total.
      if (slot.slot !== 1) {
        expect(usd, `slot ${slot.slot}`).toBeGreaterThanOrEqual(slot.costUsd.low);
        expect(usd, `slot ${slot.slot}`).toBeLessThanOrEqual(slot.costUsd.high);
      }
    }
  });

  it('is cheaper low for adaptive, and refuses fields of another mode', async () => {
    const adaptive = await consilium.debates.estimate('What is 1 + 2?', { strategy: 'adaptive' });
    expect(adaptive.total.calls.low).toBe(5);
    const single = await consilium.debates.estimate('What is 1 + 2?', { mode: 'single', provider: 'scripted-3' });
    expect(single.slots.map((s) => [s.slot, s.calls.expected])).toEqual([[3, 1]]);
    const response = await server.fetch('/consilium/estimate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Q?', mode: 'single', rounds: 3 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.rounds' }] });
  });
});

describe('the track record', () => {
  it('adds up every deep session’s report per slot', async () => {
    const record = await consilium.trackRecord();
    const reports = [];
    for await (const summary of consilium.sessions.list({ mode: 'deep', limit: 100 })) {
      const s = await consilium.sessions.get(summary.id);
      if (s.integrity) reports.push(s.integrity);
    }
    expect(record.sessions).toBe(reports.length);
    const conformist = record.slots.find((s) => s.slot === 2)!;
    const changed = reports.filter((r) => r.slots.find((s) => s.slot === 2)?.changed).length;
    expect(conformist).toMatchObject({ model: 'conformist-0.5', changed, sessions: reports.length });
    expect(conformist.directions.towards_majority).toBe(changed);
    expect(record.slots.find((s) => s.slot === 3)!.changed).toBe(0);
    const survived = reports.filter((r) => r.slots.find((s) => s.slot === 1)?.survived).length;
    expect(record.slots.find((s) => s.slot === 1)!.survived).toBe(survived);
  });
});
