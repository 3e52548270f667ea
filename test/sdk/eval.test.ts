/**
 * `runEval` from the SDK against the real server on loopback, on scripted models of known behaviour: what it
 * reports is checked against what the test works out from the models' scripts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EvalQuestion,
  type EvalRecord,
  type EvalResult,
  evalHtml,
  evalMarkdown,
  runEval,
} from '../../sdk/src/eval/index.js';
import { Consilium } from '../../sdk/src/facade/consilium.js';
import { beforeFirstTest } from '../support/lazy.js';
import { type ScriptedModels, scriptedPanel, startScriptedModels, sumQuestions } from '../support/scripted-models.js';
import { type RunningServer, startServer } from '../support/server.js';

const P = 0.7;
const PANEL = [`accurate-${P}`, 'conformist-0.5', 'stubborn-0.6', 'qwen2.5:7b', 'qwen2.5:14b'];
const SEED = 5;
/** Sums graded as numbers, and every fifth by a judge (slot 3). */
const QUESTIONS: EvalQuestion[] = sumQuestions(40, SEED).map((q, i) => ({
  ...q,
  grader: i % 5 === 4 ? ('judge' as const) : ('number' as const),
}));

let models: ScriptedModels;
let server: RunningServer;
let consilium: Consilium;
let result: EvalResult;
const kept: EvalRecord[] = [];
beforeFirstTest(async () => {
  models = await startScriptedModels({ seed: SEED });
  server = await startServer(scriptedPanel(models.baseUrl, PANEL));
  consilium = new Consilium({ baseUrl: server.baseUrl, token: server.token });
  result = await runEval(consilium, {
    questions: QUESTIONS,
    runId: 'sums-1',
    concurrency: 4,
    judge: 3,
    onRecord: (r) => void kept.push(r),
  });
});
afterAll(async () => {
  await server?.close();
  await models?.close();
});

