/**
 * `runEval`: a question set with reference answers through several strategies on the same panel, to show
 * whether the debate pays on the user's own questions.
 *
 * - `solo`: each slot alone, its round-1 answer of the debate (the independent round asks each model alone);
 * - `vote`: a plain plurality of those answers (the session's integrity report);
 * - `debate`: the full deep debate's verdict;
 * - `adaptive`: a session of its own with `strategy: "adaptive"` (vote first, debate on disagreement).
 *
 * Solo, vote and debate share one debate per question, so they are compared on the very same independent
 * answers: what differs between the vote and the debate is only the rounds after round 1. Each session is a
 * record (`EvalRecord`) the caller keeps as it ends (`onRecord`); given back as `done`, a later run asks
 * nothing it already has. Sessions are tagged `eval` and `eval:<runId>`, which keeps them out of the history.
 */

import { ConsiliumError } from '../errors.js';
import type { Consilium } from '../facade/consilium.js';
import type { Answer, Session } from '../generated/types.gen.js';
import { gradeLocally, judgePrompt, readJudgement } from './graders.js';
import { askedQuestion, type EvalQuestion } from './questions.js';
import { wilson } from './stats.js';

export type EvalStrategy = 'solo' | 'vote' | 'debate' | 'adaptive';
export const EVAL_STRATEGIES: readonly EvalStrategy[] = ['solo', 'vote', 'debate', 'adaptive'];

/** What a run is asked to compare; a resumed run must ask the same. */
export interface EvalSettings {
  strategies: EvalStrategy[];
  /** The debate's rounds (2–5). */
  rounds: number;
  /** The panel; the server's every slot unless given. */
  slots?: number[];
  /** Adaptive's agreement threshold (the server's default, 1, unless given). */
  agreement?: number;
  /** The slot that grades `judge` questions without a judge of their own (1 unless given). */
  judge?: number;
}

/** One strategy's result on one question. */
export interface Outcome {
  /** `solo:<slot>`, `vote`, `debate` or `adaptive`. */
  strategy: string;
  /** The answer graded: its stated position, else its text (absent when there was none). */
  answer?: string;
  correct: boolean;
  /** Why it is wrong without being graded: no answer, or a judge that gave no verdict. */
  note?: string;
  tokens: number;
  costUsd: number;
  priced: boolean;
  wallMs: number;
  sessionId: string;
}

/** What one finished session gave: enough to report without asking the server again. */
export interface EvalRecord {
  questionId: string;
  kind: 'debate' | 'adaptive';
  sessionId: string;
  status: Session['status'];
  outcomes: Outcome[];
  /** The slots that answered round 1, for the report's labels. */
  slots: { slot: number; provider: string; model: string }[];
  /** The judge calls that graded it. */
  grading?: { calls: number; tokens: number; costUsd: number; priced: boolean };
}

export interface EvalProgress {
  /** Sessions done (resumed ones included) of `total`. */
  done: number;
  total: number;
  /** Sessions an earlier run already had. */
  resumed: number;
  /** The session that just ended, when one did. */
  last?: { questionId: string; kind: EvalRecord['kind']; status: Session['status'] };
  /** Set while the server refuses new runs for a while (429): how long this wait is. */
  waitingMs?: number;
}

export interface EvalOptions extends Partial<EvalSettings> {
  questions: readonly EvalQuestion[];
  /** Names the run: its sessions are tagged `eval:<runId>`. */
  runId: string;
  /** Sessions run at once; 2 unless given. */
  concurrency?: number;
  /** Records an earlier run of the same settings kept: their sessions are not run again. */
  done?: readonly EvalRecord[];
  /** Each record as its session ends and is graded, to keep (a later run's `done`). */
  onRecord?: (record: EvalRecord) => void | Promise<void>;
  onProgress?: (progress: EvalProgress) => void;
  /** Stops the run: sessions in flight are cancelled on the server and leave no record. */
  signal?: AbortSignal;
  /** Waits between tries while the server limits runs (tests pass one that returns at once). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface StrategySummary {
  strategy: string;
  label: string;
  /** Questions graded. */
  n: number;
  correct: number;
  accuracy: number;
  /** The 95 % (Wilson) interval of the accuracy. */
  interval: { low: number; high: number };
  costUsd: number;
  priced: boolean;
  tokens: number;
  wallMs: number;
}

