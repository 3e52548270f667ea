/**
 * The contract every SessionStore keeps, as one vitest suite: SQLite and PostgreSQL call
 * `describeStoreContract` with their own `open`. Sessions are built by `FakeDebate`, which raises
 * the events a real deep debate raises and keeps the session valid per the contract's types.
 *
 * `open` must return a store over the same storage on every call (one store serves the suite;
 * another is opened to prove writes persist). The suite never assumes the storage is empty: ids and
 * owners are unique per run. `recoverInterrupted` marks every `running` session in the storage, so
 * nothing else may rely on running sessions in it while the suite runs. The accounts part alone
 * needs storage with no users yet, to see the first user created (and refused once there is one).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Answer,
  AnswerError,
  Consensus,
  DebateEvent,
  Round,
  RoundKind,
  Session,
  SessionMode,
  SessionStatus,
  Verdict,
} from '../../sdk/src/generated/types.gen.js';
import { AccountError, LAST_ADMIN, type TokenRecord, type UserRecord } from '../../server/src/accounts/store.js';
import type { EventBody } from '../../server/src/debate/events.js';
import {
  type ListPage,
  type SessionStore,
  type Step,
  StoreError,
  summaryOf,
  UNSAVED_SEQ_LIMIT,
} from '../../server/src/sessions/store.js';

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

/** A whole deep debate in the steps the recorder would cut: one per answer, round boundary, consensus, verdict and end. */
export function debateSteps(d: FakeDebate, rounds = 2, deltas = 4): Step[] {
  const steps: Step[] = [d.start().step()];
  for (let n = 1; n <= rounds; n++) {
    d.startRound(n);
    steps.push(d.step({ rounds: [n] }));
    for (let slot = 1; slot <= 5; slot++) {
      if (slot === 5 && n === 1) d.fail(n, slot);
      else d.answer(n, slot, undefined, deltas);
      steps.push(d.step({ rounds: [n] }));
    }
    d.endRound(n);
    steps.push(d.step({ rounds: [n] }));
  }
  d.consensus();
  steps.push(d.step({ consensus: true }));
  d.verdict();
  steps.push(d.step({ verdict: true }));
  d.end(d.session.missingSlots.length > 0 ? 'partial' : 'completed');
  steps.push(d.step());
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

async function allPages(store: SessionStore, owner: string, limit: number, q?: string): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let page = await store.list({ owner, limit, ...(q !== undefined && { q }) });
  pages.push(page);
  while (page.next) {
    page = await store.list({ owner, limit, after: page.next, ...(q !== undefined && { q }) });
    pages.push(page);
    if (pages.length > 100) throw new Error('list never ends');
  }
  return pages;
}

