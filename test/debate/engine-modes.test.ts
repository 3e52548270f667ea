/**
 * The engine's other modes and its accounting, over the providers' real adapters (msw): one model,
 * all of them at once, a verdict from given answers, the session budget in tokens and dollars,
 * cancellation, and what the verdict keeps of the model's provenance.
 */
import { HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { type CallFailure, DebateEngine, type EngineSettings } from '../../server/src/debate/engine.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import {
  answer,
  type Call,
  FaultNet,
  finalJson,
  INVALID_VERDICT,
  INVALID_VERDICT_AGAIN,
  invalidText,
  LIVE_ENV,
  PANEL,
  prose,
  type Responder,
  type Stage,
  verdictJson,
} from './fault-providers.js';
import { stallUntilAborted } from './wire.js';

const net = new FaultNet();
globalThis.AI_SDK_LOG_WARNINGS = false;
const msw = setupServer(...net.handlers());
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

const SLOTS = [1, 2, 3, 4, 5] as const;

/** The live panel on the loopback providers: quorum 3, no retries, no prices, unless `settings` say otherwise. */
function engine(settings: Partial<EngineSettings> = {}) {
  return new DebateEngine({
    panel: slotsFromEnv(LIVE_ENV).map((config) => ({ config, model: createSlotModel(config, LIVE_ENV) })),
    quorum: 3,
    callTimeoutMs: 30_000,
    maxRetries: 0,
    prices: {},
    owner: 'test',
    ...settings,
  });
}

const serverError: Responder = (_c, _r, p) => HttpResponse.json(p.errorBody(500, 'boom') as object, { status: 500 });
const failing =
  (slots: readonly number[], stage: Stage): Responder =>
  (call, request, p) =>
    slots.includes(call.slot) && call.stage === stage ? serverError(call, request, p) : undefined;

/** Records the events of a run. */
function recorder() {
  const events: DebateEvent[] = [];
  return { events, onLog: (log: { subscribe(l: (e: DebateEvent) => void): unknown }) => log.subscribe((e) => events.push(e)) };
}
const ended = (events: DebateEvent[]) => events.filter((e) => e.type === 'session.ended');

function promptOf(call: Call): string {
  const body = JSON.parse(call.body) as {
    messages?: { role: string; content: string | { text: string }[] }[];
    contents?: { role: string; parts: { text: string }[] }[];
  };
  const user = body.messages?.find((m) => m.role === 'user');
  if (user) return typeof user.content === 'string' ? user.content : user.content.map((p) => p.text).join('');
  return body
    .contents!.find((c) => c.role === 'user')!
    .parts.map((p) => p.text)
    .join('');
}

describe('single and parallel', () => {
  it('ask: one round, one answer, only that provider asked; a failure fails the session', async () => {
    const e = engine();
    const c = net.open();
    const s = await e.ask(e.slotByProvider('google')!, c.question);
    expect(s).toMatchObject({ mode: 'single', status: 'completed', roundsRequested: 1, missingSlots: [] });
    expect(s.rounds.map((r) => [r.number, r.kind, r.answers.map((a) => [a.slot, a.text])])).toEqual([
      [1, 'independent', [[4, prose(4, 1)]]],
    ]);
    expect(c.calls.map((x) => x.slot)).toEqual([4]);
    expect(s.completedAt).toBe(s.updatedAt);
    expect(e.slotByProvider('nobody')).toBeUndefined();

    const bad = net.open(failing([4], 'round1'));
    const f = await e.ask(e.slotByProvider('google')!, bad.question);
    expect(f).toMatchObject({ status: 'failed', missingSlots: [4] });
  });

  it('parallel: every slot, or only those named; completed, partial or failed by how many answered', async () => {
    const e = engine();
    const all = net.open();
    const s = await e.parallel(all.question, undefined);
    expect(s).toMatchObject({ mode: 'parallel', status: 'completed', roundsRequested: 1 });
    expect(s.rounds[0]!.answers.map((a) => a.slot)).toEqual([...SLOTS]);
    expect(s.verdict).toBeUndefined();
    expect(all.calls.filter((x) => x.stage !== 'round1')).toEqual([]);

    const some = net.open();
    const named = await e.parallel(some.question, [4, 2]);
    expect(named.rounds[0]!.answers.map((a) => a.slot)).toEqual([2, 4]);
    expect(some.calls.map((x) => x.slot).sort()).toEqual([2, 4]);

    const partial = await e.parallel(net.open(failing([3], 'round1')).question, undefined);
    expect(partial).toMatchObject({ status: 'partial', missingSlots: [3] });
    const none = await e.parallel(net.open(failing([...SLOTS], 'round1')).question, undefined);
    expect(none).toMatchObject({ status: 'failed', missingSlots: [...SLOTS] });
  });

  it('exposes the panel as public slot descriptions', () => {
    expect(engine().slots.map((s) => [s.slot, s.provider])).toEqual(PANEL.map((p, i) => [i + 1, p.slot.provider]));
  });
});

