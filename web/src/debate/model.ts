/**
 * A session as the UI shows it, built from its `DebateEvent`s: the live stream, a replay from history and a resumed
 * stream all go through `apply`, so a reopened session looks exactly as it did live. Events at or below the last
 * `seq` applied are ignored, which is what makes a resume with `Last-Event-ID` (or a replay after a reload) free of
 * duplicated text whatever the server resends.
 *
 * Mutable on purpose: at 500 deltas/s the view re-renders once per frame, not per event; each answer carries a
 * revision so unchanged answer cards skip rendering.
 */
import type {
  Answer,
  AnswerError,
  Consensus,
  Cost,
  DebateEvent,
  Grounding,
  IntegrityReport,
  RoundKind,
  SessionMode,
  SessionStatus,
  SlotInfo,
  Synthesizer,
  Usage,
  Verdict,
} from '../../../sdk/src/index.js';

/** `cancelled`: cut off by the user's cancel, not a failure of the model's. */
export type AnswerStatus = 'thinking' | 'streaming' | 'done' | 'failed' | 'cancelled';

export interface AnswerView {
  slot: number;
  round: number;
  text: string;
  status: AnswerStatus;
  error?: AnswerError;
  answer?: Answer;
  rev: number;
}

export interface RoundView {
  number: number;
  kind: RoundKind;
  slots: number[];
  answers: Map<number, AnswerView>;
  missingSlots?: number[];
  quorumMet?: boolean;
  ended: boolean;
}

export interface SessionView {
  id?: string;
  mode?: SessionMode;
  question?: string;
  roundsRequested?: number;
  slots: SlotInfo[];
  rounds: RoundView[];
  consensus?: Consensus;
  synthesizer?: Synthesizer;
  /** The verdict's text as it streams (its summary, then its answer), before the structured verdict arrives. */
  verdictText: { summary: string; answer: string; attempt: number };
  verdict?: Verdict;
  status: SessionStatus | 'starting';
  missingSlots: number[];
  usage?: Usage;
  cost?: Cost;
  error?: string;
  startedAt?: string;
  endedAt?: string;
  /** The `seq` of the last event applied: the `Last-Event-ID` to resume from. */
  lastSeq: number;
  rev: number;
  /** Counts events other than text deltas: what the timeline, matrix and usage table show changed. */
  shape: number;
  /** Event types this UI does not know (a newer server): counted, not fatal. */
  unknownEvents: number;
  /** Any other field a newer contract adds to the session (e.g. early stop, thread), kept for display. */
  extra: Record<string, unknown>;
  /** A grounded debate's sources, as last reported (`web/src/grounding/`). */
  grounding?: Grounding;
  /** A deep session's integrity report: the round-1 vote beside the verdict, each slot's moves, the flags. */
  integrity?: IntegrityReport;
}

export const emptySession = (): SessionView => ({
  slots: [],
  rounds: [],
  verdictText: { summary: '', answer: '', attempt: 0 },
  status: 'starting',
  missingSlots: [],
  lastSeq: 0,
  rev: 0,
  shape: 0,
  unknownEvents: 0,
  extra: {},
});

const roundOf = (view: SessionView, number: number): RoundView => {
  let round = view.rounds.find((r) => r.number === number);
  if (!round) {
    round = { number, kind: number === 1 ? 'independent' : 'critique', slots: [], answers: new Map(), ended: false };
    view.rounds.push(round);
    view.rounds.sort((a, b) => a.number - b.number);
  }
  return round;
};

const answerOf = (round: RoundView, slot: number): AnswerView => {
  let answer = round.answers.get(slot);
  if (!answer) {
    answer = { slot, round: round.number, text: '', status: 'thinking', rev: 0 };
    round.answers.set(slot, answer);
    if (!round.slots.includes(slot)) round.slots.push(slot);
  }
  return answer;
};

/**
 * A session that ended `interrupted` and is continued goes on in the same stream: the first event of the
 * continued run makes it running again.
 */
function reopen(view: SessionView): void {
  if (view.status !== 'interrupted') return;
  view.status = 'running';
  delete view.endedAt;
  delete view.error;
}