/** A question on which the debate's verdict and the round-1 vote disagree in correctness. */
export interface Flip {
  questionId: string;
  question: string;
  reference: string;
  vote?: string;
  debate?: string;
  sessionId: string;
}

export interface EvalResult {
  runId: string;
  settings: EvalSettings;
  questions: number;
  strategies: StrategySummary[];
  /** Vote right, debate wrong; and vote wrong, debate right. */
  flips: { rightToWrong: Flip[]; wrongToRight: Flip[] };
  grading: { calls: number; tokens: number; costUsd: number; priced: boolean };
  records: EvalRecord[];
}

/** The settings a run uses, defaults filled in. */
export function evalSettings(options: Partial<EvalSettings>): EvalSettings {
  return {
    strategies: options.strategies && options.strategies.length > 0 ? [...new Set(options.strategies)] : [...EVAL_STRATEGIES],
    rounds: options.rounds ?? 3,
    ...(options.slots && { slots: [...options.slots] }),
    ...(options.agreement !== undefined && { agreement: options.agreement }),
    ...(options.judge !== undefined && { judge: options.judge }),
  };
}

/** The sessions a question needs: one debate (for solo, vote, debate) and one adaptive run. */
function kindsOf(settings: EvalSettings): EvalRecord['kind'][] {
  const s = settings.strategies;
  return [
    ...(s.some((x) => x !== 'adaptive') ? (['debate'] as const) : []),
    ...(s.includes('adaptive') ? (['adaptive'] as const) : []),
  ];
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

const wallOf = (s: Session) => (s.completedAt ? Date.parse(s.completedAt) - Date.parse(s.createdAt) : 0);

export async function runEval(consilium: Consilium, options: EvalOptions): Promise<EvalResult> {
  const settings = evalSettings(options);
  const { questions, runId, signal } = options;
  const sleep = options.sleep ?? defaultSleep;
  const tags = ['eval', `eval:${runId}`];
  const key = (questionId: string, kind: string) => `${questionId}\u0000${kind}`;
  const records = new Map<string, EvalRecord>();
  for (const r of options.done ?? []) records.set(key(r.questionId, r.kind), r);
  const todo = questions.flatMap((q) => kindsOf(settings).map((kind) => ({ q, kind })));
  const pending = todo.filter((t) => !records.has(key(t.q.id, t.kind)));
  const resumed = todo.length - pending.length;
  let done = resumed;
  options.onProgress?.({ done, total: todo.length, resumed });

  /** A run, tried again while the server refuses to start more for now (429). */
  const started = async <T>(start: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await start();
      } catch (error) {
        if (!(error instanceof ConsiliumError) || error.status !== 429 || attempt >= 12 || signal?.aborted) throw error;
        const waitingMs = Math.min(60_000, 5_000 * 2 ** attempt);
        options.onProgress?.({ done, total: todo.length, resumed, waitingMs });
        await sleep(waitingMs, signal);
      }
    }
  };

  const grade = async (
    q: EvalQuestion,
    outcome: Outcome,
    text: string | undefined,
    grading: NonNullable<EvalRecord['grading']>,
  ) => {
    if (outcome.answer === undefined) return { ...outcome, correct: false, note: 'no answer' };
    const gradable = { position: outcome.answer, text: text ?? outcome.answer };
    const local = gradeLocally(q, gradable);
    if (local !== undefined) return { ...outcome, correct: local };
    const slot = q.judge ?? settings.judge ?? 1;
    const judged = await started(() => consilium.ask(judgePrompt(q, gradable), { slot, tags, ...(signal && { signal }) }));
    grading.calls++;
    grading.tokens += judged.answer.usage.totalTokens;
    grading.costUsd += judged.answer.cost?.usd ?? 0;
    grading.priced &&= judged.answer.cost?.priced ?? false;
    const verdict = readJudgement(judged.answer.text);
    return verdict === undefined
      ? { ...outcome, correct: false, note: 'the judge gave no verdict' }
      : { ...outcome, correct: verdict };
  };

  const work = async ({ q, kind }: (typeof pending)[number]) => {
    const session = await started(() =>
      consilium.debates.run(askedQuestion(q), {
        rounds: settings.rounds,
        ...(settings.slots && { slots: settings.slots }),
        ...(kind === 'adaptive' && { strategy: 'adaptive' as const }),
        ...(kind === 'adaptive' && settings.agreement !== undefined && { agreement: settings.agreement }),
        tags,
        ...(signal && { signal }),
      }),
    );
    // A run cut short by this run's own stop leaves nothing: a later run asks it again.
    if (signal?.aborted || session.status === 'cancelled') return;
    const grading = { calls: 0, tokens: 0, costUsd: 0, priced: true };
    const graded: Outcome[] = [];
    for (const { outcome, text } of outcomesOf(session, kind, settings)) graded.push(await grade(q, outcome, text, grading));
    const first = session.rounds.find((r) => r.number === 1)?.answers ?? [];
    const record: EvalRecord = {
      questionId: q.id,
      kind,
      sessionId: session.id,
      status: session.status,
      outcomes: graded,
      slots: first.map((a) => ({ slot: a.slot, provider: a.provider, model: a.model })),
      ...(grading.calls > 0 && { grading }),
    };
    records.set(key(q.id, kind), record);
    await options.onRecord?.(record);
    done++;
    options.onProgress?.({ done, total: todo.length, resumed, last: { questionId: q.id, kind, status: session.status } });
  };

  // A failure stops every worker from taking more; the sessions in flight finish (or, stopped, are cancelled).
  let next = 0;
  let failure: unknown;
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 2, pending.length)) }, async () => {
    while (next < pending.length && !signal?.aborted && failure === undefined) {
      try {
        await work(pending[next++]!);
      } catch (error) {
        failure ??= error;
      }
    }
  });
  await Promise.all(workers);
  if (signal?.aborted) throw new ConsiliumError('The evaluation was stopped', { code: 'aborted' });
  if (failure !== undefined) throw failure;
  return summarize(questions, [...records.values()], settings, runId);
}