describe('budget', () => {
  // Every healthy answer reports 20 input and 10 output tokens.
  it('a token budget reached exactly at the end of round 1 stops there: partial, no verdict, named', async () => {
    const e = engine();
    const r = recorder();
    const c = net.open();
    const s = await e.deep(c.question, { rounds: 3, budget: { maxTokens: 150 }, onLog: r.onLog });
    expect(s.status).toBe('partial');
    expect(s.rounds).toHaveLength(1);
    expect(s.usage.totalTokens).toBe(150);
    expect(s.verdict).toBeUndefined();
    expect(s.consensus).toBeUndefined();
    expect(c.calls.every((x) => x.stage === 'round1')).toBe(true);
    expect(ended(r.events)).toMatchObject([{ status: 'partial', error: 'budget_exceeded: 150 tokens used, the budget is 150' }]);
  });

  it('a token budget one token higher lets round 2 start', async () => {
    const c = net.open();
    const s = await engine().deep(c.question, { rounds: 3, budget: { maxTokens: 151 } });
    expect(s.status).toBe('partial');
    expect(s.rounds.length).toBe(2);
    expect(s.verdict).toBeUndefined();
  });

  it('a dollar budget, priced per model: stops when the cost reaches it; the cost is summed', async () => {
    // $0.1 per input token: each answer costs $2, a round of five $10.
    const prices = Object.fromEntries(
      PANEL.map((p) => [`${p.slot.provider}/${p.slot.model}`, { inputPerMTok: 100_000, outputPerMTok: 0 }]),
    );
    const r = recorder();
    const s = await engine({ prices }).deep(net.open().question, { rounds: 3, budget: { maxCostUsd: 10 }, onLog: r.onLog });
    expect(s.status).toBe('partial');
    expect(s.rounds).toHaveLength(1);
    expect(s.cost).toEqual({ usd: 10, priced: true });
    expect(ended(r.events)[0]).toMatchObject({ error: 'budget_exceeded: $10.0000 spent, the budget is $10' });

    // Each answer carries its own call's cost, on the stored session and on its `answer.completed` event.
    expect(s.rounds[0]!.answers.map((a) => a.cost)).toEqual(Array(5).fill({ usd: 2, priced: true }));
    const completed = r.events.filter((e) => e.type === 'answer.completed');
    expect(completed.map((e) => (e.type === 'answer.completed' ? e.answer.cost : undefined))).toEqual(
      Array(5).fill({ usd: 2, priced: true }),
    );

    const unpriced = await engine().parallel(net.open().question, [1]);
    expect(unpriced.cost).toEqual({ usd: 0, priced: false });
    expect(unpriced.rounds[0]!.answers[0]!.cost).toEqual({ usd: 0, priced: false });
  });

  it('no budget: the whole debate runs', async () => {
    const s = await engine().deep(net.open().question, { rounds: 2, budget: {} });
    expect(s.status).toBe('completed');
  });
});

describe('cancellation', () => {
  it('a run whose caller goes away mid-round ends cancelled, with no later round', async () => {
    const stop = new AbortController();
    const r = recorder();
    const c = net.open((call, request) => {
      if (call.slot !== 5) return undefined;
      // Slot 5 holds its answer; once it is asked, the caller leaves.
      setImmediate(() => stop.abort());
      return stallUntilAborted(request, call.observed);
    });
    const s = await engine().deep(c.question, { rounds: 3, signal: stop.signal, onLog: r.onLog });
    expect(s.status).toBe('cancelled');
    expect(c.calls.every((x) => x.stage === 'round1')).toBe(true);
    expect(ended(r.events)).toMatchObject([{ status: 'cancelled' }]);
    expect(ended(r.events)[0]).not.toHaveProperty('error');
  });
});