export function describeStoreContract(name: string, open: () => Promise<SessionStore>, opts?: { skip?: string }): void {
  const suite = opts?.skip ? describe.skip : describe;
  suite(`SessionStore contract: ${name}${opts?.skip ? ` (skipped: ${opts.skip})` : ''}`, () => {
    let store: SessionStore;
    const run = randomUUID().slice(0, 8);
    const owner = (label: string) => `usr_${label}_${run}`;

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    describe('round trip', () => {
      it('reads back exactly the last step written, after every kind of step', async () => {
        const d = new FakeDebate({ owner: owner('trip') });
        const check = async (step: Step) => {
          await store.write(step);
          expect(await store.get(d.session.id)).toStrictEqual(step.session);
          expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        };

        // Header only: no rounds, no consensus, no optional fields.
        await check(d.start().step());
        // A round with answers, one of them failed (carrying `error`, with and without `status`).
        d.startRound(1);
        d.answer(1, 1);
        d.answer(1, 2, 'Ünïcödé, "double" and \'single\' quotes, \\ backslashes, emoji 🧮 and\nnewlines');
        d.fail(1, 3, { code: 'rate_limited', message: 'Too many requests', status: 429, retryable: true, attempts: 3 });
        d.fail(1, 4);
        await check(d.step({ rounds: [1] }));
        // Rewriting a round whole: fewer answers, another order.
        const [first, second] = d.round(1).answers;
        const fifth = d.answer(1, 5);
        d.round(1).answers = [second!, first!, fifth];
        d.round(1).missingSlots = [];
        await check(d.step({ rounds: [1] }));
        // Two rounds in one step, the later one empty so far.
        d.endRound(1);
        d.startRound(2);
        d.answer(2, 1);
        d.startRound(3);
        await check(d.step({ rounds: [1, 2, 3] }));
        d.answer(3, 2, 'final answer', 0);
        await check(d.step({ rounds: [3] }));
        // Consensus, then verdict, then the final status.
        d.consensus();
        await check(d.step({ consensus: true }));
        d.verdict();
        await check(d.step({ verdict: true }));
        d.end('partial');
        await check(d.step());
      });

      it('writes the consensus and verdict only when a step flags them, and clears a flagged one the session lacks', async () => {
        const d = new FakeDebate({ owner: owner('trip') });
        d.start();
        d.consensus();
        d.verdict();
        await store.write(d.step({ consensus: true, verdict: true }));
        const { consensus, verdict } = d.session;
        // Gone from the session in memory, but no step says so yet: the stored ones stay.
        delete d.session.consensus;
        delete d.session.verdict;
        await store.write(d.step());
        expect(await store.get(d.session.id)).toStrictEqual({ ...d.session, consensus, verdict });
        await store.write(d.step({ consensus: true }));
        expect(await store.get(d.session.id)).toStrictEqual({ ...d.session, verdict });
        await store.write(d.step({ verdict: true }));
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
      });

      it('keeps an unstructured verdict and a session without rounds', async () => {
        const d = new FakeDebate({ owner: owner('trip'), mode: 'synthesis', roundsRequested: 1 });
        d.start();
        d.verdict('unstructured');
        d.end('completed');
        const step = d.step({ verdict: true });
        await store.write(step);
        expect(await store.get(d.session.id)).toStrictEqual(step.session);
      });

      it('knows nothing of a session it never stored', async () => {
        const id = sessionId();
        expect(await store.get(id)).toBeUndefined();
        expect(await store.events(id, 0)).toStrictEqual([]);
        expect(await store.delete(id)).toBe(false);
      });

      it('persists: another store opened on the same storage reads what this one wrote', async () => {
        const d = new FakeDebate({ owner: owner('persist') });
        const steps = debateSteps(d, 2);
        for (const step of steps) await store.write(step);
        const other = await open();
        try {
          expect(await other.get(d.session.id)).toStrictEqual(d.session);
          expect(await other.events(d.session.id, 0)).toStrictEqual(d.raised);
        } finally {
          await other.close();
        }
      });
    });

    describe('threads and links', () => {
      it('stores thread, parent, synthesis source and early stop, and lists a thread oldest first', async () => {
        const who = owner('thread');
        const root = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:00:00.000Z' });
        await store.write(root.start().step());
        expect(await store.thread(root.session.id)).toStrictEqual([]);
        // The first follow-up makes the root a thread: its header gains threadId.
        Object.assign(root.session, { threadId: root.session.id });
        await store.write(root.step());
        const follow = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:05:00.000Z' });
        Object.assign(follow.session, {
          threadId: root.session.id,
          parentId: root.session.id,
          sourceSessionId: root.session.id,
          earlyStop: { afterRound: 2, roundsSaved: 2, callsSaved: 10, tokensSaved: 4321 },
        });
        await store.write(follow.start().step());
        const other = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:01:00.000Z' });
        await store.write(other.start().step());

        expect(await store.get(root.session.id)).toStrictEqual(root.session);
        expect(await store.get(follow.session.id)).toStrictEqual(follow.session);
        expect(await store.get(other.session.id)).toStrictEqual(other.session);
        expect(await store.thread(root.session.id)).toStrictEqual([summaryOf(root.session), summaryOf(follow.session)]);
        expect(summaryOf(follow.session)).toMatchObject({ threadId: root.session.id, parentId: root.session.id });
        const page = await store.list({ owner: who, limit: 10 });
        expect(page.items).toStrictEqual([follow.session, other.session, root.session].map(summaryOf));
      });
    });

    describe('list', () => {
      it('pages newest first, ties on createdAt broken by id, `after` exclusive, `next` only when more', async () => {
        const who = owner('list');
        const tie = new Date(Date.UTC(2025, 2, 1, 12)).toISOString();
        const made: Session[] = [];
        for (let i = 0; i < 7; i++) {
          // Three share a createdAt; their ids are written out of order.
          const createdAt = i >= 2 && i < 5 ? tie : new Date(Date.UTC(2025, 2, 1, 10 + i)).toISOString();
          const d = new FakeDebate({ id: `${sessionId().slice(0, 20)}${'QAZ'[i % 3]}${i}`, owner: who, createdAt });
          d.start();
          if (i % 2 === 0) d.end('completed');
          await store.write(d.step());
          made.push(structuredClone(d.session));
        }
        const expected = [...made]
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
          .map(summaryOf);

        const whole = await store.list({ owner: who, limit: 100 });
        expect(whole).toStrictEqual({ items: expected });

        for (const limit of [1, 2, 3, 7]) {
          const pages = await allPages(store, who, limit);
          expect(pages.flatMap((p) => p.items)).toStrictEqual(expected);
          expect(pages.length).toBe(Math.ceil(7 / limit));
          for (const page of pages.slice(0, -1)) {
            const last = page.items.at(-1)!;
            expect(page.items.length).toBe(limit);
            expect(page.next).toStrictEqual({ createdAt: last.createdAt, id: last.id });
          }
          expect(pages.at(-1)!.next).toBeUndefined();
        }

        // `after` any position, even one no stored session has.
        for (let k = 0; k < expected.length; k++) {
          const at = expected[k]!;
          const page = await store.list({ owner: who, limit: 100, after: { createdAt: at.createdAt, id: at.id } });
          expect(page.items).toStrictEqual(expected.slice(k + 1));
        }
        // expected[2..4] share `tie`; this id sorts just above expected[3]'s.
        const between = { createdAt: tie, id: `${expected[3]!.id}0` };
        const page = await store.list({ owner: who, limit: 100, after: between });
        expect(page.items).toStrictEqual(expected.slice(3));
      });

      it('shows the latest header of a session that was written again', async () => {
        const who = owner('relist');
        const d = new FakeDebate({ owner: who });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1);
        d.end('cancelled', 'cancelled by the owner');
        await store.write(d.step({ rounds: [1] }));
        expect(await store.list({ owner: who, limit: 10 })).toStrictEqual({ items: [summaryOf(d.session)] });
      });

      it('filters by a case-insensitive substring of the question, taking %, _ and \\ literally', async () => {
        const who = owner('q');
        const questions = [
          'Are we 100% sure about WAL?',
          'Is 1000 sure enough?',
          'Rename snake_case columns?',
          'Rename snakeXcase columns?',
          'Escape back\\slash paths?',
          'Escape back/slash paths?',
          'PLAIN question about Sharding',
        ];
        const byQuestion = new Map<string, string>();
        for (const [i, question] of questions.entries()) {
          const d = new FakeDebate({ owner: who, question, createdAt: new Date(Date.UTC(2025, 3, 1, i)).toISOString() });
          await store.write(d.start().step());
          byQuestion.set(question, d.session.id);
        }
        const found = async (q: string, limit = 100) =>
          (await allPages(store, who, limit, q)).flatMap((p) => p.items.map((s) => s.question));

        expect(await found('100%')).toStrictEqual(['Are we 100% sure about WAL?']);
        expect(await found('%')).toStrictEqual(['Are we 100% sure about WAL?']);
        expect(await found('snake_case')).toStrictEqual(['Rename snake_case columns?']);
        expect(await found('_')).toStrictEqual(['Rename snake_case columns?']);
        expect(await found('back\\slash')).toStrictEqual(['Escape back\\slash paths?']);
        expect(await found('\\')).toStrictEqual(['Escape back\\slash paths?']);
        expect(await found('sharding')).toStrictEqual(['PLAIN question about Sharding']);
        expect(await found('plain QUESTION')).toStrictEqual(['PLAIN question about Sharding']);
        expect(await found('rename', 1)).toStrictEqual(['Rename snakeXcase columns?', 'Rename snake_case columns?']);
        expect(await found('no such words')).toStrictEqual([]);
        expect(await store.list({ owner: who, limit: 1, q: 'no such words' })).toStrictEqual({ items: [] });
        expect(await found('?', 3)).toHaveLength(questions.length - 1);
      });

      it('shows an owner only their own sessions', async () => {
        const [alice, bob] = [owner('alice'), owner('bob')];
        const a = new FakeDebate({ owner: alice, question: 'Shared words' });
        const b = new FakeDebate({ owner: bob, question: 'Shared words' });
        await Promise.all([store.write(a.start().step()), store.write(b.start().step())]);
        expect((await store.list({ owner: alice, limit: 10 })).items.map((s) => s.id)).toStrictEqual([a.session.id]);
        expect((await store.list({ owner: bob, limit: 10, q: 'shared' })).items.map((s) => s.id)).toStrictEqual([b.session.id]);
        expect(await store.list({ owner: owner('nobody'), limit: 10 })).toStrictEqual({ items: [] });
        // Without an owner: everyone's (an admin's explicit request).
        const everyone = (await store.list({ limit: 100, q: 'shared words' })).items.map((s) => s.id);
        expect(everyone).toEqual(expect.arrayContaining([a.session.id, b.session.id]));
      });
    });

    describe('delete', () => {
      it('removes the session with its rounds, answers, consensus, verdict and events', async () => {
        const who = owner('delete');
        const d = new FakeDebate({ owner: who });
        for (const step of debateSteps(d, 2)) await store.write(step);
        const keep = new FakeDebate({ owner: who });
        for (const step of debateSteps(keep, 1)) await store.write(step);

        expect(await store.delete(d.session.id)).toBe(true);
        expect(await store.get(d.session.id)).toBeUndefined();
        expect(await store.events(d.session.id, 0)).toStrictEqual([]);
        expect((await store.list({ owner: who, limit: 10 })).items.map((s) => s.id)).toStrictEqual([keep.session.id]);
        expect(await store.delete(d.session.id)).toBe(false);
        expect(await store.get(keep.session.id)).toStrictEqual(keep.session);
        expect(await store.events(keep.session.id, 0)).toStrictEqual(keep.raised);

        // The same id starts clean: its old events (seq from 1) and rounds are gone, not hidden.
        const again = new FakeDebate({ id: d.session.id, owner: who, question: 'Asked again' });
        again.start().startRound(1);
        again.answer(1, 3);
        const step = again.step({ rounds: [1] });
        await store.write(step);
        expect(await store.get(d.session.id)).toStrictEqual(step.session);
        expect(await store.events(d.session.id, 0)).toStrictEqual(again.raised);
      });
    });

    describe('events', () => {
      it('returns the stored events after a seq, in order, thousands of deltas included', async () => {
        const d = new FakeDebate({ owner: owner('events') });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1, 'x'.repeat(3000), 3000);
        await store.write(d.step({ rounds: [1] }));
        d.answer(1, 2, 'short', 2);
        await store.write(d.step({ rounds: [1] }));

        const all = d.raised;
        expect(all.length).toBe(3006);
        expect(await store.events(d.session.id, 0)).toStrictEqual(all);
        for (const after of [1, 2, 1500, 3003, 3005]) {
          expect(await store.events(d.session.id, after)).toStrictEqual(all.filter((e) => e.seq > after));
        }
        expect(await store.events(d.session.id, all.length)).toStrictEqual([]);
      });

      it('keeps every event body byte for byte: quotes, backslashes, line separators, emoji, NUL, a lone surrogate', async () => {
        const d = new FakeDebate({ owner: owner('events-hostile') });
        await store.write(d.start().step());
        d.startRound(1);
        // NUL and lone surrogates reach the engine from a provider's JSON escapes (`\u0000`, `\ud800`).
        const hostile = `'; DROP TABLE events; -- '' "q" \\ \u2028\u2029 \n\t \u0000 \ud800 x\udc00 🧮 ${"'".repeat(50)}`;
        d.answer(1, 1, hostile, 1);
        // One delta per UTF-16 unit from the quote on: the NUL, the lone surrogates, and the emoji's halves apart.
        const units = hostile.slice(30, 49);
        for (let i = 0; i < units.length; i++) d.raise({ type: 'answer.delta', round: 1, slot: 2, delta: units[i]! });
        // With another session in the same write, as a busy store batches them.
        const other = new FakeDebate({ owner: owner('events-hostile') });
        await Promise.all([store.write(d.step({ rounds: [1] })), store.write(other.start().step())]);
        const stored = await store.events(d.session.id, 0);
        expect(stored).toStrictEqual(d.raised);
        expect(stored.map((e) => (e.type === 'answer.delta' ? e.delta : '')).join('')).toBe(hostile + units);
        expect(await store.events(other.session.id, 0)).toStrictEqual(other.raised);
      });
    });

    describe('recoverInterrupted', () => {
      it('marks only running sessions interrupted, keeps their answers, names every incomplete slot and appends session.ended above anything shown', async () => {
        const who = owner('recover');
        const midRound = new FakeDebate({ owner: who });
        await store.write(midRound.start().step());
        midRound.startRound(1);
        midRound.answer(1, 1);
        midRound.fail(1, 2);
        await store.write(midRound.step({ rounds: [1] }));
        // A session whose first step stored no events.
        const silent = new FakeDebate({ owner: who });
        await store.write(silent.step());
        // Stopped while writing its verdict: round 1 ended whole, the synthesizer had not finished.
        const synthesizing = new FakeDebate({ owner: who, roundsRequested: 1 });
        await store.write(synthesizing.start().step());
        synthesizing.startRound(1, [1, 2]);
        synthesizing.answer(1, 1);
        synthesizing.answer(1, 2);
        synthesizing.endRound(1);
        synthesizing.raise({
          type: 'synthesis.started',
          synthesizer: { slot: 1, provider: 'anthropic', model: 'claude-sonnet-4-5', reason: 'default', participated: true },
        });
        await store.write(synthesizing.step({ rounds: [1] }));
        const finished = new FakeDebate({ owner: who });
        for (const step of debateSteps(finished, 1)) await store.write(step);

        const now = new Date(Date.UTC(2025, 5, 1, 8));
        const recovered = (await store.recoverInterrupted(now)).filter((s) => s.owner === who);
        const ts = now.toISOString();
        const incomplete = new Map([
          [midRound, [2, 3, 4, 5]],
          [silent, []],
          [synthesizing, [1]],
        ]);
        const interrupted = (d: FakeDebate): Session => ({
          ...structuredClone(d.session),
          status: 'interrupted',
          missingSlots: incomplete.get(d)! as Session['missingSlots'],
          updatedAt: ts,
          completedAt: ts,
        });
        expect(recovered.sort((a, b) => (a.id < b.id ? -1 : 1))).toStrictEqual(
          [interrupted(midRound), interrupted(silent), interrupted(synthesizing)].sort((a, b) => (a.id < b.id ? -1 : 1)),
        );

        for (const d of [midRound, silent, synthesizing]) {
          expect(await store.get(d.session.id)).toStrictEqual(interrupted(d));
          const events = await store.events(d.session.id, 0);
          expect(events.slice(0, -1)).toStrictEqual(d.raised);
          const ended = events.at(-1)!;
          expect(ended).toMatchObject({
            v: 1,
            type: 'session.ended',
            sessionId: d.session.id,
            seq: d.lastSeq + UNSAVED_SEQ_LIMIT + 1,
            ts,
            status: 'interrupted',
            missingSlots: incomplete.get(d),
            usage: d.session.usage,
            cost: d.session.cost,
          });
          expect(ended.type === 'session.ended' && typeof ended.error === 'string' && ended.error.length > 0).toBe(true);
          // Resuming after any seq a stopped run could have shown ends with it.
          expect(await store.events(d.session.id, d.lastSeq + UNSAVED_SEQ_LIMIT)).toStrictEqual([ended]);
        }
        expect(await store.get(finished.session.id)).toStrictEqual(finished.session);
        expect(await store.events(finished.session.id, 0)).toStrictEqual(finished.raised);

        // Nothing of ours is running any more.
        expect((await store.recoverInterrupted(new Date())).filter((s) => s.owner === who)).toStrictEqual([]);
      });
    });

    describe('atomicity', () => {
      it('writes nothing of a step that fails (events colliding), and stays usable', async () => {
        const d = new FakeDebate({ owner: owner('atomic') });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1);
        await store.write(d.step({ rounds: [1] }));
        const before = structuredClone(d.session);
        const eventsBefore = [...d.raised];

        // A step with new answers, a consensus and a verdict whose events reuse a stored seq.
        d.answer(1, 2);
        d.consensus();
        d.verdict();
        d.end('completed');
        const bad = d.step({ rounds: [1], consensus: true, verdict: true });
        const colliding = { ...bad, events: [{ ...bad.events[0]!, seq: 2 }, ...bad.events.slice(1)] };
        const error = await rejection(store.write(colliding));
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('conflict');
        expect(await store.get(d.session.id)).toStrictEqual(before);
        expect(await store.events(d.session.id, 0)).toStrictEqual(eventsBefore);

        // Two events with one seq inside the step collide too.
        const twice = { ...bad, events: [...bad.events, bad.events.at(-1)!] };
        expect(await rejection(store.write(twice))).toMatchObject({ code: 'conflict' });
        expect(await store.get(d.session.id)).toStrictEqual(before);

        // The same step with its own seqs is written whole.
        await store.write(bad);
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
        expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
      });

      it('fails only the bad step among steps written at the same time', async () => {
        const who = owner('batch');
        const debates = Array.from({ length: 12 }, () => new FakeDebate({ owner: who }));
        const started = debates.map((d) => d.start().step());
        await Promise.all(started.map((step) => store.write(step)));
        const steps = debates.map((d) => {
          d.startRound(1);
          d.answer(1, 1);
          return d.step({ rounds: [1] });
        });
        const badIndex = 5;
        const bad = steps[badIndex]!;
        steps[badIndex] = { ...bad, events: [{ ...bad.events[0]!, seq: 1 }, ...bad.events.slice(1)] };
        const results = await Promise.allSettled(steps.map((s) => store.write(s)));
        expect(results.map((r) => r.status)).toStrictEqual(debates.map((_, i) => (i === badIndex ? 'rejected' : 'fulfilled')));
        for (const [i, d] of debates.entries()) {
          const stored = await store.get(d.session.id);
          if (i === badIndex) expect(stored).toStrictEqual(started[i]!.session);
          else expect(stored).toStrictEqual(d.session);
        }
      });
    });

    describe('concurrency', () => {
      it('lands every step of 50 debates written in parallel (each debate in order, as the recorder writes)', async () => {
        const who = owner('many');
        const debates = Array.from(
          { length: 50 },
          (_, i) => new FakeDebate({ owner: who, createdAt: new Date(Date.UTC(2025, 6, 1, 0, 0, i)).toISOString() }),
        );
        const perDebate = debates.map((d) => debateSteps(d, 3, 6));
        expect(perDebate[0]!.length).toBe(25);
        await Promise.all(
          perDebate.map(async (steps) => {
            for (const step of steps) await store.write(step);
          }),
        );
        for (const d of debates) {
          expect(await store.get(d.session.id)).toStrictEqual(d.session);
          expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        }
        const listed = await store.list({ owner: who, limit: 100 });
        expect(listed.items.map((s) => s.id)).toStrictEqual(debates.map((d) => d.session.id).reverse());
      });
    });

    describe('accounts', () => {
      const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
      const user = (name: string, minute: number, role: UserRecord['role'] = 'user'): UserRecord => ({
        id: `usr_${name}${run}`,
        username: `${name}-${run}`,
        role,
        passwordHash: `scrypt$16384$8$1$c2FsdA$${name}`,
        disabled: false,
        createdAt: at(minute),
        updatedAt: at(minute),
      });
      const token = (owner: UserRecord, name: string, minute: number, extra: Partial<TokenRecord> = {}): TokenRecord => ({
        id: `tok_${name}${run}`,
        userId: owner.id,
        name,
        prefix: 'csk_abcd',
        secretHash: `${name}-${run}`.padEnd(64, '0'),
        createdAt: at(minute),
        ...extra,
      });
      const admin = user('admin', 0, 'admin');

      it('creates the first user once, who adopts the sessions of the pre-accounts owner', async () => {
        const legacy = owner('local');
        const old = new FakeDebate({ owner: legacy });
        await store.write(old.start().step());
        expect(await store.accounts.countUsers()).toBe(0);
        expect(await store.accounts.createFirstUser(admin, legacy)).toBe(true);
        expect(await store.accounts.createFirstUser(user('second', 1, 'admin'), legacy)).toBe(false);
        expect(await store.accounts.countUsers()).toBe(1);
        expect((await store.get(old.session.id))?.owner).toBe(admin.id);
        expect(await store.list({ owner: legacy, limit: 10 })).toStrictEqual({ items: [] });
      });

      it('stores users, finds them by name without case, and refuses a taken name', async () => {
        const ada = user('ada', 2);
        await store.accounts.createUser(ada);
        expect(await store.accounts.getUser(ada.id)).toStrictEqual(ada);
        expect(await store.accounts.getUserByName(ada.username.toUpperCase())).toStrictEqual(ada);
        expect(await store.accounts.getUser('usr_nobody')).toBeUndefined();
        const clash = { ...user('ada', 3), id: `usr_other${run}`, username: ada.username.toUpperCase() };
        const error = await store.accounts.createUser(clash).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AccountError);
        expect((error as AccountError).code).toBe('conflict');
        expect(await store.accounts.getUser(clash.id)).toBeUndefined();
        expect((await store.accounts.listUsers()).map((u) => u.id)).toStrictEqual([admin.id, ada.id]);
      });

      it('updates role, disabled and password hash; deletes a user with their sign-ins and tokens', async () => {
        const bob = user('bob', 4);
        await store.accounts.createUser(bob);
        expect(await store.accounts.updateUser(bob.id, { disabled: true, role: 'admin', updatedAt: at(5) })).toBe(true);
        expect(await store.accounts.getUser(bob.id)).toStrictEqual({ ...bob, disabled: true, role: 'admin', updatedAt: at(5) });
        expect(await store.accounts.updateUser(bob.id, { passwordHash: 'scrypt$x', updatedAt: at(6) })).toBe(true);
        expect(await store.accounts.getUser(bob.id)).toMatchObject({ disabled: true, role: 'admin', passwordHash: 'scrypt$x' });
        expect(await store.accounts.updateUser('usr_nobody', { disabled: true, updatedAt: at(6) })).toBe(false);

        const signIn = {
          id: `sgn_bob${run}`,
          userId: bob.id,
          secretHash: `sb${run}`.padEnd(64, '1'),
          createdAt: at(6),
          lastSeenAt: at(6),
          expiresAt: at(59),
        };
        await store.accounts.createSignIn(signIn);
        await store.accounts.createToken(token(bob, 'bobs', 6));
        expect(await store.accounts.deleteUser(bob.id)).toBe(true);
        expect(await store.accounts.deleteUser(bob.id)).toBe(false);
        expect(await store.accounts.findSignIn(signIn.secretHash)).toBeUndefined();
        expect(await store.accounts.listTokens(bob.id)).toStrictEqual([]);
      });

      it('refuses, in the change itself, to leave no enabled admin: of two admins going at once, one stays', async () => {
        const enabledAdmins = async () =>
          (await store.accounts.listUsers()).filter((u) => u.role === 'admin' && !u.disabled).map((u) => u.id);
        const cy = user('cy', 7, 'admin');
        const dee = user('dee', 7, 'admin');
        await store.accounts.createUser(cy);
        await store.accounts.createUser(dee);
        // With two others, the first admin may step down; then cy and dee are the only enabled admins.
        expect(await store.accounts.updateUser(admin.id, { role: 'user', updatedAt: at(8) })).toBe(true);
        expect((await enabledAdmins()).sort()).toStrictEqual([cy.id, dee.id].sort());

        for (const [demoteCy, removeDee] of [
          [() => store.accounts.updateUser(cy.id, { role: 'user', updatedAt: at(9) }), () => store.accounts.deleteUser(dee.id)],
          [
            () => store.accounts.updateUser(cy.id, { disabled: true, updatedAt: at(9) }),
            () => store.accounts.updateUser(dee.id, { disabled: true, updatedAt: at(9) }),
          ],
        ] as const) {
          const outcomes = await Promise.allSettled([demoteCy(), removeDee()]);
          const refused = outcomes.filter((o) => o.status === 'rejected');
          expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
          expect(refused).toHaveLength(1);
          const error = (refused[0] as PromiseRejectedResult).reason as AccountError;
          expect(error).toBeInstanceOf(AccountError);
          expect([error.code, error.message]).toStrictEqual(['conflict', LAST_ADMIN]);
          expect(await enabledAdmins()).toHaveLength(1);
          // Put the two back for the second pair (re-creating dee if the first pair removed her).
          if (!(await store.accounts.getUser(dee.id))) await store.accounts.createUser(dee);
          await store.accounts.updateUser(cy.id, { role: 'admin', disabled: false, updatedAt: at(10) });
          await store.accounts.updateUser(dee.id, { role: 'admin', disabled: false, updatedAt: at(10) });
          expect(await enabledAdmins()).toHaveLength(2);
        }

        // The last one alone: refused, and nothing of the change stays.
        await store.accounts.updateUser(cy.id, { disabled: true, updatedAt: at(11) });
        const before = await store.accounts.getUser(dee.id);
        for (const change of [
          () => store.accounts.updateUser(dee.id, { role: 'user', passwordHash: 'scrypt$changed', updatedAt: at(12) }),
          () => store.accounts.deleteUser(dee.id),
        ]) {
          expect(await change().catch((e: AccountError) => [e.code, e.message])).toStrictEqual(['conflict', LAST_ADMIN]);
          expect(await store.accounts.getUser(dee.id)).toStrictEqual(before);
        }
        // A change that leaves her an enabled admin is fine; so is any change to a user who is not one.
        expect(await store.accounts.updateUser(dee.id, { passwordHash: 'scrypt$new', updatedAt: at(13) })).toBe(true);
        expect(await store.accounts.deleteUser(cy.id)).toBe(true);
        // Back as the later tests expect: the first admin an admin again.
        expect(await store.accounts.updateUser(admin.id, { role: 'admin', updatedAt: at(14) })).toBe(true);
      });

      it('keeps sign-ins by secret hash, touches them, and ends one or all of a user', async () => {
        const carol = user('carol', 7);
        await store.accounts.createUser(carol);
        const signIn = (n: number) => ({
          id: `sgn_c${n}${run}`,
          userId: carol.id,
          secretHash: `c${n}${run}`.padEnd(64, '2'),
          createdAt: at(7),
          lastSeenAt: at(7),
          expiresAt: at(50),
        });
        const [one, two, three] = [signIn(1), signIn(2), signIn(3)];
        for (const s of [one, two, three]) await store.accounts.createSignIn(s);
        expect(await store.accounts.findSignIn(one.secretHash)).toStrictEqual({ signIn: one, user: carol });
        await store.accounts.touchSignIn(one.id, at(8));
        expect((await store.accounts.findSignIn(one.secretHash))?.signIn.lastSeenAt).toBe(at(8));
        expect(await store.accounts.deleteSignIn(two.id)).toBe(true);
        expect(await store.accounts.deleteSignIn(two.id)).toBe(false);
        expect(await store.accounts.findSignIn(two.secretHash)).toBeUndefined();
        expect(await store.accounts.deleteSignInsOf(carol.id, three.id)).toBe(1);
        expect(await store.accounts.findSignIn(one.secretHash)).toBeUndefined();
        expect(await store.accounts.findSignIn(three.secretHash)).toBeDefined();
        expect(await store.accounts.deleteSignInsOf(carol.id)).toBe(1);
        expect(await store.accounts.findSignIn(three.secretHash)).toBeUndefined();
      });

      it("keeps tokens by secret hash, lists a user's newest first, touches them, and deletes only the owner's", async () => {
        const dave = user('dave', 9);
        const erin = user('erin', 9);
        await store.accounts.createUser(dave);
        await store.accounts.createUser(erin);
        // One created with an expiry and a last use (an imported token), one with neither.
        const older = token(dave, 'older', 10, { expiresAt: at(40), lastUsedAt: at(10) });
        const newer = token(dave, 'newer', 11);
        await store.accounts.createToken(older);
        await store.accounts.createToken(newer);
        expect(await store.accounts.listTokens(dave.id)).toStrictEqual([newer, older]);
        expect(await store.accounts.findToken(older.secretHash)).toStrictEqual({ token: older, user: dave });
        await store.accounts.touchToken(newer.id, at(12));
        expect(await store.accounts.findToken(newer.secretHash)).toStrictEqual({
          token: { ...newer, lastUsedAt: at(12) },
          user: dave,
        });
        expect(await store.accounts.deleteToken(older.id, erin.id)).toBe(false);
        expect(await store.accounts.deleteToken(older.id, dave.id)).toBe(true);
        expect(await store.accounts.findToken(older.secretHash)).toBeUndefined();
        expect(await store.accounts.listTokens(erin.id)).toStrictEqual([]);
      });
    });
  });
}
