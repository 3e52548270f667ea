/**
 * Whole deep debates (3 rounds, all five slots live) against the providers' real wire formats
 * (msw), with one fault injected at one (slot, stage): 429 with Retry-After until the retries run
 * out, 500, a response that never comes, a connection cut mid-stream, and output that is not the
 * JSON asked for; in round 1, the critique round, the final round and the synthesis. Each cell
 * checks the session the engine returns: status, missing slots, the failed answer, the verdict's
 * degradation and synthesizer, the retries made and waited for.
 *
 * Then, through the real HTTP server: a client that disconnects mid-stream aborts every upstream
 * call, and the event stream is flushed event by event.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, type ExpectStatic, it, vi } from 'vitest';
import type { AnswerError, DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { DebateEngine } from '../../server/src/debate/engine.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { startServer } from '../support/server.js';
import {
  AGREEMENT,
  answer,
  type Call,
  deltasOf,
  type Fault,
  FaultNet,
  faultResponse,
  finalJson,
  framesThrough,
  healthyText,
  INVALID_FINAL,
  INVALID_VERDICT,
  INVALID_VERDICT_AGAIN,
  invalidText,
  LIVE_ENV,
  PANEL,
  prose,
  RETRY_AFTER_S,
  readEvents,
  type SlotNumber,
  type SseEvent,
  type Stage,
  USAGE,
} from './fault-providers.js';
import { sseResponse } from './wire.js';

const net = new FaultNet();
// DeepSeek's structured output prints a compatibility note on every final-round and verdict call.
globalThis.AI_SDK_LOG_WARNINGS = false;

const msw = setupServer(...net.handlers());
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

const SLOTS = [1, 2, 3, 4, 5] as const;
const ROUNDS = 3;
const MAX_RETRIES = 2;
/**
 * The deadline of one call in the timeout cells: the stalled call reaches it; the healthy calls,
 * a few hundred ms each with five debates sharing the CPU, stay far inside it.
 */
const STALL_DEADLINE_MS = 3000;
const HEALTHY_USAGE = { inputTokens: USAGE.input, outputTokens: USAGE.output, totalTokens: USAGE.input + USAGE.output };

interface CellRun {
  session: Session;
  events: DebateEvent[];
  /** Every wait the retry loop asked for, recorded by the injected sleep (which returns at once). */
  waits: number[];
  calls: Call[];
  /** The calls that got the fault instead of an answer. */
  faulted: Call[];
  callsOf(slot: number, stage: Stage): Call[];
}