describe('a verdict from given answers (synthesis)', () => {
  const given = [
    { slot: 2 as const, text: 'Two says ship it.' },
    { slot: 3 as const, round: 2, text: 'Three says wait.' },
    { slot: 1 as const, text: 'One says measure.' },
  ];

  it('slot 1 writes it from the answers, grouped by round in round order', async () => {
    const c = net.open();
    const s = await engine().synthesizeAnswers(c.question, given);
    expect(s).toMatchObject({ mode: 'synthesis', status: 'completed', roundsRequested: 1, rounds: [] });
    expect(c.calls.map((x) => [x.slot, x.stage])).toEqual([[1, 'synthesis']]);
    const prompt = promptOf(c.calls[0]!);
    expect(prompt).toContain(
      '## Round 1\n\nSlot 2 (openai) said:\n```text\nTwo says ship it.\n```\n\nSlot 1 (anthropic) said:\n```text\nOne says measure.\n```\n\n## Round 2\n\nSlot 3 (deepseek) said:\n```text\nThree says wait.\n```',
    );
    expect(prompt).toContain('There is no consensus report');
    expect(s.verdict).toMatchObject({
      format: 'structured',
      synthesizer: { slot: 1, reason: 'default', participated: true },
      degradation: { degraded: false, missingSlots: [], reasons: [] },
      positionChanges: [],
    });
    expect(s.verdict?.synthesizer).not.toHaveProperty('fallbackFrom');
  });

  it('slot 1 failing: the next slot writes it, whatever it did before; the synthesizer may not have taken part', async () => {
    const c = net.open(failing([1], 'synthesis'));
    const s = await engine().synthesizeAnswers(c.question, [{ slot: 4, text: 'Only four spoke.' }]);
    expect(c.calls.map((x) => x.slot)).toEqual([1, 2]);
    expect(s.status).toBe('partial');
    expect(s.verdict?.synthesizer).toEqual({
      slot: 2,
      provider: 'openai',
      model: PANEL[1]!.slot.model,
      reason: 'fallback',
      participated: false,
      fallbackFrom: 1,
    });
    expect(s.verdict?.degradation).toMatchObject({ degraded: true, missingSlots: [1] });
  });

  it('nobody can write it: failed; an unusable verdict twice over: partial with the raw text', async () => {
    const none = await engine().synthesizeAnswers(net.open(failing([...SLOTS], 'synthesis')).question, given);
    expect(none.status).toBe('failed');
    expect(none.verdict).toBeUndefined();

    const c = net.open((call, request, p) =>
      call.stage === 'synthesis' || call.stage === 'repair' ? answer(p, request, call, INVALID_VERDICT) : undefined,
    );
    const raw = await engine().synthesizeAnswers(c.question, given);
    expect(raw.status).toBe('partial');
    expect(raw.verdict).toMatchObject({ format: 'unstructured', rawText: INVALID_VERDICT, degradation: { degraded: true } });
    // One try and one repair, by slot 1 only: invalid output is not a reason to ask another slot.
    expect(c.calls.map((x) => [x.slot, x.stage])).toEqual([
      [1, 'synthesis'],
      [1, 'repair'],
    ]);
  });

  it('keeps only provenance that exists: slots that answered, rounds that happened, sorted and once', async () => {
    const draft = {
      ...JSON.parse(verdictJson(1)),
      actions: {
        P0: [{ title: 'Ship', rationale: 'Low risk.', supportingSlots: [3, 2, 2, 5], supportingRounds: [2, 1, 1, 4] }],
        P1: [{ title: 'Measure', rationale: 'Know.', supportingSlots: [1], supportingRounds: [1] }],
        P2: [],
      },
      dissent: [
        { slots: [5], text: 'Nobody who spoke.' },
        { slots: [4, 3], text: 'Three, and four who did not speak.' },
      ],
    };
    const c = net.open((call, request, p) =>
      call.stage === 'synthesis' ? answer(p, request, call, JSON.stringify(draft)) : undefined,
    );
    const s = await engine().synthesizeAnswers(c.question, given);
    expect(s.verdict?.actions?.P0).toEqual([
      { title: 'Ship', rationale: 'Low risk.', supportingSlots: [2, 3], supportingRounds: [1, 2] },
    ]);
    expect(s.verdict?.actions?.P1).toEqual([
      { title: 'Measure', rationale: 'Know.', supportingSlots: [1], supportingRounds: [1] },
    ]);
    expect(s.verdict?.dissent).toEqual([{ slots: [3], text: 'Three, and four who did not speak.' }]);
    expect(s.verdict).toMatchObject({ summary: draft.summary, answer: draft.answer, confidence: draft.confidence });
  });
});

describe("the verdict's position changes", () => {
  it("each slot's final change reason on one line, cut at 300 characters; a slot without a final position says so", async () => {
    const long = `Changed\nbecause   of\tslot 3. ${'x'.repeat(400)}`;
    const c = net.open((call, request, p) => {
      if (call.stage !== 'final') return undefined;
      if (call.slot === 5) return serverError(call, request, p);
      if (call.slot !== 2) return undefined;
      return answer(p, request, call, JSON.stringify({ ...JSON.parse(finalJson(2)), changeReason: long }));
    });
    const s = await engine().deep(c.question, { rounds: 2 });
    const changes = s.verdict!.positionChanges;
    expect(changes.map((x) => x.slot)).toEqual([...SLOTS]);
    const two = changes.find((x) => x.slot === 2)!;
    expect(two).toMatchObject({ changed: true, round: 2 });
    expect(two.reason).toHaveLength(300);
    expect(two.reason).toBe(`${`Changed because of slot 3. ${'x'.repeat(400)}`.slice(0, 299)}…`);
    expect(changes.find((x) => x.slot === 1)).toEqual({
      slot: 1,
      changed: false,
      round: 2,
      reason: 'No critique changed the trade-off.',
    });
    expect(changes.find((x) => x.slot === 5)).toEqual({
      slot: 5,
      changed: false,
      reason: 'No final position: the model did not complete the final round.',
    });
  });

  it('a reason of exactly 300 characters is kept whole', async () => {
    const exact = 'y'.repeat(300);
    const c = net.open((call, request, p) =>
      call.stage === 'final' && call.slot === 3
        ? answer(p, request, call, JSON.stringify({ ...JSON.parse(finalJson(3)), changeReason: ` ${exact} ` }))
        : undefined,
    );
    const s: Session = await engine().deep(c.question, { rounds: 2 });
    expect(s.verdict!.positionChanges.find((x) => x.slot === 3)?.reason).toBe(exact);
  });
});

