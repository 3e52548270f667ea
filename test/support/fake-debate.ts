/**
 * Sessions as a real deep debate makes them, for tests of anything that stores or shows sessions:
 * `FakeDebate` raises the events a deep debate raises and keeps the session valid per the contract's
 * types; `debateSteps` cuts a debate into the steps the recorder writes.
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  Answer,
  AnswerError,
  Consensus,
  DebateEvent,
  GroundingPage,
  Round,
  RoundKind,
  Session,
  SessionMode,
  SessionStatus,
  Verdict,
} from '../../sdk/src/generated/types.gen.js';
import type { EventBody } from '../../server/src/debate/events.js';
import type { SessionStore, Step } from '../../server/src/sessions/store.js';

/** An event as the debate raises it; the envelope (v, sessionId, seq, ts) is added by `raise`. */
type Raised = DebateEvent extends infer E ? (E extends DebateEvent ? Omit<E, 'v' | 'sessionId' | 'seq' | 'ts'> : never) : never;

const PROVIDERS = [
  ['anthropic', 'claude-sonnet-4-5'],
  ['openai', 'gpt-5'],
  ['deepseek', 'deepseek-chat'],
  ['google', 'gemini-2.5-pro'],
  ['xai', 'grok-4'],
] as const;

/** A unique id per run, so the suite can share storage with earlier runs. */
export function sessionId(): string {
  return `ses_${randomUUID().replaceAll('-', '').toUpperCase()}`;
}

/** The body of a run's `session.ended` event, with nothing used and nothing missing, as a test emits it on a log. */
export const endedBody = (status: 'completed' | 'cancelled' = 'completed'): EventBody => ({
  type: 'session.ended',
  status,
  missingSlots: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: { usd: 0, priced: true },
});

/** Builds a session the way the engine does, raising its events; `step()` cuts what changed into a Step. */
export class FakeDebate {
  readonly session: Session;
  /** Every event raised so far, written or not. */
  readonly raised: DebateEvent[] = [];
  #pending: DebateEvent[] = [];
  #clock: number;
  #seq: number;