/** What each strategy of one session answered, before grading, with the text a judge would read. */
function outcomesOf(session: Session, kind: EvalRecord['kind'], settings: EvalSettings): { outcome: Outcome; text?: string }[] {
  const report = session.integrity;
  const verdictAnswer =
    report?.verdict.position ?? (session.verdict?.format === 'structured' ? session.verdict.answer : session.verdict?.rawText);
  const whole = {
    tokens: session.usage.totalTokens,
    costUsd: session.cost.usd,
    priced: session.cost.priced,
    wallMs: wallOf(session),
    sessionId: session.id,
  };
  const verdictText = session.verdict?.answer ?? session.verdict?.rawText;
  if (kind === 'adaptive')
    return [{ outcome: { strategy: 'adaptive', answer: verdictAnswer, correct: false, ...whole }, text: verdictText }];
  const first: Answer[] = session.rounds.find((r) => r.number === 1)?.answers ?? [];
  const out: { outcome: Outcome; text?: string }[] = [];
  const spent = (answers: readonly Answer[]) => ({
    tokens: answers.reduce((n, a) => n + a.usage.totalTokens, 0),
    costUsd: answers.reduce((n, a) => n + (a.cost?.usd ?? 0), 0),
    priced: answers.every((a) => a.cost?.priced ?? false),
    wallMs: Math.max(0, ...answers.map((a) => a.latencyMs)),
    sessionId: session.id,
  });
  if (settings.strategies.includes('solo')) {
    for (const a of [...first].sort((x, y) => x.slot - y.slot)) {
      const position = report?.slots.find((s) => s.slot === a.slot)?.first;
      const answer = a.error ? undefined : (position ?? a.text);
      out.push({
        outcome: { strategy: `solo:${a.slot}`, answer, correct: false, ...spent([a]) },
        text: a.error ? undefined : a.text,
      });
    }
  }
  if (settings.strategies.includes('vote')) {
    out.push({ outcome: { strategy: 'vote', answer: report?.vote.position, correct: false, ...spent(first) } });
  }
  if (settings.strategies.includes('debate')) {
    out.push({ outcome: { strategy: 'debate', answer: verdictAnswer, correct: false, ...whole }, text: verdictText });
  }
  return out;
}