/** Runs one 3-round deep debate, all five slots live, with `fault` at (`slot`, `stage`) only. */
async function runCell(fault: Fault, slot: SlotNumber, stage: Stage, options: { repairFixes?: boolean } = {}) {
  const faulted: Call[] = [];
  const c = net.open((call, request, p) => {
    if (call.slot !== slot) return undefined;
    // An invalid verdict gets one repair try; unless the cell says it succeeds, it is invalid too.
    const repair = (stage === 'synthesis' && call.stage === 'repair') || (stage === 'final' && call.stage === 'finalRepair');
    const hit = call.stage === stage || (repair && fault === 'invalid_json' && !options.repairFixes);
    if (!hit) return undefined;
    faulted.push(call);
    return faultResponse(fault, p, request, call);
  });
  const waits: number[] = [];
  const engine = new DebateEngine({
    panel: slotsFromEnv(LIVE_ENV).map((config) => ({ config, model: createSlotModel(config, LIVE_ENV) })),
    quorum: 3,
    callTimeoutMs: fault === 'timeout' ? STALL_DEADLINE_MS : 30_000,
    maxRetries: MAX_RETRIES,
    prices: {},
    owner: 'test',
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  const events: DebateEvent[] = [];
  const session = await engine.deep(c.question, { rounds: ROUNDS, onLog: (log) => log.subscribe((e) => events.push(e)) });
  return { session, events, waits, calls: c.calls, faulted, callsOf: c.callsOf } satisfies CellRun;
}

const STAGES: readonly Stage[] = ['round1', 'middle', 'final', 'synthesis'];
const ROUND_OF: Record<Stage, number> = { round1: 1, middle: 2, final: 3, finalRepair: 3, synthesis: 0, repair: 0, ranking: 1 };
const FAULTS: readonly Fault[] = ['rate_limited', 'server_error', 'timeout', 'connection_reset', 'invalid_json'];

/** What the engine reports for a fault: the error, how many requests it took, the waits between them. */
function expected(
  fault: Fault,
  slot: SlotNumber,
  stage: Stage,
): { error: Omit<AnswerError, 'message'>; requests: number; waits: number[]; repairs?: number } {
  switch (fault) {
    case 'rate_limited':
      return {
        error: { code: 'rate_limited', status: 429, retryable: true, attempts: MAX_RETRIES + 1 },
        requests: MAX_RETRIES + 1,
        // The provider's Retry-After, not the backoff's 1000 then 2000.
        waits: Array(MAX_RETRIES).fill(RETRY_AFTER_S * 1000),
      };
    case 'server_error':
      return {
        error: { code: 'upstream_error', status: 500, retryable: true, attempts: MAX_RETRIES + 1 },
        requests: MAX_RETRIES + 1,
        waits: [1000, 2000],
      };
    case 'timeout':
      // The deadline covers the call, retries included: nothing is left to retry with.
      return { error: { code: 'timeout', retryable: true, attempts: 1 }, requests: 1, waits: [] };
    case 'connection_reset':
      // Cut after the first delta: a retry would repeat text already streamed, so none.
      return { error: { code: 'connection_reset', retryable: true, attempts: 1 }, requests: 1, waits: [] };
    case 'invalid_json':
      if (stage !== 'final') throw new Error(`invalid_json at ${stage} for slot ${slot} is no answer failure`);
      // Asked once more with the problem (the repair), which is invalid too: two calls, both counted.
      return { error: { code: 'invalid_output', retryable: true, attempts: 2 }, requests: 1, waits: [], repairs: 1 };
  }
}

/** The text the failed answer keeps: what streamed before the failure (all of it for invalid output). */
function failedText(fault: Fault, slot: SlotNumber, stage: Stage): string {
  // The repair's text, the last the model wrote.
  if (fault === 'invalid_json') return invalidText(stage === 'final' ? 'finalRepair' : stage);
  if (fault === 'connection_reset') return deltasOf(healthyText(slot, stage, ROUND_OF[stage]))[0]!;
  return '';
}

/** What a healthy answer's `text` is: prose, or the final round's `position`. */
function healthyAnswerText(slot: number, round: number): string {
  return round === ROUNDS ? (JSON.parse(finalJson(slot)) as { position: string }).position : prose(slot, round);
}

/** Every answer that did not fail is the healthy one, with the usage the provider reported. */
function expectHealthyAnswers(expect: ExpectStatic, run: CellRun, except?: { slot: number; round: number }) {
  expect(run.session.rounds.map((r) => [r.number, r.kind, r.answers.map((a) => a.slot)])).toEqual([
    [1, 'independent', [...SLOTS]],
    [2, 'critique', [...SLOTS]],
    [3, 'final', [...SLOTS]],
  ]);
  for (const round of run.session.rounds) {
    for (const a of round.answers) {
      if (except && a.slot === except.slot && a.round === except.round) continue;
      expect(a, `slot ${a.slot} round ${a.round}`).toMatchObject({
        provider: PANEL[a.slot - 1]!.slot.provider,
        model: PANEL[a.slot - 1]!.slot.model,
        offline: false,
        round: round.number,
        text: healthyAnswerText(a.slot, round.number),
        usage: HEALTHY_USAGE,
        finishReason: 'stop',
      });
      expect(a.error).toBeUndefined();
    }
  }
}

/** Every stream that reached its end reported its usage, and the session adds them up. */
function expectUsage(expect: ExpectStatic, run: CellRun, fault: Fault | undefined, slot?: SlotNumber) {
  // Failed calls count nothing, except invalid output: that stream finished and was billed...
  const billed = run.calls.filter((c) => !run.faulted.includes(c) || fault === 'invalid_json').length;
  // ...and a stream cut mid-answer, for what its provider had reported before the cut: Anthropic
  // (`message_start`: the prompt's tokens and 1 output token) and Gemini (every frame: the prompt's).
  const provider = slot === undefined ? '' : PANEL[slot - 1]!.slot.provider;
  const reset = fault === 'connection_reset' ? run.faulted.length : 0;
  const cutIn = provider === 'anthropic' || provider === 'google' ? reset * USAGE.input : 0;
  const cutOut = provider === 'anthropic' ? reset : 0;
  expect(run.session.usage).toEqual({
    inputTokens: billed * USAGE.input + cutIn,
    outputTokens: billed * USAGE.output + cutOut,
    totalTokens: billed * (USAGE.input + USAGE.output) + cutIn + cutOut,
  });
}

function synthesizerOf(slot: SlotNumber, fallback: boolean) {
  const p = PANEL[slot - 1]!;
  return {
    slot,
    provider: p.slot.provider,
    model: p.slot.model,
    reason: fallback ? 'fallback' : 'default',
    participated: true,
    ...(fallback && { fallbackFrom: 1 }),
  };
}

function eventsOf<T extends DebateEvent['type']>(run: CellRun, type: T): Extract<DebateEvent, { type: T }>[] {
  return run.events.filter((e): e is Extract<DebateEvent, { type: T }> => e.type === type);
}

/** A debate nothing went wrong in: completed, nobody missing, slot 1's structured verdict. */
function expectUndisturbed(expect: ExpectStatic, run: CellRun) {
  const { session } = run;
  expect(session.status).toBe('completed');
  expect(session.missingSlots).toEqual([]);
  expect(session.rounds.map((r) => r.missingSlots)).toEqual([[], [], []]);
  expect(session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
  expect(session.verdict).toMatchObject({
    format: 'structured',
    summary: 'Verdict by slot 1: the panel backs the smaller change first.',
    synthesizer: synthesizerOf(1, false),
    degradation: { degraded: false, missingSlots: [], reasons: [] },
  });
  expect(session.verdict?.synthesizer.fallbackFrom).toBeUndefined();
  expect(eventsOf(run, 'answer.failed')).toEqual([]);
  expect(eventsOf(run, 'session.ended')).toMatchObject([{ status: 'completed', missingSlots: [] }]);
  expect(run.waits).toEqual([]);
}

describe.concurrent('fault matrix: one fault, one slot, one stage of a 3-round debate with five live slots', () => {
  // Stage, then slot, then fault: every five consecutive cells hold one timeout cell, so its wait
  // for the deadline overlaps the other cells' work instead of five timeouts waiting together.
  for (const stage of STAGES) {
    for (const slot of SLOTS) {
      for (const fault of FAULTS) {
        const provider = PANEL[slot - 1]!.name;
        it(`${fault} × slot ${slot} (${provider}) × ${stage}`, async ({ expect }) => {
          const run = await runCell(fault, slot, stage);
          const { session } = run;
          expectUsage(expect, run, fault, slot);

          if (stage === 'synthesis' && slot !== 1) {
            // Slot 1 writes the verdict while it is healthy; the others are never asked, so a fault
            // armed for their verdict never fires and the debate is untouched.
            expect(run.callsOf(slot, 'synthesis')).toEqual([]);
            expect(run.callsOf(1, 'synthesis')).toHaveLength(1);
            expect(run.faulted).toEqual([]);
            expectHealthyAnswers(expect, run);
            expectUndisturbed(expect, run);
            return;
          }

          if (fault === 'invalid_json' && (stage === 'round1' || stage === 'middle')) {
            // Prose rounds ask for no JSON: broken JSON is just the model's text, kept as its answer.
            const round = ROUND_OF[stage];
            expect(run.faulted).toHaveLength(1);
            const a = session.rounds[round - 1]!.answers[slot - 1]!;
            expect(a).toMatchObject({ slot, round, text: INVALID_FINAL, finishReason: 'stop', usage: HEALTHY_USAGE });
            expect(a.error).toBeUndefined();
            expectHealthyAnswers(expect, run, { slot, round });
            expectUndisturbed(expect, run);
            return;
          }

          if (stage === 'synthesis' && fault === 'invalid_json') {
            // Slot 1's verdict fails validation, so does its one repair: the raw text is kept, unstructured.
            expect(run.callsOf(1, 'synthesis')).toHaveLength(1);
            const [repair] = run.callsOf(1, 'repair');
            expect(repair, 'one repair try').toBeDefined();
            expect(run.callsOf(1, 'repair')).toHaveLength(1);
            // The repair prompt shows the model its reply and what was wrong with it.
            expect(repair!.body).toContain(JSON.stringify(INVALID_VERDICT).slice(1, -1));
            expect(repair!.body).toContain('could not be used');
            for (const other of [2, 3, 4, 5]) expect(run.callsOf(other, 'synthesis')).toEqual([]);
            expectHealthyAnswers(expect, run);
            expect(session.status).toBe('partial');
            expect(session.missingSlots).toEqual([1]);
            expect(session.rounds.map((r) => r.missingSlots)).toEqual([[], [], []]);
            expect(session.verdict).toMatchObject({
              format: 'unstructured',
              rawText: INVALID_VERDICT_AGAIN,
              synthesizer: synthesizerOf(1, false),
              degradation: {
                degraded: true,
                missingSlots: [1],
                reasons: [{ slot: 1, round: 0, code: 'invalid_output', message: expect.any(String) }],
              },
            });
            expect(session.verdict?.summary).toBeUndefined();
            expect(session.verdict?.actions).toBeUndefined();
            expect(eventsOf(run, 'session.ended')).toMatchObject([{ status: 'partial', missingSlots: [1] }]);
            expect(run.waits).toEqual([]);
            return;
          }

          const want = expected(fault, slot, stage);
          expect(run.waits).toEqual(want.waits);
          expect(run.callsOf(slot, stage)).toHaveLength(want.requests);
          expect(run.callsOf(slot, 'finalRepair')).toHaveLength(want.repairs ?? 0);
          expect(run.faulted).toHaveLength(want.requests + (want.repairs ?? 0));
          if (fault === 'timeout') expect(run.faulted.every((c) => c.observed.aborted)).toBe(true);
          expect(session.status).toBe('partial');

          if (stage === 'synthesis') {
            // Slot 1 could not write the verdict: slot 2, healthy in the last round, takes over.
            expectHealthyAnswers(expect, run);
            expect(run.callsOf(2, 'synthesis')).toHaveLength(1);
            for (const other of [3, 4, 5]) expect(run.callsOf(other, 'synthesis')).toEqual([]);
            expect(session.missingSlots).toEqual([1]);
            expect(session.rounds.map((r) => r.missingSlots)).toEqual([[], [], []]);
            expect(eventsOf(run, 'synthesis.started').map((e) => e.synthesizer)).toEqual([
              synthesizerOf(1, false),
              synthesizerOf(2, true),
            ]);
            // The fallback synthesizer's verdict streams as it is written too.
            const streamed = eventsOf(run, 'verdict.delta').filter((d) => d.slot === 2 && d.field === 'summary');
            expect(streamed.map((d) => d.delta).join('')).toBe('Verdict by slot 2: the panel backs the smaller change first.');
            expect(session.verdict).toMatchObject({
              format: 'structured',
              summary: 'Verdict by slot 2: the panel backs the smaller change first.',
              synthesizer: synthesizerOf(2, true),
              degradation: {
                degraded: true,
                missingSlots: [1],
                reasons: [{ slot: 1, round: 0, code: want.error.code, message: expect.any(String) }],
              },
            });
            expect(session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
            expect(eventsOf(run, 'answer.failed')).toEqual([]);
            expect(eventsOf(run, 'session.ended')).toMatchObject([{ status: 'partial', missingSlots: [1] }]);
            return;
          }

          // A failed answer in round 1, 2 or 3: four answers still meet the quorum of 3, the debate goes on.
          const round = ROUND_OF[stage];
          expectHealthyAnswers(expect, run, { slot, round });
          expect(session.missingSlots).toEqual([slot]);
          expect(session.rounds.map((r) => r.missingSlots)).toEqual([1, 2, 3].map((n) => (n === round ? [slot] : [])));
          const failed = session.rounds[round - 1]!.answers[slot - 1]!;
          expect(failed).toMatchObject({
            slot,
            round,
            offline: false,
            text: failedText(fault, slot, stage),
            finishReason: fault === 'invalid_json' ? 'stop' : 'error',
            error: { ...want.error, message: expect.any(String) },
          });
          if (want.repairs) {
            // The repair was told what was wrong, and both calls are billed to the answer.
            expect(failed.repaired).toMatch(/could not parse/);
            expect(run.callsOf(slot, 'finalRepair')[0]!.body).toContain(JSON.stringify(INVALID_FINAL).slice(1, -1));
            expect(failed.usage).toEqual({
              inputTokens: 2 * USAGE.input,
              outputTokens: 2 * USAGE.output,
              totalTokens: 2 * (USAGE.input + USAGE.output),
            });
            expect(failed.error?.message).toMatch(/did not match schema/);
          } else expect(failed.repaired).toBeUndefined();
          if (fault === 'rate_limited') expect(failed.error?.message).toContain('Rate limit reached');
          if (fault === 'server_error') expect(failed.error?.message).toContain('The server had an error');
          expect(eventsOf(run, 'answer.failed')).toEqual([
            expect.objectContaining({ round, slot, provider: PANEL[slot - 1]!.slot.provider, error: failed.error }),
          ]);
          expect(eventsOf(run, 'round.ended').map((e) => [e.round, e.missingSlots, e.quorumMet])).toEqual(
            [1, 2, 3].map((n) => [n, n === round ? [slot] : [], true]),
          );
          expect(eventsOf(run, 'session.ended')).toMatchObject([{ status: 'partial', missingSlots: [slot] }]);

          // Slot 1 down in the last round cannot write the verdict; otherwise it does.
          const fallback = slot === 1 && stage === 'final';
          expect(run.callsOf(1, 'synthesis')).toHaveLength(fallback ? 0 : 1);
          expect(session.verdict).toMatchObject({
            format: 'structured',
            summary: `Verdict by slot ${fallback ? 2 : 1}: the panel backs the smaller change first.`,
            synthesizer: synthesizerOf(fallback ? 2 : 1, fallback),
            degradation: {
              degraded: true,
              missingSlots: [slot],
              reasons: [{ slot, round, code: want.error.code, message: failed.error!.message }],
            },
          });
          if (!fallback) expect(session.verdict?.synthesizer.fallbackFrom).toBeUndefined();

          // Only the final positions that arrived make the consensus; a slot without one is said to have none.
          const finals = stage === 'final' ? SLOTS.filter((s) => s !== slot) : [...SLOTS];
          expect(session.consensus).toEqual({
            round: ROUNDS,
            agreements: [{ statement: AGREEMENT, slots: finals }],
            disagreements: [{ topic: 'When to refactor', positions: [{ position: 'Next quarter.', slots: finals }] }],
          });
          const change = session.verdict?.positionChanges.find((p) => p.slot === slot);
          if (stage === 'final')
            expect(change).toMatchObject({ slot, changed: false, reason: expect.stringContaining('No final position') });
          else expect(change).toMatchObject({ slot, changed: slot === 2, round: ROUNDS });
        });
      }
    }
  }

  it('an invalid verdict whose one repair succeeds gives a structured verdict by slot 1', async ({ expect }) => {
    const run = await runCell('invalid_json', 1, 'synthesis', { repairFixes: true });
    expect(run.callsOf(1, 'synthesis')).toHaveLength(1);
    expect(run.callsOf(1, 'repair')).toHaveLength(1);
    expect(run.callsOf(1, 'repair')[0]!.body).toContain(JSON.stringify(INVALID_VERDICT).slice(1, -1));
    expectHealthyAnswers(expect, run);
    expectUsage(expect, run, 'invalid_json');
    expectUndisturbed(expect, run);
  });

  for (const slot of SLOTS)
    it(`an invalid final answer of slot ${slot} whose one repair succeeds joins the consensus, both calls counted`, async ({
      expect,
    }) => {
      const run = await runCell('invalid_json', slot, 'final', { repairFixes: true });
      expect(run.callsOf(slot, 'final')).toHaveLength(1);
      expect(run.callsOf(slot, 'finalRepair')).toHaveLength(1);
      expect(run.callsOf(slot, 'finalRepair')[0]!.body).toContain(JSON.stringify(INVALID_FINAL).slice(1, -1));
      expectHealthyAnswers(expect, run, { slot, round: ROUNDS });
      const repaired = run.session.rounds[ROUNDS - 1]!.answers[slot - 1]!;
      expect(repaired).toMatchObject({
        slot,
        text: healthyAnswerText(slot, ROUNDS),
        finishReason: 'stop',
        repaired: expect.stringMatching(/could not parse/),
        usage: { inputTokens: 2 * USAGE.input, outputTokens: 2 * USAGE.output, totalTokens: 2 * (USAGE.input + USAGE.output) },
      });
      expect(repaired.error).toBeUndefined();
      expectUsage(expect, run, 'invalid_json');
      expect(run.session).toMatchObject({ status: 'completed', missingSlots: [] });
      expect(run.session.endReason).toBeUndefined();
      expect(run.session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
      expect(run.session.verdict?.format).toBe('structured');
    });
});

const STREAM_PATH = '/consilium/deep/stream';

/** Reads events until `until` says stop, failing if the stream ends first or nothing comes within `ms`. */
async function readUntil(events: AsyncGenerator<SseEvent>, seen: SseEvent[], until: (e: SseEvent) => boolean, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No matching event within ${ms} ms; saw ${seen.map((e) => e.event).join(', ')}`)),
      ms,
    );
  });
  const read = (async () => {
    for (;;) {
      const next = await events.next();
      if (next.done) throw new Error(`The stream ended first; saw ${seen.map((e) => e.event).join(', ')}`);
      seen.push(next.value);
      if (until(next.value)) return next.value;
    }
  })();
  try {
    return await Promise.race([read, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const deltaSlot = (e: SseEvent) => (e.data as { slot: number }).slot;

describe('POST /consilium/deep/stream over the real HTTP server, five live slots', () => {
  it('a client that disconnects mid-stream aborts every upstream call, and the server keeps serving', async ({ expect }) => {
    const server = await startServer({ ...LIVE_ENV, CONSILIUM_MAX_RETRIES: '0' });
    const client = new AbortController();
    try {
      // Each provider streams its first delta, then holds the stream open until its request is aborted.
      const c = net.open((call, request, p) => {
        const deltas = deltasOf(healthyText(call.slot, call.stage, call.round));
        const frames = p.frames(deltas, USAGE);
        return sseResponse(request, frames, { stallAfter: framesThrough(frames, deltas[0]!) }, call.observed);
      });
      const res = await server.fetch(`${STREAM_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ question: c.question, rounds: 3 }),
        signal: client.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = readEvents(res.body!);
      const seen: SseEvent[] = [];
      const deltas = new Set<number>();
      await readUntil(
        events,
        seen,
        (e) => {
          if (e.event === 'answer.delta') deltas.add(deltaSlot(e));
          return deltas.size === 5;
        },
        20_000,
      );
      // All five are mid-answer, holding their streams open.
      expect(c.calls.map((x) => [x.slot, x.stage])).toEqual(expect.arrayContaining(SLOTS.map((s) => [s, 'round1'])));
      expect(c.calls).toHaveLength(5);
      expect(c.calls.some((x) => x.observed.aborted)).toBe(false);

      client.abort();
      await vi.waitFor(() => expect(c.calls.map((x) => x.observed.aborted)).toEqual([true, true, true, true, true]), {
        timeout: 15_000,
        interval: 20,
      });
      // The run stopped there (the recorder has let it go: it can call nothing more): nothing asked the providers
      // for another round or a verdict.
      await vi.waitFor(() => expect(server.sessions.recorder.running).toBe(0), { timeout: 30_000, interval: 20 });
      expect(c.calls).toHaveLength(5);

      const health = await server.fetch(`/health`);
      expect(health.status).toBe(200);
    } finally {
      client.abort();
      await server.close();
    }
  });

  it("flushes each event at once: the fastest provider's first delta reaches the client while the others hold their responses", async ({
    expect,
  }) => {
    const server = await startServer({ ...LIVE_ENV, CONSILIUM_MAX_RETRIES: '0' });
    const FAST = 4;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let released = false;
    let allHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      allHeld = resolve;
    });
    const holding: Call[] = [];
    // Round 1: four providers hold their responses (nothing sent, not even headers) until released;
    // the fast one answers once all four are holding. Later calls answer at once.
    const c = net.open((call, request, p) => {
      if (call.stage !== 'round1') return undefined;
      if (call.slot === FAST) return held.then(() => answer(p, request, call, prose(FAST, 1)));
      holding.push(call);
      if (holding.length === 4) allHeld();
      return gate.then(() => answer(p, request, call, prose(call.slot, 1)));
    });
    const client = new AbortController();
    try {
      const res = await server.fetch(`${STREAM_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ question: c.question, rounds: 3 }),
        signal: client.signal,
      });
      expect(res.status).toBe(200);
      const events = readEvents(res.body!);
      const seen: SseEvent[] = [];
      // Were events buffered until the round (or the response) ended, this would never arrive.
      const first = await readUntil(events, seen, (e) => e.event === 'answer.delta', 20_000);
      expect(released).toBe(false);
      expect(holding.map((x) => x.slot).sort()).toEqual([1, 2, 3, 5]);
      expect(first.data).toMatchObject({ type: 'answer.delta', round: 1, slot: FAST, delta: deltasOf(prose(FAST, 1))[0] });
      expect(seen.map((e) => e.event)).toEqual(['session.started', 'round.started', 'answer.delta']);

      // The fast answer completes on the stream while the others still hold.
      const done = await readUntil(events, seen, (e) => e.event === 'answer.completed', 20_000);
      expect(released).toBe(false);
      expect(done.data).toMatchObject({ answer: { slot: FAST, round: 1, text: prose(FAST, 1) } });
      expect(seen.filter((e) => e.event === 'answer.delta').map(deltaSlot)).toEqual([FAST, FAST, FAST]);

      released = true;
      release();
      const ended = await readUntil(events, seen, (e) => e.event === 'session.ended', 30_000);
      expect(ended.data).toMatchObject({ status: 'completed', missingSlots: [] });
      const verdict = seen.find((e) => e.event === 'verdict');
      expect(verdict?.data).toMatchObject({ verdict: { format: 'structured', synthesizer: { slot: 1, reason: 'default' } } });
      // Every event is its own SSE message, in order.
      const seqs = seen.map((e) => (e.data as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    } finally {
      release();
      client.abort();
      await server.close();
    }
  });
});