  constructor(init: {
    id?: string;
    owner: string;
    question?: string;
    mode?: SessionMode;
    roundsRequested?: number;
    createdAt?: string;
    /** The first seq; above 1 when events were stored before (a recreated session starts over at 1). */
    firstSeq?: number;
  }) {
    const createdAt = init.createdAt ?? new Date(Date.UTC(2025, 0, 15, 9, 30)).toISOString();
    this.#clock = Date.parse(createdAt);
    this.session = {
      id: init.id ?? sessionId(),
      owner: init.owner,
      mode: init.mode ?? 'deep',
      question: init.question ?? 'Should the sessions table be sharded by owner?',
      roundsRequested: init.roundsRequested ?? 3,
      rounds: [],
      status: 'running',
      missingSlots: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      cost: { usd: 0, priced: true },
      createdAt,
      updatedAt: createdAt,
    };
    this.#seq = (init.firstSeq ?? 1) - 1;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  raise(event: Raised): DebateEvent {
    this.#clock += 7;
    const full = { v: 1, sessionId: this.session.id, seq: ++this.#seq, ts: new Date(this.#clock).toISOString(), ...event };
    this.raised.push(full as DebateEvent);
    this.#pending.push(full as DebateEvent);
    this.session.updatedAt = full.ts;
    return full as DebateEvent;
  }

  start(): this {
    const s = this.session;
    this.raise({
      type: 'session.started',
      mode: s.mode,
      question: s.question,
      roundsRequested: s.roundsRequested,
      slots: PROVIDERS.map(([provider, model], i) => ({
        slot: i + 1,
        provider,
        model,
        strength: 'careful reasoning',
        status: 'offline',
        api: 'native',
      })),
    });
    return this;
  }

  startRound(number: number, slots: number[] = [1, 2, 3, 4, 5]): this {
    const kind: RoundKind = number === 1 ? 'independent' : number === this.session.roundsRequested ? 'final' : 'critique';
    this.session.rounds = this.session.rounds.filter((r) => r.number !== number);
    this.session.rounds.push({ number, kind, answers: [], missingSlots: [] });
    this.session.rounds.sort((a, b) => a.number - b.number);
    this.raise({ type: 'round.started', round: number, kind, slots });
    return this;
  }

  round(number: number): Round {
    const round = this.session.rounds.find((r) => r.number === number);
    if (!round) throw new Error(`round ${number} not started`);
    return round;
  }

  /** A streamed answer: `deltas` small `answer.delta` events, then `answer.completed`. */
  answer(
    round: number,
    slot: number,
    text = `Slot ${slot} in round ${round}: shard by owner; keep ids global.`,
    deltas = 4,
  ): Answer {
    const [provider, model] = PROVIDERS[slot - 1]!;
    const size = Math.ceil(text.length / Math.max(deltas, 1));
    for (let i = 0; i < deltas; i++) {
      this.raise({ type: 'answer.delta', round, slot, delta: text.slice(i * size, (i + 1) * size) });
    }
    const inputTokens = 120 + slot * 10 + round;
    const outputTokens = 40 + text.length;
    const answer: Answer = {
      slot,
      provider,
      model,
      offline: slot % 2 === 0,
      round,
      text,
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      latencyMs: 800 + slot * 37.5,
      finishReason: 'stop',
    };
    this.round(round).answers.push(answer);
    this.#addUsage(inputTokens, outputTokens, slot % 2 === 0 ? 0 : outputTokens * 0.000_015 + inputTokens * 0.000_003);
    this.raise({ type: 'answer.completed', answer });
    return answer;
  }

  /** A slot that produced no answer: stored as an answer carrying `error`, and missing from the round. */
  fail(
    round: number,
    slot: number,
    error: AnswerError = { code: 'timeout', message: 'No answer within 120000 ms', retryable: true, attempts: 3 },
  ): Answer {
    const [provider, model] = PROVIDERS[slot - 1]!;
    const answer: Answer = {
      slot,
      provider,
      model,
      offline: false,
      round,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      latencyMs: 120_000,
      finishReason: 'error',
      error,
    };
    const r = this.round(round);
    r.answers.push(answer);
    if (!r.missingSlots.includes(slot)) r.missingSlots.push(slot);
    if (!this.session.missingSlots.includes(slot)) this.session.missingSlots.push(slot);
    this.raise({ type: 'answer.failed', round, slot, provider, model, error });
    return answer;
  }

  endRound(number: number): this {
    const round = this.round(number);
    this.raise({
      type: 'round.ended',
      round: number,
      missingSlots: round.missingSlots,
      quorumMet: round.answers.length - round.missingSlots.length >= 3,
    });
    return this;
  }

  consensus(): Consensus {
    const round = this.session.rounds.at(-1)?.number ?? 1;
    const consensus: Consensus = {
      round,
      agreements: [{ statement: 'Shard by owner once a single node is saturated.', slots: [1, 2, 3] }],
      disagreements: [
        {
          topic: 'When to shard',
          positions: [
            { position: 'Now, before growth', slots: [4] },
            { position: 'Only when measured', slots: [1, 2, 3, 5] },
          ],
        },
      ],
    };
    this.session.consensus = consensus;
    this.raise({ type: 'consensus', consensus });
    return consensus;
  }

  verdict(format: Verdict['format'] = 'structured'): Verdict {
    const synthesizer = {
      slot: 2,
      provider: 'openai',
      model: 'gpt-5',
      reason: 'fallback' as const,
      fallbackFrom: 1,
      participated: true,
    };
    this.raise({ type: 'synthesis.started', synthesizer });
    const common = {
      synthesizer,
      dissent: [{ slots: [4], text: 'Sharding later costs a migration.' }],
      degradation: {
        degraded: this.session.missingSlots.length > 0,
        missingSlots: [...this.session.missingSlots],
        reasons: this.session.missingSlots.map((slot) => ({
          slot,
          round: 1,
          code: 'timeout',
          message: 'No answer within 120000 ms',
        })),
      },
      positionChanges: [
        { slot: 3, changed: true, round: 2, reason: 'Persuaded by the cost of cross-shard queries.' },
        { slot: 4, changed: false, reason: 'Held that growth is certain.' },
      ],
    };
    const verdict: Verdict =
      format === 'structured'
        ? {
            format,
            summary: 'Do not shard yet.',
            answer: 'Keep one database; shard by owner when write load exceeds one node.',
            actions: {
              P0: [
                { title: 'Measure write load', rationale: 'Decide on data.', supportingSlots: [1, 2], supportingRounds: [1, 2] },
              ],
              P1: [],
              P2: [{ title: 'Prototype owner sharding', rationale: 'Be ready.', supportingSlots: [4], supportingRounds: [2] }],
            },
            confidence: 0.72,
            ...common,
          }
        : { format, rawText: 'Keep one database for now {not json', ...common };
    this.session.verdict = verdict;
    this.raise({ type: 'verdict', verdict });
    return verdict;
  }

  end(status: SessionStatus = 'completed', error?: string): this {
    const s = this.session;
    s.status = status;
    s.promptVersion = '2025-01-debate-v3';
    const event = this.raise({
      type: 'session.ended',
      status,
      missingSlots: [...s.missingSlots],
      usage: { ...s.usage },
      cost: { ...s.cost },
      ...(error !== undefined && { error }),
    });
    s.completedAt = event.ts;
    return this;
  }

  /**
   * Grounds the session in a wiki, or reads one more page into its grounding (numbered on), as a grounding run does;
   * the `grounding` event carries the page's text, as the first event to report it does. Returns the page.
   */
  readPage(title: string, text: string): GroundingPage {
    const s = this.session;
    s.grounding ??= {
      source: 'team-wiki',
      status: 'complete',
      pages: [],
      citations: [],
      verifiedCitations: 0,
      unverifiedCitations: 0,
      lookups: [],
      usage: { requests: 0, bytes: 0, ms: 0 },
    };
    const n = s.grounding.pages.length + 1;
    const page: GroundingPage = {
      n,
      title,
      pageId: 100 + n,
      revisionId: 1000 + n,
      url: `http://wiki.invalid/index.php?oldid=${1000 + n}`,
      text,
      sha256: createHash('sha256').update(text).digest('hex'),
      retrievedBy: n === 1 ? 'search' : 'tool',
    };
    s.grounding.pages.push(page);
    s.grounding.usage.requests++;
    this.raise({ type: 'grounding', grounding: structuredClone(s.grounding) });
    return page;
  }

  /** The session as it stands, what changed, and the events raised since the last step. */
  step(changed: Omit<Step, 'session' | 'events'> = {}): Step {
    const events = this.#pending;
    this.#pending = [];
    return { session: structuredClone(this.session), ...changed, events };
  }

  #addUsage(input: number, output: number, usd: number): void {
    const u = this.session.usage;
    u.inputTokens += input;
    u.outputTokens += output;
    u.totalTokens += input + output;
    this.session.cost.usd += usd;
    if (usd === 0) this.session.cost.priced = false;
  }
}