const ORDER = (strategy: string) =>
  strategy.startsWith('solo:') ? Number(strategy.slice(5)) : ({ vote: 10, debate: 11, adaptive: 12 }[strategy] ?? 20);

/** Each strategy's accuracy and spend over the records, and the flips between the vote and the debate. */
export function summarize(
  questions: readonly EvalQuestion[],
  records: readonly EvalRecord[],
  settings: EvalSettings,
  runId: string,
): EvalResult {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const kept = records.filter((r) => byId.has(r.questionId));
  const outcomes = new Map<string, Outcome[]>();
  const slotNames = new Map<number, string>();
  for (const r of kept) {
    for (const s of r.slots) slotNames.set(s.slot, `${s.provider} ${s.model}`);
    for (const o of r.outcomes) outcomes.set(o.strategy, [...(outcomes.get(o.strategy) ?? []), o]);
  }
  const label = (strategy: string) =>
    strategy.startsWith('solo:')
      ? `slot ${strategy.slice(5)} alone (${slotNames.get(Number(strategy.slice(5))) ?? '?'})`
      : ({ vote: 'round-1 vote', debate: 'full debate', adaptive: 'adaptive' }[strategy] ?? strategy);
  const strategies: StrategySummary[] = [...outcomes.entries()]
    .sort(([a], [b]) => ORDER(a) - ORDER(b))
    .map(([strategy, list]) => {
      const correct = list.filter((o) => o.correct).length;
      return {
        strategy,
        label: label(strategy),
        n: list.length,
        correct,
        accuracy: list.length === 0 ? 0 : correct / list.length,
        interval: wilson(correct, list.length),
        costUsd: list.reduce((n, o) => n + o.costUsd, 0),
        priced: list.every((o) => o.priced),
        tokens: list.reduce((n, o) => n + o.tokens, 0),
        wallMs: list.reduce((n, o) => n + o.wallMs, 0),
      };
    });
  const flips: EvalResult['flips'] = { rightToWrong: [], wrongToRight: [] };
  for (const r of kept.filter((x) => x.kind === 'debate')) {
    const vote = r.outcomes.find((o) => o.strategy === 'vote');
    const debate = r.outcomes.find((o) => o.strategy === 'debate');
    if (!vote || !debate || vote.correct === debate.correct) continue;
    const q = byId.get(r.questionId)!;
    const flip: Flip = {
      questionId: q.id,
      question: q.question,
      reference: q.reference,
      ...(vote.answer !== undefined && { vote: vote.answer }),
      ...(debate.answer !== undefined && { debate: debate.answer }),
      sessionId: r.sessionId,
    };
    (vote.correct ? flips.rightToWrong : flips.wrongToRight).push(flip);
  }
  const grading = { calls: 0, tokens: 0, costUsd: 0, priced: true };
  for (const r of kept) {
    if (!r.grading) continue;
    grading.calls += r.grading.calls;
    grading.tokens += r.grading.tokens;
    grading.costUsd += r.grading.costUsd;
    grading.priced &&= r.grading.priced;
  }
  return { runId, settings, questions: questions.length, strategies, flips, grading, records: kept };
}