const right = (q: EvalQuestion, model: string) => String(models.firstAnswer(model, q.question)) === q.reference;
/** The plurality of the panel's round-1 answers, counted here. */
function vote(q: EvalQuestion): number | undefined {
  const counts = new Map<number, number>();
  for (const m of PANEL) counts.set(models.firstAnswer(m, q.question), (counts.get(models.firstAnswer(m, q.question)) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const winners = [...counts].filter(([, n]) => n === top);
  return winners.length === 1 ? winners[0]![0] : undefined;
}
const strategy = (name: string) => result.strategies.find((s) => s.strategy === name)!;

describe('runEval on scripted models', () => {
  it("reports the p-model's accuracy with a 95 % interval that holds p, as counted from its script", () => {
    const solo = strategy('solo:1');
    expect(solo).toMatchObject({ n: 40, label: `slot 1 alone (scripted-1 accurate-${P})` });
    expect(solo.correct).toBe(QUESTIONS.filter((q) => right(q, PANEL[0]!)).length);
    expect(solo.interval.low).toBeLessThanOrEqual(P);
    expect(solo.interval.high).toBeGreaterThanOrEqual(P);
    expect(solo.interval.high - solo.interval.low).toBeLessThan(0.35);
    for (const [i, model] of PANEL.entries()) {
      expect(strategy(`solo:${i + 1}`).correct, model).toBe(QUESTIONS.filter((q) => right(q, model)).length);
    }
  });

  it('grades the vote as a plurality counted independently, and every strategy on every question', () => {
    expect(result.strategies.map((s) => s.strategy)).toEqual([
      'solo:1',
      'solo:2',
      'solo:3',
      'solo:4',
      'solo:5',
      'vote',
      'debate',
      'adaptive',
    ]);
    expect(strategy('vote').correct).toBe(QUESTIONS.filter((q) => String(vote(q)) === q.reference).length);
    for (const s of result.strategies) expect(s.n, s.strategy).toBe(40);
    // The judge graded every fifth question: one call per strategy that had an answer to grade.
    const judged = models.calls.filter((c) => c.kind === 'judge');
    expect(judged.length).toBe(result.grading.calls);
    expect(judged.every((c) => c.model === PANEL[2])).toBe(true);
    expect(result.grading.calls).toBeGreaterThan(0);
  });

  it('lists the flips between the vote and the debate, each checked against the scripts', () => {
    const { rightToWrong, wrongToRight } = result.flips;
    // On a tie the vote has no answer and the scripted synthesizer picks one: the debate fixes some of those.
    expect(wrongToRight.length).toBeGreaterThan(0);
    const debate = strategy('debate');
    expect(debate.correct - strategy('vote').correct).toBe(wrongToRight.length - rightToWrong.length);
    for (const f of [...rightToWrong, ...wrongToRight]) {
      const q = QUESTIONS.find((x) => x.id === f.questionId)!;
      expect(String(vote(q)) === q.reference, f.questionId).toBe(rightToWrong.includes(f));
      expect(f.sessionId).toMatch(/^ses_/);
    }
  });

  it('adaptive agrees with the vote where it stopped and with a debate where it did not', async () => {
    for (const r of result.records.filter((x) => x.kind === 'adaptive')) {
      const session = await consilium.sessions.get(r.sessionId);
      const debate = result.records.find((x) => x.kind === 'debate' && x.questionId === r.questionId)!;
      const outcome = (name: string, rec: EvalRecord) => rec.outcomes.find((o) => o.strategy === name)!.correct;
      expect(r.outcomes[0]!.correct, r.questionId).toBe(outcome(session.adaptive!.stopped ? 'vote' : 'debate', debate));
    }
    // Adaptive costs less than the full debate: it stopped where all agreed, and debated elsewhere.
    const stops = await Promise.all(
      result.records.filter((x) => x.kind === 'adaptive').map((r) => consilium.sessions.get(r.sessionId)),
    );
    expect(stops.some((s) => s.adaptive!.stopped)).toBe(true);
    expect(stops.some((s) => !s.adaptive!.stopped)).toBe(true);
    expect(strategy('adaptive').tokens).toBeLessThan(strategy('debate').tokens);
  });

  it('tags its sessions, which the history leaves out unless asked for them', async () => {
    const history = [];
    for await (const s of consilium.sessions.list({ limit: 100 })) history.push(s);
    expect(history).toEqual([]);
    const tagged = [];
    for await (const s of consilium.sessions.list({ tag: 'eval:sums-1', limit: 100 })) tagged.push(s);
    expect(tagged).toHaveLength(80 + result.grading.calls);
    expect(tagged.every((s) => s.tags?.includes('eval'))).toBe(true);
  });

  it('asks nothing it already has when given the records of an earlier run', async () => {
    const before = models.calls.length;
    const again = await runEval(consilium, { questions: QUESTIONS, runId: 'sums-1', judge: 3, done: kept });
    expect(models.calls.length).toBe(before);
    expect(again.strategies).toEqual(result.strategies);
    // Half of it kept: only the other half is asked.
    const half = kept.filter((r) => Number(r.questionId.slice(1)) <= 20);
    const progress: number[] = [];
    const partly = await runEval(consilium, {
      questions: QUESTIONS,
      runId: 'sums-2',
      judge: 3,
      done: half,
      onProgress: (p) => progress.push(p.done),
    });
    const asked = new Set(models.calls.slice(before).map((c) => c.question));
    expect([...asked].every((text) => Number(QUESTIONS.find((q) => q.question === text)!.id.slice(1)) > 20)).toBe(true);
    expect(progress[0]).toBe(40);
    expect(progress.at(-1)).toBe(80);
    expect(partly.strategies.map((s) => s.n)).toEqual(result.strategies.map((s) => s.n));
  });

  it('waits and tries again while the server refuses to start more runs (429), saying so in its progress', async () => {
    // One debate at a time for this user, and two asked at once.
    const limited = await startServer({
      ...scriptedPanel(models.baseUrl, PANEL),
      CONSILIUM_RATE_LIMITS: 'on',
      CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '1',
    });
    try {
      const client = new Consilium({ baseUrl: limited.baseUrl, token: limited.token });
      // A refused start waits until no session of the run is running: the running slot is then (about to be) free.
      const running = async () =>
        (await limited.sessions.store.list({ limit: 5, status: 'running', tag: 'eval:limited' })).items.length > 0;
      const waits: number[] = [];
      const result = await runEval(client, {
        questions: QUESTIONS.slice(0, 4),
        runId: 'limited',
        strategies: ['vote'],
        concurrency: 2,
        onProgress: (p) => {
          if (p.waitingMs !== undefined) waits.push(p.waitingMs);
        },
        sleep: async () => {
          while (await running()) await new Promise((resolve) => setImmediate(resolve));
        },
      });
      expect(waits.length).toBeGreaterThan(0);
      expect(waits[0]).toBe(5000);
      expect(result.strategies).toMatchObject([{ strategy: 'vote', n: 4 }]);
    } finally {
      await limited.close();
    }
  });

  it('writes a Markdown report and a self-contained HTML page with its charts, untrusted text escaped', () => {
    const hostile = {
      ...result,
      runId: '<script>x</script>',
      flips: {
        rightToWrong: [
          {
            questionId: 'q1',
            question: '<img src=x onerror=alert(1)> *bold*',
            reference: '1',
            vote: '1',
            debate: '2',
            sessionId: 'ses_0123456789',
          },
        ],
        wrongToRight: [],
      },
    };
    const md = evalMarkdown(hostile, { baseUrl: server.baseUrl, date: '2026-11-28' });
    expect(md).toContain('| round-1 vote |');
    expect(md).toContain(`[ses_0123456789](${server.baseUrl}/#/sessions/ses_0123456789)`);
    expect(md).toContain('\\<img src=x onerror=alert(1)\\> \\*bold\\*');
    const html = evalHtml(hostile, { baseUrl: server.baseUrl, date: '2026-11-28' });
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/<script|<img|<link|@import|url\(/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html.match(/<rect class="bar/g)!.length).toBe(4 * result.strategies.length);
    // The only addresses are the sessions' links.
    expect([...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1])).toEqual([
      `${server.baseUrl}/#/sessions/ses_0123456789`,
    ]);
  });
});