/** Applies one event; returns false when it was already applied (a resent `seq`). */
export function apply(view: SessionView, event: DebateEvent): boolean {
  if (typeof event.seq === 'number' && event.seq <= view.lastSeq) return false;
  view.lastSeq = event.seq;
  view.rev++;
  if (event.type !== 'answer.delta' && (event as { type: string }).type !== 'verdict.delta') view.shape++;
  const e = event as DebateEvent & Record<string, unknown>;
  switch (event.type) {
    case 'session.started':
      view.id = event.sessionId;
      view.mode = event.mode;
      view.question = event.question;
      view.roundsRequested = event.roundsRequested;
      view.slots = event.slots;
      view.status = 'running';
      view.startedAt = event.ts;
      break;
    case 'round.started': {
      reopen(view);
      const round = roundOf(view, event.round);
      round.kind = event.kind;
      // A round started again (a continued session) asks the slots it lists afresh: their text starts over.
      if (round.ended) {
        round.ended = false;
        delete round.missingSlots;
        delete round.quorumMet;
      }
      for (const slot of event.slots) {
        const answer = answerOf(round, slot);
        if (answer.status === 'thinking' && answer.text === '') continue;
        answer.text = '';
        answer.status = 'thinking';
        delete answer.error;
        delete answer.answer;
        answer.rev++;
      }
      break;
    }
    case 'answer.delta': {
      const answer = answerOf(roundOf(view, event.round), event.slot);
      answer.text += event.delta;
      // Its first delta changes its status, which the timeline shows.
      if (answer.status !== 'streaming') view.shape++;
      answer.status = 'streaming';
      answer.rev++;
      break;
    }
    case 'answer.completed': {
      const answer = answerOf(roundOf(view, event.answer.round), event.answer.slot);
      answer.answer = event.answer;
      // The completed text is authoritative: it equals the deltas joined, and replaces them if a delta was lost.
      answer.text = event.answer.text;
      answer.status = event.answer.error ? 'failed' : 'done';
      if (event.answer.error) answer.error = event.answer.error;
      answer.rev++;
      break;
    }
    case 'answer.failed': {
      const answer = answerOf(roundOf(view, event.round), event.slot);
      answer.status = 'failed';
      answer.error = event.error;
      answer.rev++;
      break;
    }
    case 'round.ended': {
      const round = roundOf(view, event.round);
      round.ended = true;
      round.missingSlots = event.missingSlots;
      round.quorumMet = event.quorumMet;
      for (const answer of round.answers.values()) {
        if (answer.status === 'thinking' || answer.status === 'streaming') {
          answer.status = 'failed';
          answer.error ??= { code: 'aborted', message: 'No answer by the end of the round.', retryable: false, attempts: 0 };
          answer.rev++;
        }
      }
      break;
    }
    case 'consensus':
      view.consensus = event.consensus;
      break;
    case 'synthesis.started':
      reopen(view);
      view.synthesizer = event.synthesizer;
      // A fallback synthesizer starts the text over.
      view.verdictText = { summary: '', answer: '', attempt: 0 };
      break;
    case 'grounding': {
      // A page's text comes with the first event that reports it; the later ones name the page by its hash.
      const known = new Map(view.grounding?.pages.map((p) => [p.n, p.text]));
      view.grounding = {
        ...event.grounding,
        pages: event.grounding.pages.map((p) => {
          const text = p.text ?? known.get(p.n);
          return text === undefined ? p : { ...p, text };
        }),
      };
      break;
    }
    case 'verdict':
      view.verdict = event.verdict;
      view.synthesizer = event.verdict.synthesizer;
      break;
    case 'integrity':
      view.integrity = event.integrity;
      break;
    case 'session.ended':
      view.status = event.status;
      view.missingSlots = event.missingSlots;
      view.usage = event.usage;
      view.cost = event.cost;
      view.endedAt = event.ts;
      if (event.error) view.error = event.error;
      for (const round of view.rounds) {
        for (const answer of round.answers.values()) {
          // The user's cancel cut these short: that reads as cancelled, not as the model failing.
          const cut = answer.status === 'thinking' || answer.status === 'streaming' || answer.error?.code === 'aborted';
          if (event.status === 'cancelled' && cut && answer.status !== 'done') {
            answer.status = 'cancelled';
            answer.rev++;
          } else if (answer.status === 'thinking' || answer.status === 'streaming') {
            answer.status = 'failed';
            answer.error ??= { code: 'aborted', message: `The session ended (${event.status}).`, retryable: false, attempts: 0 };
            answer.rev++;
          }
        }
      }
      break;
    default: {
      if (e.type === 'verdict.delta' && typeof e.delta === 'string') {
        // The verdict as it is written: a repair attempt starts its text over.
        const attempt = typeof e.attempt === 'number' ? e.attempt : 1;
        if (attempt !== view.verdictText.attempt) view.verdictText = { summary: '', answer: '', attempt };
        if (e.field === 'answer') view.verdictText.answer += e.delta;
        else view.verdictText.summary += e.delta;
      } else view.unknownEvents++;
    }
  }
  return true;
}