/**
 * A whole deep debate in the steps the recorder would cut: one per answer, round boundary, consensus, verdict and end,
 * the first a run's `first` (which creates the session), every other a `later` one.
 */
export function debateSteps(d: FakeDebate, rounds = 2, deltas = 4): Step[] {
  const later = (changed: Omit<Step, 'session' | 'events' | 'run'> = {}) => d.step({ ...changed, run: 'later' });
  const steps: Step[] = [d.start().step({ run: 'first' })];
  for (let n = 1; n <= rounds; n++) {
    d.startRound(n);
    steps.push(later({ rounds: [n] }));
    for (let slot = 1; slot <= 5; slot++) {
      if (slot === 5 && n === 1) d.fail(n, slot);
      else d.answer(n, slot, undefined, deltas);
      steps.push(later({ rounds: [n] }));
    }
    d.endRound(n);
    steps.push(later({ rounds: [n] }));
  }
  d.consensus();
  steps.push(later({ consensus: true }));
  d.verdict();
  steps.push(later({ verdict: true }));
  d.end(d.session.missingSlots.length > 0 ? 'partial' : 'completed');
  steps.push(later());
  return steps;
}

/** What `promise` rejects with; throws if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/**
 * A deep debate of 3 rounds stored as a stopped server leaves it: round 1 whole, round 2 with slots 1–3
 * answered, then marked `interrupted` by `recoverInterrupted` (which marks every `running` session of
 * `store`). Its answers name the default panel, so a server with the default slots can continue it.
 */
export async function storeInterrupted(store: SessionStore, owner: string): Promise<FakeDebate> {
  const d = new FakeDebate({ owner });
  await store.write(d.start().step());
  d.startRound(1);
  for (const slot of [1, 2, 3, 4, 5] as const) d.answer(1, slot);
  d.endRound(1);
  d.startRound(2);
  for (const slot of [1, 2, 3] as const) d.answer(2, slot);
  // Whole milliseconds, as the contract's clients check when they read the session back.
  for (const round of d.session.rounds) for (const a of round.answers) a.latencyMs = Math.round(a.latencyMs);
  await store.write(d.step({ rounds: [1, 2] }));
  await store.recoverInterrupted(new Date());
  return d;
}

/**
 * `store` with the methods in `overrides` replaced or added (what a store shared by several instances adds, a
 * write that stops): every other member is `store`'s own, so the wrapper never lags behind the interface.
 * Members set on the wrapper land in `overrides`, never on `store`.
 */
export function storeWith<T extends object>(store: SessionStore, overrides: T): SessionStore & T {
  return new Proxy(store, {
    get(target, key) {
      if (key in overrides) return (overrides as Record<PropertyKey, unknown>)[key];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (target, key) => key in overrides || key in target,
    set(_target, key, value) {
      (overrides as Record<PropertyKey, unknown>)[key] = value;
      return true;
    },
  }) as SessionStore & T;
}