describe('what each call is given, and what the run reports as it goes', () => {
  it('ask passes maxOutputTokens to the provider; latency is whole ms; deltas add up to the answer; events name the run', async () => {
    const e = engine();
    const r = recorder();
    const c = net.open();
    let running: Session | undefined;
    const s = await e.ask(e.slotByProvider('anthropic')!, c.question, {
      maxOutputTokens: 123,
      onLog: (log, snapshot) => {
        r.onLog(log);
        log.subscribe((ev) => {
          if (ev.type === 'answer.completed') running = snapshot();
        });
      },
    });
    expect((JSON.parse(c.calls[0]!.body) as { max_tokens: number }).max_tokens).toBe(123);
    const a = s.rounds[0]!.answers[0]!;
    expect(Number.isInteger(a.latencyMs)).toBe(true);
    const deltas = r.events.flatMap((ev) => (ev.type === 'answer.delta' ? [ev.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(a.text);
    expect(r.events.find((ev) => ev.type === 'session.started')).toMatchObject({
      mode: 'single',
      question: c.question,
      roundsRequested: 1,
      slots: [{ slot: 1, provider: 'anthropic' }],
    });
    expect(r.events.find((ev) => ev.type === 'round.started')).toMatchObject({ round: 1, kind: 'independent', slots: [1] });
    // A snapshot taken while running has the answer so far and no completion time.
    expect(running).toMatchObject({ status: 'running', rounds: [{ answers: [{ slot: 1, text: a.text }], missingSlots: [] }] });
    expect(running?.completedAt).toBeUndefined();
  });

  it('retries wait through the injected sleep, in rounds and for the verdict', async () => {
    const waits: number[] = [];
    const e = engine({
      maxRetries: 1,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const seen = new Set<string>();
    // The first request of slot 2 in round 1 and of slot 1's verdict fail; the retries succeed.
    const c = net.open((call, request, p) => {
      const key = `${call.slot}/${call.stage}`;
      if ((key === '2/round1' || key === '1/synthesis') && !seen.has(key)) {
        seen.add(key);
        return serverError(call, request, p);
      }
      return undefined;
    });
    const s = await e.deep(c.question, { rounds: 2 });
    expect(s.status).toBe('completed');
    expect(waits).toHaveLength(2);
    expect(c.callsOf(2, 'round1')).toHaveLength(2);
    expect(c.callsOf(1, 'synthesis')).toHaveLength(2);
  });

  it('a call past its deadline fails as a timeout', async () => {
    const e = engine({ callTimeoutMs: 400 });
    const c = net.open((call, request) => (call.slot === 3 ? stallUntilAborted(request, call.observed) : undefined));
    const s = await e.parallel(c.question, [1, 3]);
    expect(s.rounds[0]!.answers.find((a) => a.slot === 3)?.error?.code).toBe('timeout');
    expect(s.status).toBe('partial');
  });

  it('a budget reached mid-round cuts off the calls still running, naming them budget_exceeded', async () => {
    const r = recorder();
    // Slot 5 holds its answer; the other four spend 120 tokens, the budget.
    const c = net.open((call, request) => (call.slot === 5 ? stallUntilAborted(request, call.observed) : undefined));
    const s = await engine().deep(c.question, { rounds: 3, budget: { maxTokens: 120 }, onLog: r.onLog });
    expect(s.status).toBe('partial');
    expect(s.missingSlots).toEqual([5]);
    expect(s.rounds[0]!.answers[4]!.error).toMatchObject({
      code: 'budget_exceeded',
      message: 'budget_exceeded: 120 tokens used, the budget is 120',
    });
    expect(c.callsOf(5, 'round1')[0]!.observed.aborted).toBe(true);
    expect(ended(r.events)[0]).toMatchObject({ status: 'partial', error: 'budget_exceeded: 120 tokens used, the budget is 120' });
  });

  it("an invalid verdict whose repair fails outright keeps the first reply's raw text, unstructured", async () => {
    const c = net.open((call, request, p) => {
      if (call.stage === 'synthesis') return answer(p, request, call, INVALID_VERDICT);
      if (call.stage === 'repair') return serverError(call, request, p);
      return undefined;
    });
    const s = await engine().deep(c.question, { rounds: 2 });
    expect(s.verdict).toMatchObject({
      format: 'unstructured',
      rawText: INVALID_VERDICT,
      synthesizer: { slot: 1 },
      degradation: { degraded: true, missingSlots: [1], reasons: [{ slot: 1, round: 0, code: 'invalid_output' }] },
    });
    expect(c.calls.filter((x) => x.stage === 'synthesis').map((x) => x.slot)).toEqual([1]);
    expect(s.status).toBe('partial');
  });

  it('a debate stopped by the quorum keeps that reason even when no verdict can be written', async () => {
    const r = recorder();
    const c = net.open((call, request, p) =>
      (call.stage === 'middle' && call.slot >= 3) || call.stage === 'synthesis' ? serverError(call, request, p) : undefined,
    );
    const s = await engine().deep(c.question, { rounds: 3, onLog: r.onLog });
    expect(s.status).toBe('partial');
    expect(s.verdict).toBeUndefined();
    expect(ended(r.events)[0]).toMatchObject({ error: 'quorum_not_met: round 2 had 2 answers, the quorum is 3' });
  });
});

describe('session fields and events', () => {
  it("times come from the engine's clock; the owner is the run's or the engine's", async () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    const e = engine({ owner: 'engine-owner', now: () => at });
    const r = recorder();
    const s = await e.parallel(net.open().question, [1], { onLog: r.onLog });
    const iso = new Date(at).toISOString();
    expect([s.createdAt, s.updatedAt, s.completedAt]).toEqual([iso, iso, iso]);
    expect(new Set(r.events.map((ev) => ev.ts))).toEqual(new Set([iso]));
    expect(s.owner).toBe('engine-owner');
    expect((await e.parallel(net.open().question, [1], { owner: 'alice' })).owner).toBe('alice');
  });

  it('a session without a verdict or consensus has no such fields; a completed end names no error', async () => {
    const r = recorder();
    const s = await engine().parallel(net.open().question, undefined, { onLog: r.onLog });
    expect(s.status).toBe('completed');
    expect(s).not.toHaveProperty('verdict');
    expect(s).not.toHaveProperty('consensus');
    expect(ended(r.events)[0]).not.toHaveProperty('error');
    expect(
      r.events
        .filter((ev) => ev.type === 'answer.completed')
        .map((ev) => ev.answer.slot)
        .sort(),
    ).toEqual([...SLOTS]);
  });

  it('a failed answer is an answer.failed event naming the slot, its provider and model, and the error', async () => {
    const r = recorder();
    const s = await engine().parallel(net.open(failing([3], 'round1')).question, [2, 3], { onLog: r.onLog });
    const failedEvents = r.events.filter((ev) => ev.type === 'answer.failed');
    expect(failedEvents).toEqual([
      expect.objectContaining({
        round: 1,
        slot: 3,
        provider: 'deepseek',
        model: PANEL[2]!.slot.model,
        error: s.rounds[0]!.answers[1]!.error,
      }),
    ]);
    expect(r.events.filter((ev) => ev.type === 'answer.completed').map((ev) => ev.answer.slot)).toEqual([2]);
  });

  it("each call carries the slot's system prompt: who it is on the panel and its strength", async () => {
    const c = net.open();
    await engine().parallel(c.question, [1, 2]);
    const one = JSON.parse(c.callsOf(1, 'round1')[0]!.body) as { system: { text: string }[] };
    expect(one.system[0]!.text).toContain('You are slot 1 (anthropic) on a panel of 5 models debating one question.');
    expect(one.system[0]!.text).toContain(`Your strength on this panel: ${PANEL[0]!.slot.strength}.`);
    const two = JSON.parse(c.callsOf(2, 'round1')[0]!.body) as { messages: { role: string; content: string }[] };
    expect(two.messages.find((m) => m.role === 'system')?.content).toContain('You are slot 2 (openai) on a panel of 5');
  });

  it('a structured verdict by slot 1 is still degraded when a slot went missing', async () => {
    const s = await engine().deep(net.open(failing([3], 'round1')).question, { rounds: 2 });
    expect(s.verdict).toMatchObject({
      format: 'structured',
      synthesizer: { slot: 1, reason: 'default' },
      degradation: { degraded: true, missingSlots: [3] },
    });
  });

  it('a slot that never answered is dropped from the provenance of a deep verdict', async () => {
    const draft = {
      ...JSON.parse(verdictJson(1)),
      actions: {
        P0: [{ title: 'Ship', rationale: 'Low risk.', supportingSlots: [1, 4], supportingRounds: [1, 2] }],
        P1: [],
        P2: [],
      },
    };
    const c = net.open((call, request, p) => {
      if (call.slot === 4 && call.stage !== 'synthesis') return serverError(call, request, p);
      return call.stage === 'synthesis' ? answer(p, request, call, JSON.stringify(draft)) : undefined;
    });
    const s = await engine().deep(c.question, { rounds: 2 });
    expect(s.verdict?.actions?.P0[0]?.supportingSlots).toEqual([1]);
  });
});

describe('cancellation in other places', () => {
  it('a parallel run whose caller goes away ends cancelled', async () => {
    const stop = new AbortController();
    const c = net.open((call, request) => {
      if (call.slot !== 2) return undefined;
      setImmediate(() => stop.abort());
      return stallUntilAborted(request, call.observed);
    });
    const s = await engine().parallel(c.question, undefined, { signal: stop.signal });
    expect(s.status).toBe('cancelled');
  });

  it('a caller going away while slot 1 writes the verdict: cancelled, no other slot asked, no error named', async () => {
    const stop = new AbortController();
    const r = recorder();
    const c = net.open((call, request) => {
      if (call.stage !== 'synthesis') return undefined;
      setImmediate(() => stop.abort());
      return stallUntilAborted(request, call.observed);
    });
    const s = await engine().deep(c.question, { rounds: 2, signal: stop.signal, onLog: r.onLog });
    expect(s.status).toBe('cancelled');
    expect(c.calls.filter((x) => x.stage === 'synthesis').map((x) => x.slot)).toEqual([1]);
    expect(r.events.filter((ev) => ev.type === 'synthesis.started')).toHaveLength(1);
    expect(ended(r.events)[0]).not.toHaveProperty('error');
  });
});

describe('the budget and the last rounds', () => {
  // A 2-round debate spends 150 tokens a round; each verdict call (try or repair) spends 30.
  it('a budget reached by the final round itself: partial, no consensus and no verdict', async () => {
    const r = recorder();
    const c = net.open();
    const s = await engine().deep(c.question, { rounds: 2, budget: { maxTokens: 300 }, onLog: r.onLog });
    expect(s.rounds.map((x) => [x.number, x.missingSlots])).toEqual([
      [1, []],
      [2, []],
    ]);
    expect(s.status).toBe('partial');
    // Every final position arrived, but a debate stopped by its budget reports no consensus.
    expect(s.consensus).toBeUndefined();
    expect(r.events.filter((ev) => ev.type === 'consensus')).toEqual([]);
    expect(s.verdict).toBeUndefined();
    expect(c.calls.filter((x) => x.stage === 'synthesis')).toEqual([]);
    expect(ended(r.events)).toMatchObject([{ status: 'partial', error: 'budget_exceeded: 300 tokens used, the budget is 300' }]);
  });

  it('a verdict call that fails for its own reason as the budget runs out keeps that reason', async () => {
    // The verdict is invalid twice over; the repair's 30 tokens reach the budget.
    const r = recorder();
    const c = net.open((call, request, p) =>
      call.stage === 'synthesis' || call.stage === 'repair' ? answer(p, request, call, invalidText(call.stage)) : undefined,
    );
    const s = await engine().deep(c.question, { rounds: 2, budget: { maxTokens: 360 }, onLog: r.onLog });
    expect(s.usage.totalTokens).toBe(360);
    expect(s.verdict).toMatchObject({
      format: 'unstructured',
      rawText: INVALID_VERDICT_AGAIN,
      degradation: { degraded: true, missingSlots: [1], reasons: [{ slot: 1, round: 0, code: 'invalid_output' }] },
    });
    expect(c.calls.filter((x) => x.stage === 'synthesis').map((x) => x.slot)).toEqual([1]);
    expect(s.status).toBe('partial');
    expect(ended(r.events)).toMatchObject([{ status: 'partial', error: 'budget_exceeded: 360 tokens used, the budget is 360' }]);
  });
});

describe("the verdict's repair", () => {
  it('an invalid verdict repaired: the repair is the verdict, and the session is complete', async () => {
    const repaired = JSON.stringify({ ...JSON.parse(verdictJson(1)), summary: 'The repaired verdict.' });
    const c = net.open((call, request, p) => {
      if (call.stage === 'synthesis') return answer(p, request, call, INVALID_VERDICT);
      if (call.stage === 'repair') return answer(p, request, call, repaired);
      return undefined;
    });
    const s = await engine().deep(c.question, { rounds: 2 });
    expect(s.verdict).toMatchObject({ format: 'structured', summary: 'The repaired verdict.', degradation: { degraded: false } });
    expect(s.status).toBe('completed');
  });

  it("a repair that is invalid again: the raw text kept is the repair's, and an unstructured verdict has no dissent", async () => {
    const c = net.open((call, request, p) =>
      call.stage === 'synthesis' || call.stage === 'repair' ? answer(p, request, call, invalidText(call.stage)) : undefined,
    );
    const s = await engine().deep(c.question, { rounds: 2 });
    expect(s.verdict).toMatchObject({ format: 'unstructured', rawText: INVALID_VERDICT_AGAIN });
    expect(s.verdict?.dissent).toEqual([]);
    expect(s.status).toBe('partial');
  });
});

describe('what a deep debate reports as it goes', () => {
  it('the consensus and verdict events carry what the session keeps; a new round is empty until answers finish; no empty delta', async () => {
    const r = recorder();
    const snapshots: Session[] = [];
    const s = await engine().deep(net.open().question, {
      rounds: 3,
      onLog: (log, snapshot) => {
        r.onLog(log);
        log.subscribe((ev) => {
          // The first delta of each round (copied: the session object goes on changing): the round has started and nothing in it has finished.
          if (ev.type === 'answer.delta' && snapshots.length < ev.round) snapshots.push(structuredClone(snapshot()));
        });
      },
    });
    expect(s.status).toBe('completed');
    const one = <T extends DebateEvent['type']>(type: T) => {
      const found = r.events.filter((ev): ev is Extract<DebateEvent, { type: T }> => ev.type === type);
      expect(found, type).toHaveLength(1);
      return found[0]!;
    };
    expect(one('consensus').consensus).toEqual(s.consensus);
    expect(one('verdict').verdict).toEqual(s.verdict);
    expect(snapshots.map((x) => x.rounds.at(-1))).toEqual([
      { number: 1, kind: 'independent', answers: [], missingSlots: [] },
      { number: 2, kind: 'critique', answers: [], missingSlots: [] },
      { number: 3, kind: 'final', answers: [], missingSlots: [] },
    ]);
    // The final round streams only the position out of its JSON: the deltas are the position, none empty.
    const deltas = r.events.filter((ev) => ev.type === 'answer.delta');
    expect(deltas.filter((ev) => ev.delta === '')).toEqual([]);
    for (const a of s.rounds[2]!.answers) {
      expect(
        deltas
          .filter((ev) => ev.round === 3 && ev.slot === a.slot)
          .map((ev) => ev.delta)
          .join(''),
      ).toBe(a.text);
    }
  });
});

describe('a verdict from given answers, more cases', () => {
  it('rounds are quoted in round order even when the first answer given is from a later round', async () => {
    const c = net.open();
    await engine().synthesizeAnswers(c.question, [
      { slot: 3, round: 2, text: 'Three, later.' },
      { slot: 1, round: 1, text: 'One, first.' },
    ]);
    const prompt = promptOf(c.calls[0]!);
    expect(prompt).toContain(
      '## Round 1\n\nSlot 1 (anthropic) said:\n```text\nOne, first.\n```\n\n## Round 2\n\nSlot 3 (deepseek) said:\n```text\nThree, later.\n```',
    );
  });

  it('a caller going away while the verdict is written: cancelled, nobody else asked, no error named', async () => {
    const stop = new AbortController();
    const r = recorder();
    const c = net.open((call, request) => {
      setImmediate(() => stop.abort());
      return stallUntilAborted(request, call.observed);
    });
    const s = await engine().synthesizeAnswers(c.question, [{ slot: 2, text: 'Two.' }], { signal: stop.signal, onLog: r.onLog });
    expect(s.status).toBe('cancelled');
    expect(s.verdict).toBeUndefined();
    expect(c.calls.map((x) => x.slot)).toEqual([1]);
    expect(ended(r.events)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(ended(r.events)[0]).not.toHaveProperty('error');
  });

  it('an unusable verdict by a fallback synthesizer is partial, not failed', async () => {
    const c = net.open((call, request, p) => {
      if (call.slot === 1) return serverError(call, request, p);
      return call.stage === 'synthesis' || call.stage === 'repair'
        ? answer(p, request, call, invalidText(call.stage))
        : undefined;
    });
    const s = await engine().synthesizeAnswers(c.question, [{ slot: 2, text: 'Two.' }]);
    expect(s.verdict).toMatchObject({ format: 'unstructured', synthesizer: { slot: 2, reason: 'fallback' } });
    expect(s.status).toBe('partial');
  });
});

describe('cancellation of the last possible synthesizer', () => {
  it('the only healthy slot is writing the verdict when the caller goes away: cancelled, no no_synthesizer error', async () => {
    const stop = new AbortController();
    const r = recorder();
    const c = net.open((call, request, p) => {
      if (call.stage === 'final' && call.slot !== 1) return serverError(call, request, p);
      if (call.stage !== 'synthesis') return undefined;
      setImmediate(() => stop.abort());
      return stallUntilAborted(request, call.observed);
    });
    const s = await engine().deep(c.question, { rounds: 2, quorum: 1, signal: stop.signal, onLog: r.onLog });
    expect(s.status).toBe('cancelled');
    expect(c.calls.filter((x) => x.stage === 'synthesis').map((x) => x.slot)).toEqual([1]);
    expect(ended(r.events)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(ended(r.events)[0]).not.toHaveProperty('error');
  });
});

describe('early stop', () => {
  const ASKS_POSITION = 'End with one line of its own: "POSITION: unchanged"';
  const unchanged = (slot: number, round: number) => `${prose(slot, round)}\nPOSITION: unchanged`;
  /** Every critique answer reports its position unchanged, except those `changed` names. */
  const holding =
    (changed: (call: Call) => boolean = () => false): Responder =>
    (call, request, p) =>
      call.stage === 'middle' && !changed(call) ? answer(p, request, call, unchanged(call.slot, call.round)) : undefined;

  it('a critique round in which every model holds its position goes straight to the final round, and records what it saved', async () => {
    const c = net.open(holding());
    const s = await engine().deep(c.question, { rounds: 5, earlyStop: true });
    expect(s.rounds.map((r) => [r.number, r.kind])).toEqual([
      [1, 'independent'],
      [2, 'critique'],
      [3, 'final'],
    ]);
    // Five answers of 30 tokens each, for each of the two rounds saved.
    expect(s.earlyStop).toEqual({ afterRound: 2, roundsSaved: 2, callsSaved: 10, tokensSaved: 300 });
    expect(s.status).toBe('completed');
    expect(s.consensus?.round).toBe(3);
    expect(s.verdict?.positionChanges.filter((x) => 'round' in x).map((x) => x.round)).toEqual([3, 3, 3, 3, 3]);
    // Critique prompts ask for the position line; the final round's does not.
    expect(promptOf(c.callsOf(1, 'middle')[0]!)).toContain(ASKS_POSITION);
    expect(promptOf(c.callsOf(1, 'final')[0]!)).not.toContain(ASKS_POSITION);
  });

  it('goes on when one model changed, when one is missing, when not asked to, and never for the last critique round', async () => {
    const one = await engine().deep(net.open(holding((call) => call.slot === 4)).question, { rounds: 4, earlyStop: true });
    expect(one.rounds).toHaveLength(4);
    expect(one).not.toHaveProperty('earlyStop');

    const missing = net.open((call, request, p) =>
      call.stage === 'middle' && call.slot === 5 ? serverError(call, request, p) : holding()(call, request, p),
    );
    expect((await engine().deep(missing.question, { rounds: 4, earlyStop: true })).rounds).toHaveLength(4);

    const unasked = net.open(holding());
    const s = await engine().deep(unasked.question, { rounds: 4 });
    expect(s.rounds).toHaveLength(4);
    expect(promptOf(unasked.callsOf(1, 'middle')[0]!)).not.toContain(ASKS_POSITION);

    // Round 2 of 3 is followed by the final round anyway: nothing to save, nothing asked.
    const three = net.open(holding());
    const t = await engine().deep(three.question, { rounds: 3, earlyStop: true });
    expect(t.rounds).toHaveLength(3);
    expect(t).not.toHaveProperty('earlyStop');
    expect(promptOf(three.callsOf(1, 'middle')[0]!)).not.toContain(ASKS_POSITION);
  });
});

describe('a run in a thread, from a source, and what it reports as it goes', () => {
  it('a follow-up carries its thread and parent, and every prompt, the verdict included, shows the thread so far', async () => {
    const c = net.open();
    const thread = { threadId: 'ses_ROOT', parentId: 'ses_PARENT', context: 'Earlier: should we cache? Verdict: yes.' };
    const s = await engine().deep(c.question, { rounds: 3, thread });
    expect(new Set(c.calls.map((x) => x.stage))).toEqual(new Set(['round1', 'middle', 'final', 'synthesis']));
    expect(s).toMatchObject({ threadId: 'ses_ROOT', parentId: 'ses_PARENT' });
    for (const call of c.calls) expect(promptOf(call)).toContain(thread.context);
    const single = await engine().parallel(net.open().question, [1]);
    expect(single).not.toHaveProperty('threadId');
    expect(single).not.toHaveProperty('parentId');
  });

  it('a synthesis records the session it was made from', async () => {
    const s = await engine().synthesizeAnswers(net.open().question, [{ slot: 1, text: 'One.' }], {
      sourceSessionId: 'ses_SOURCE',
    });
    expect(s.sourceSessionId).toBe('ses_SOURCE');
    expect(await engine().synthesizeAnswers(net.open().question, [{ slot: 1, text: 'One.' }])).not.toHaveProperty(
      'sourceSessionId',
    );
  });

  it('each failed attempt is reported with its session, round, slot, provider and model; round 0 is the verdict', async () => {
    const failures: CallFailure[] = [];
    const e = engine({ onCallFailed: (f) => failures.push(f) });
    const c = net.open((call, request, p) =>
      (call.slot === 3 && call.stage === 'round1') || (call.slot === 1 && call.stage === 'synthesis')
        ? serverError(call, request, p)
        : undefined,
    );
    const s = await e.deep(c.question, { rounds: 2 });
    expect(failures.map((f) => [f.sessionId, f.round, f.slot, f.provider, f.model, f.code, f.attempt, f.retrying])).toEqual([
      [s.id, 1, 3, 'deepseek', PANEL[2]!.slot.model, 'upstream_error', 1, false],
      [s.id, 0, 1, 'anthropic', PANEL[0]!.slot.model, 'upstream_error', 1, false],
    ]);
  });

  it("the verdict's summary and answer stream as verdict.delta events that add up to them", async () => {
    const r = recorder();
    const s = await engine().deep(net.open().question, { rounds: 2, onLog: r.onLog });
    const deltas = r.events.filter((ev) => ev.type === 'verdict.delta');
    expect(new Set(deltas.map((ev) => [ev.slot, ev.attempt].join()))).toEqual(new Set(['1,1']));
    const field = (name: string) =>
      deltas
        .filter((ev) => ev.field === name)
        .map((ev) => ev.delta)
        .join('');
    expect(field('summary')).toBe(s.verdict?.summary);
    expect(field('answer')).toBe(s.verdict?.answer);
  });

  it('an action listed twice, whatever its case and spacing, is kept once at its highest priority', async () => {
    const action = (title: string) => ({ title, rationale: 'Why.', supportingSlots: [1], supportingRounds: [1] });
    const draft = {
      ...JSON.parse(verdictJson(1)),
      actions: {
        P0: [action('Ship it')],
        P1: [action('  SHIP IT '), action('Measure')],
        P2: [action('measure'), action('Wait')],
      },
    };
    const c = net.open((call, request, p) =>
      call.stage === 'synthesis' ? answer(p, request, call, JSON.stringify(draft)) : undefined,
    );
    const s = await engine().synthesizeAnswers(c.question, [{ slot: 1, text: 'One.' }]);
    expect(s.verdict?.actions).toEqual({ P0: [action('Ship it')], P1: [action('Measure')], P2: [action('Wait')] });
  });
});