export const isFinished = (view: SessionView) => view.status !== 'running' && view.status !== 'starting';

/** The error of a slot's latest answer when it failed (a cancel is not a failure): the panel shows it as failing. */
export function slotFailure(view: SessionView, slot: number): AnswerError | undefined {
  for (let i = view.rounds.length - 1; i >= 0; i--) {
    const answer = view.rounds[i]!.answers.get(slot);
    if (answer) return answer.status === 'failed' ? answer.error : undefined;
  }
  return undefined;
}

/** Each slot's answers, round by round: the columns of the live view and the rows of "compare". */
export const answersOfSlot = (view: SessionView, slot: number): AnswerView[] =>
  view.rounds.flatMap((r) => (r.answers.has(slot) ? [r.answers.get(slot)!] : []));

/** Usage summed per slot over every round. */
export function usageBySlot(view: SessionView): Map<number, Usage> {
  const totals = new Map<number, Usage>();
  for (const round of view.rounds) {
    for (const answer of round.answers.values()) {
      const usage = answer.answer?.usage;
      if (!usage) continue;
      const total = totals.get(answer.slot) ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      total.inputTokens += usage.inputTokens;
      total.outputTokens += usage.outputTokens;
      total.totalTokens += usage.totalTokens;
      totals.set(answer.slot, total);
    }
  }
  return totals;
}

export function usageOfRound(round: RoundView): Usage {
  const total = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const answer of round.answers.values()) {
    const usage = answer.answer?.usage;
    if (!usage) continue;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.totalTokens += usage.totalTokens;
  }
  return total;
}

/** Costs added up; `undefined` when one is unknown (an answer stored before answers reported their cost). */
export function sumCosts(costs: (Cost | undefined)[]): Cost | undefined {
  let total: Cost = { usd: 0, priced: true };
  for (const cost of costs) {
    if (!cost) return undefined;
    total = { usd: total.usd + cost.usd, priced: total.priced && cost.priced };
  }
  return total;
}

const answered = (round: RoundView) => [...round.answers.values()].filter((a) => a.answer);

export const costOfRound = (round: RoundView) => sumCosts(answered(round).map((a) => a.answer!.cost));

export const costOfSlot = (view: SessionView, slot: number) =>
  sumCosts(
    view.rounds.flatMap((r) =>
      answered(r)
        .filter((a) => a.slot === slot)
        .map((a) => a.answer!.cost),
    ),
  );

/**
 * What the verdict's calls used and cost: the session's totals less every answer's (the verdict is the only other
 * call). Its cost is a lower bound unless the session's is priced.
 */
export function verdictSpend(view: SessionView): { usage: Usage; cost: Cost | undefined } | undefined {
  if (!view.usage || !view.cost || !(view.synthesizer || view.verdict)) return undefined;
  const answers = view.rounds.flatMap(answered).map((a) => a.answer!);
  const tokens = (k: 'inputTokens' | 'outputTokens' | 'totalTokens') =>
    Math.max(0, view.usage![k] - answers.reduce((n, a) => n + a.usage[k], 0));
  const spent = sumCosts(answers.map((a) => a.cost));
  return {
    usage: { inputTokens: tokens('inputTokens'), outputTokens: tokens('outputTokens'), totalTokens: tokens('totalTokens') },
    cost: spent && { usd: Math.max(0, view.cost.usd - spent.usd), priced: view.cost.priced },
  };
}

/**
 * How a failed answer is named on its card: a refusal, an empty answer and a cut stream are the
 * model's or the stream's own outcomes, not a generic failure (none of them counts toward the quorum).
 */
export function failureLabel(error: Pick<AnswerError, 'code'>): string {
  switch (error.code) {
    case 'refused':
      return 'Refused';
    case 'empty':
      return 'Empty answer';
    case 'stream_truncated':
      return 'Cut off (partial answer)';
    default:
      return `Failed: ${error.code}`;
  }
}
