/**
 * The fairer, steerable panel over the real engine and the five providers' wire formats (msw):
 *
 * - Anonymous peers: no peer's slot, provider or model name in any critique or final prompt; each
 *   model's peers are labelled in an order shuffled per model and per round, the mapping recorded
 *   (session and `round.started`) exactly as the prompts showed it, no label naming the same slot
 *   for two models; the final round's labels mapped back to slots in the stored consensus (a
 *   property over random replies), and a slot that gave no final position is never credited.
 * - The peer ranking: never a model's own answer; ballots mapped back and aggregated as a
 *   reference Borda count does (property over random ballots); invalid ballots listed as missing.
 * - A chosen panel and synthesizer are the only slots called.
 * - A 5 MB answer: every later prompt stays within its slot's budget, and the cuts are recorded.
 *
 * Each answer carries a code word of its slot (never its number), so a test reads from a request
 * body alone which slot's answer a label stands for.
 */
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent, LabelMap, Session } from '../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { promptChars } from '../../server/src/debate/budget.js';
import { DebateEngine } from '../../server/src/debate/engine.js';
import type { PanelRequest } from '../../server/src/debate/panel.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { seededRng } from '../../server/src/providers/offline/seeded-random.js';
import { answer, type Call, FaultNet, labelsIn, PANEL, type Responder } from './fault-providers.js';

const net = new FaultNet();
globalThis.AI_SDK_LOG_WARNINGS = false;
const msw = setupServer(...net.handlers());
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

const SLOTS = [1, 2, 3, 4, 5] as const;
const WORDS = ['amber', 'birch', 'cedar', 'dune', 'ember'];
const ENV: Record<string, string> = {
  ...Object.assign({}, ...PANEL.map((p) => p.env)),
  CONSILIUM_SLOT2_MODELS: 'gpt-4.1-mini, o4-mini',
};
const CONFIGS = slotsFromEnv(ENV);

/** A prose answer naming its slot only by code word. */
const prose = (slot: number, round: number) => `${WORDS[slot - 1]} view, round ${round}: ship the smaller change first.`;
const slotOfWord = (word: string) => WORDS.indexOf(word) + 1;

/** The labelled quotes of a prompt, in its order: label and the slot whose answer it quotes. */
function shown(prompt: string): { label: string; slot: number }[] {
  return [...prompt.matchAll(/Response ([A-E]) said:\n`{3,}text\n(\w+) /g)].map((m) => ({
    label: m[1]!,
    slot: slotOfWord(m[2]!),
  }));
}

/** The user prompt of a request, read from the body in the provider's own wire format. */
function promptOf(call: Call): string {
  const body = JSON.parse(call.body) as {
    messages?: { role: string; content: string | { type: string; text: string }[] }[];
    contents?: { role: string; parts: { text: string }[] }[];
    system?: string | { text: string }[];
    systemInstruction?: { parts: { text: string }[] };
  };
  const texts: string[] = [];
  for (const m of body.messages ?? []) {
    if (m.role !== 'user') continue;
    texts.push(typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''));
  }
  for (const c of body.contents ?? []) if (c.role === 'user') texts.push(c.parts.map((p) => p.text).join(''));
  expect(texts).toHaveLength(1);
  return texts[0]!;
}

/** Everything a request sends as text: system and user message, in any provider's format. */
function sentText(call: Call): number {
  const body = JSON.parse(call.body) as Record<string, unknown>;
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(body.messages ?? body.contents ?? body.input);
  walk(body.system ?? body.systemInstruction ?? body.instructions);
  return strings.reduce((n, s) => n + s.length, 0);
}

/** Round and middle answers by code word; other stages as `respond` says, or healthy. */
const neutral =
  (respond?: Responder): Responder =>
  (call, request, p) =>
    respond?.(call, request, p) ??
    (call.stage === 'round1' || call.stage === 'middle' ? answer(p, request, call, prose(call.slot, call.round)) : undefined);

interface Debate {
  session: Session;
  events: DebateEvent[];
  calls: Call[];
  callsOf(slot: number, stage: Call['stage']): Call[];
}

/** An engine on the five providers, every slot's chosen models made as the server makes them. */
const engineOf = (seed: string) =>
  new DebateEngine({
    panel: CONFIGS.map((config) => ({ config, model: createSlotModel(config, ENV) })),
    quorum: 2,
    callTimeoutMs: 30_000,
    maxRetries: 0,
    prices: {},
    owner: 'test',
    random: seededRng(seed),
    modelFor: (config) => createSlotModel(config, ENV),
  });

/** One debate, on an engine of its own unless `engine` is given (one engine serves many requests, as the server's). */
async function debate(
  respond: Responder | undefined,
  options: { rounds: number; panel?: PanelRequest; seed?: string; engine?: DebateEngine },
) {
  const c = net.open(neutral(respond));
  const engine = options.engine ?? engineOf(options.seed ?? c.tag);
  const events: DebateEvent[] = [];
  const session = await engine.deep(c.question, {
    rounds: options.rounds,
    ...(options.panel && { panel: options.panel }),
    onLog: (log) => log.subscribe((e) => events.push(e)),
  });
  return { session, events, calls: c.calls, callsOf: c.callsOf } satisfies Debate;
}

const debateMaps = (s: Session, round: number) => (s.labels ?? []).filter((l) => l.purpose === 'debate' && l.round === round);

describe('anonymous peers (the default)', () => {
  it('no peer is named in any critique or final prompt; each sees labels, shuffled per model and per round, as recorded', async () => {
    const d = await debate(undefined, { rounds: 4 });
    expect(d.session.status).toBe('completed');
    expect(d.session.panel).toEqual({ slots: [...SLOTS], anonymous: true, ranking: false });
    const names = CONFIGS.flatMap((c) => [c.provider, c.model]);
    const orders = new Map<number, string[]>();
    for (const round of [2, 3, 4]) {
      const maps = debateMaps(d.session, round);
      expect(maps.map((m) => m.reader)).toEqual([...SLOTS]);
      const started = d.events.find((e) => e.type === 'round.started' && e.round === round);
      expect(started).toMatchObject({ labels: maps });
      for (const s of SLOTS) {
        const stage = round === 4 ? 'final' : 'middle';
        const prompt = promptOf(d.callsOf(s, stage).find((c) => c.round === round)!);
        // No slot number, provider or model of anyone: peers are "Response X" only.
        expect(prompt).not.toMatch(/\bslot\s*\d/i);
        for (const name of names) expect(prompt.toLowerCase()).not.toContain(name.toLowerCase());
        const quoted = shown(prompt);
        expect(quoted.map((q) => q.slot).sort()).toEqual(SLOTS.filter((o) => o !== s));
        // What the prompt showed is what the session recorded.
        expect(quoted).toEqual(maps.find((m) => m.reader === s)!.responses);
        orders.set(s, [...(orders.get(s) ?? []), quoted.map((q) => q.slot).join('')]);
      }
      // A label never stands for the same slot in two models' prompts.
      for (const label of ['A', 'B', 'C', 'D']) {
        const behind = maps.map((m) => m.responses.find((r) => r.label === label)!.slot);
        expect(new Set(behind).size).toBe(SLOTS.length);
      }
    }
    // Shuffled per round: some model's peers come in a different order from one round to the next.
    expect([...orders.values()].some((o) => new Set(o).size > 1)).toBe(true);
    // The final round asks for "you" and letters, not slot numbers.
    expect(promptOf(d.callsOf(1, 'final')[0]!)).toContain('"you" for yourself, and the letters of the responses above');
    expect(d.session.consensus?.agreements).toEqual([{ statement: 'Ship the smaller change first.', slots: [...SLOTS] }]);
  });

  it('named on request: `anonymous: false` quotes slots by number and provider, and records no labels', async () => {
    const d = await debate(undefined, { rounds: 2, panel: { anonymous: false } });
    expect(promptOf(d.callsOf(1, 'final')[0]!)).toContain('Slot 2 (openai) said:');
    expect(d.session.labels).toBeUndefined();
  });

  it('property: the final round’s labels map back to the right slots in the stored consensus, and a slot without a final position is never credited', async () => {
    const statements = ['Ship small first.', 'Measure before the refactor.', 'Keep the flag.'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 5 })), {
          minLength: 5,
          maxLength: 5,
        }),
        fc.option(fc.constantFrom(...SLOTS), { nil: undefined }),
        async (replies, failing) => {
          const expected = new Map<string, Set<number>>();
          const d = await debate(
            (call, request, p) => {
              // A failing slot fails its repair too.
              if (call.stage === 'finalRepair' && call.slot === failing) return answer(p, request, call, '{"position": "cut');
              if (call.stage !== 'final') return undefined;
              if (call.slot === failing) return answer(p, request, call, '{"position": "cut');
              const [pick, holders] = replies[call.slot - 1]!;
              const seen = shown(promptOf(call));
              // "you", or labels of the prompt (an index past them names a label it was not shown).
              const responses = holders.map((h) => (h === 4 ? 'you' : (seen[h]?.label ?? 'E')));
              const credited = holders.flatMap((h) => (h === 4 ? [call.slot] : seen[h] ? [seen[h].slot] : []));
              const statement = statements[pick]!;
              if (responses.length > 0) {
                const set = expected.get(statement) ?? new Set();
                for (const s of credited) set.add(s);
                expected.set(statement, set);
              }
              const body = {
                position: `${WORDS[call.slot - 1]} holds.`,
                changed: false,
                changeReason: 'Held.',
                agreements: responses.length > 0 ? [{ statement, responses }] : [],
                disagreements: [],
              };
              return answer(p, request, call, JSON.stringify(body));
            },
            { rounds: 2 },
          );
          const want = [...expected.entries()]
            .map(([statement, set]) => ({ statement, slots: [...set].filter((s) => s !== failing).sort() }))
            .filter((a) => a.slots.length > 0);
          const got = d.session.consensus?.agreements ?? [];
          expect([...got].sort((a, b) => a.statement.localeCompare(b.statement))).toEqual(
            want.sort((a, b) => a.statement.localeCompare(b.statement)),
          );
          for (const a of got) if (failing !== undefined) expect(a.slots).not.toContain(failing);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a slot that failed the final round is not credited, however the others name it', async () => {
    // Slot 4 fails its final round; every other model says all four of its peers agree.
    const d = await debate(
      (call, request, p) => {
        if (call.slot === 4 && (call.stage === 'final' || call.stage === 'finalRepair'))
          return answer(p, request, call, 'not json');
        if (call.stage !== 'final') return undefined;
        const all = ['you', ...labelsIn(promptOf(call))];
        return answer(
          p,
          request,
          call,
          JSON.stringify({
            position: 'Holds.',
            changed: false,
            changeReason: 'Held.',
            agreements: [{ statement: 'Ship small first.', responses: all }],
            disagreements: [{ topic: 'Timing', positions: [{ position: 'Now.', responses: all }] }],
          }),
        );
      },
      { rounds: 2 },
    );
    expect(d.session.rounds[1]!.missingSlots).toEqual([4]);
    expect(d.session.consensus?.agreements).toEqual([{ statement: 'Ship small first.', slots: [1, 2, 3, 5] }]);
    expect(d.session.consensus?.disagreements).toEqual([
      { topic: 'Timing', positions: [{ position: 'Now.', slots: [1, 2, 3, 5] }] },
    ]);
  });
});

/** A reference Borda count written apart from `ranking.ts`: points per ballot, ties share the lower rank. */
function referenceBorda(ballots: number[][], candidates: number[]) {
  const points = new Map(candidates.map((c) => [c, 0]));
  const counts = new Map(candidates.map((c) => [c, 0]));
  for (const b of ballots) {
    b.forEach((slot, i) => {
      points.set(slot, points.get(slot)! + (b.length - 1 - i));
      counts.set(slot, counts.get(slot)! + 1);
    });
  }
  const score = (c: number) => (counts.get(c)! === 0 ? 0 : points.get(c)! / counts.get(c)!);
  return candidates
    .map((slot) => ({ slot, rank: 1 + candidates.filter((o) => score(o) > score(slot)).length, points: points.get(slot)! }))
    .sort((a, b) => a.rank - b.rank || a.slot - b.slot);
}

describe('peer ranking', () => {
  it('property: each model ranks the others’ anonymous answers, never its own; the aggregate is the reference Borda count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), { minLength: 5, maxLength: 5 }),
        async (keys) => {
          const ballots = new Map<number, number[]>();
          const d = await debate(
            (call, request, p) => {
              if (call.stage !== 'ranking') return undefined;
              const prompt = promptOf(call);
              const seen = shown(prompt);
              // Its own answer is never among those it ranks.
              expect(seen.map((s) => s.slot)).not.toContain(call.slot);
              expect(prompt).not.toContain(prose(call.slot, 1));
              // A random order, keyed by the generated numbers (equal keys keep the shown order).
              const order = seen.map((s, i) => ({ ...s, key: keys[call.slot - 1]![i]! })).sort((a, b) => a.key - b.key);
              ballots.set(
                call.slot,
                order.map((o) => o.slot),
              );
              const body = { ranking: order.map((o) => ({ response: o.label, reason: 'Because.' })) };
              return answer(p, request, call, JSON.stringify(body));
            },
            { rounds: 2, panel: { ranking: true } },
          );
          const ranking = d.session.rankings?.[0];
          expect(ranking).toBeDefined();
          expect(ranking!.missing).toEqual([]);
          for (const b of ranking!.ballots) {
            expect(b.order.map((o) => o.slot)).not.toContain(b.slot);
            expect(b.order.map((o) => o.slot)).toEqual(ballots.get(b.slot));
          }
          const reference = referenceBorda([...ballots.values()], [...SLOTS]);
          expect(ranking!.aggregate.map(({ slot, rank, points }) => ({ slot, rank, points }))).toEqual(reference);
          expect(ranking!.aggregate.some((e) => e.tied)).toBe(ranking!.note !== undefined);
          // Streamed as an event, and given to the synthesizer.
          expect(d.events.filter((e) => e.type === 'ranking')).toMatchObject([{ ranking }]);
          expect(promptOf(d.callsOf(1, 'synthesis')[0]!)).toContain("The panel's peer ranking of the round 1 answers");
          // The ranking's labels are recorded too, one map per ranker.
          expect((d.session.labels ?? []).filter((l: LabelMap) => l.purpose === 'ranking').map((l) => l.reader)).toEqual([
            ...SLOTS,
          ]);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('invalid ballots degrade honestly: listed as missing with why, the rest still counted', async () => {
    const d = await debate(
      (call, request, p) => {
        if (call.stage !== 'ranking') return undefined;
        const labels = labelsIn(promptOf(call));
        const ranking =
          call.slot === 2
            ? [...labels, labels[0]!] // one twice
            : call.slot === 3
              ? labels.slice(1) // one left out
              : call.slot === 4
                ? [...labels, 'E'] // one it was not shown
                : labels;
        if (call.slot === 5) return answer(p, request, call, '{"ranking": [');
        return answer(p, request, call, JSON.stringify({ ranking: ranking.map((r) => ({ response: r, reason: 'x' })) }));
      },
      { rounds: 2, panel: { ranking: true } },
    );
    const ranking = d.session.rankings![0]!;
    expect(ranking.ballots.map((b) => b.slot)).toEqual([1]);
    expect(ranking.missing.map((m) => m.slot)).toEqual([2, 3, 4, 5]);
    expect(ranking.missing[0]!.reason).toMatch(/^invalid ranking: ranked response [A-D] twice$/);
    expect(ranking.missing[1]!.reason).toMatch(/^invalid ranking: left out response [A-D]$/);
    expect(ranking.missing[2]!.reason).toBe('invalid ranking: ranked "E", which it was not shown');
    expect(ranking.missing[3]!.reason).toMatch(/^invalid_output: No object generated/);
    expect(d.session.status).toBe('partial');
    // Each is the session's failure too, said to be the ranking's.
    expect(d.session.missingSlots).toEqual([2, 3, 4, 5]);
    const reasons = d.session.verdict!.degradation.reasons;
    expect(reasons.map((r) => [r.slot, r.round, r.code]).sort()).toEqual([
      [2, 1, 'invalid_output'],
      [3, 1, 'invalid_output'],
      [4, 1, 'invalid_output'],
      [5, 1, 'invalid_output'],
    ]);
    for (const r of reasons) expect(r.message).toMatch(/^ranking: /);
    // Slot 1's one ballot decides the aggregate, over four candidates.
    expect(ranking.aggregate.map((e) => e.ballots).sort()).toEqual([0, 1, 1, 1, 1]);
  });

  it('a slot with fewer than two others to rank is not asked: a two-slot panel makes no ranking call, a three-slot one ranks pairs', async () => {
    const pair = await debate(undefined, { rounds: 2, panel: { slots: [2, 4], ranking: true } });
    expect(pair.calls.filter((c) => c.stage === 'ranking')).toEqual([]);
    expect(pair.session.status).toBe('completed');
    expect(pair.session.rankings).toMatchObject([
      {
        round: 1,
        ballots: [],
        missing: [
          { slot: 2, reason: 'fewer than two other answers to rank' },
          { slot: 4, reason: 'fewer than two other answers to rank' },
        ],
      },
    ]);
    // Three slots, one of which fails round 1: two answers, so again nobody has two others to rank.
    const thinned = await debate(
      (call) => (call.slot === 3 && call.stage === 'round1' ? new Response('{}', { status: 500 }) : undefined),
      { rounds: 2, panel: { slots: [1, 3, 5], ranking: true } },
    );
    expect(thinned.calls.filter((c) => c.stage === 'ranking')).toEqual([]);
    expect(thinned.session.rankings?.[0]?.missing.map((m) => m.slot)).toEqual([1, 5]);
    // Three answers: each slot ranks the other two.
    const trio = await debate(undefined, { rounds: 2, panel: { slots: [1, 3, 5], ranking: true } });
    const ranked = trio.calls.filter((c) => c.stage === 'ranking');
    expect(ranked.map((c) => c.slot).sort()).toEqual([1, 3, 5]);
    for (const call of ranked) expect(labelsIn(promptOf(call))).toHaveLength(2);
    expect(trio.session.rankings?.[0]).toMatchObject({ missing: [] });
    expect(trio.session.rankings?.[0]?.ballots.map((b) => b.order.length)).toEqual([2, 2, 2]);
  });

  it('off by default: no ranking call, no rankings', async () => {
    const d = await debate(undefined, { rounds: 2 });
    expect(d.calls.filter((c) => c.stage === 'ranking')).toEqual([]);
    expect(d.session.rankings).toBeUndefined();
  });
});

describe('the panel and the synthesizer chosen per request', () => {
  it('slots 2, 4 and 5 debate and slot 3 synthesizes: they are the only ones called', async () => {
    const d = await debate(undefined, { rounds: 3, panel: { slots: [5, 2, 4, 2], synthesizer: 3 } });
    expect(d.session.status).toBe('completed');
    const debated = [...new Set(d.calls.filter((c) => c.stage !== 'synthesis').map((c) => c.slot))].sort();
    expect(debated).toEqual([2, 4, 5]);
    expect(d.calls.filter((c) => c.stage === 'synthesis').map((c) => c.slot)).toEqual([3]);
    expect(d.session.verdict?.synthesizer).toMatchObject({ slot: 3, reason: 'chosen', participated: false });
    expect(d.session.panel).toEqual({ slots: [2, 4, 5], synthesizer: 3, anonymous: true, ranking: false });
    expect(d.events[0]).toMatchObject({ type: 'session.started', slots: [{ slot: 2 }, { slot: 4 }, { slot: 5 }] });
    // Peers of a three-slot panel: two labels each.
    for (const s of [2, 4, 5]) expect(labelsIn(promptOf(d.callsOf(s, 'final')[0]!))).toHaveLength(2);
    expect(d.session.verdict?.positionChanges.map((p) => p.slot)).toEqual([2, 4, 5]);
  });

  it('a chosen synthesizer in the panel records that it took part; when it fails, a panel slot takes over', async () => {
    const d = await debate(
      (call, request, p) => (call.slot === 2 && call.stage === 'synthesis' ? answer(p, request, call, 'not json') : undefined),
      { rounds: 2, panel: { slots: [1, 2, 3], synthesizer: 2 } },
    );
    const started = d.events.flatMap((e) => (e.type === 'synthesis.started' ? [e.synthesizer] : []));
    expect(started[0]).toMatchObject({ slot: 2, reason: 'chosen', participated: true });
    // Invalid output is repaired once, then kept unstructured: no fallback for invalid output.
    expect(d.session.verdict?.synthesizer.slot).toBe(2);

    const down = await debate(
      (call) => (call.slot === 4 && call.stage === 'synthesis' ? new Response('{}', { status: 500 }) : undefined),
      { rounds: 2, panel: { slots: [1, 3], synthesizer: 4 } },
    );
    expect(down.session.verdict?.synthesizer).toMatchObject({ slot: 1, reason: 'fallback', fallbackFrom: 4, participated: true });
    expect([...new Set(down.calls.map((c) => c.slot))].sort()).toEqual([1, 3, 4]);
  });

  it('a per-slot model from the operator list is the model asked', async () => {
    const d = await debate(undefined, { rounds: 2, panel: { slots: [1, 2], models: [{ slot: 2, model: 'gpt-4.1-mini' }] } });
    for (const call of d.calls.filter((c) => c.slot === 2)) expect(JSON.parse(call.body).model).toBe('gpt-4.1-mini');
    expect(d.session.rounds[0]!.answers.find((a) => a.slot === 2)?.model).toBe('gpt-4.1-mini');
    expect(d.session.panel?.models).toEqual([{ slot: 2, model: 'gpt-4.1-mini' }]);
  });

  it('requests on one engine choosing different models for the same slot each get the model they chose', async () => {
    const engine = engineOf('one engine, many requests');
    const configured = CONFIGS[1]!.model;
    for (const model of ['gpt-4.1-mini', 'o4-mini', configured, 'gpt-4.1-mini']) {
      const d = await debate(undefined, { rounds: 2, panel: { slots: [1, 2], models: [{ slot: 2, model }] }, engine });
      const asked = d.calls.filter((c) => c.slot === 2).map((c) => JSON.parse(c.body).model as string);
      expect(asked.length).toBeGreaterThan(0);
      expect(new Set(asked), model).toEqual(new Set([model]));
      expect(d.session.rounds[0]!.answers.find((a) => a.slot === 2)?.model).toBe(model);
    }
  });
});

describe('bounded prompts', () => {
  it('a 5 MB answer: every later prompt stays within its slot’s budget, cut with a marker, and the session records the cuts', async () => {
    const huge = `cedar view, round 1: ${'very long reasoning. '.repeat(250_000)}the end of cedar.`;
    expect(huge.length).toBeGreaterThan(5_000_000);
    const d = await debate(
      (call, request, p) => (call.slot === 3 && call.stage === 'round1' ? answer(p, request, call, huge) : undefined),
      { rounds: 3, panel: { ranking: true } },
    );
    expect(d.session.status).toBe('completed');
    const later = d.calls.filter((c) => c.stage !== 'round1');
    expect(later.length).toBe(5 + 5 + 5 + 1);
    for (const call of later) {
      const config = CONFIGS[call.slot - 1]!;
      expect(sentText(call), `${call.stage} ${call.slot}`).toBeLessThanOrEqual(promptChars(config.provider, undefined));
    }
    // Round 2 quotes it to the four others, shortened, head and tail around the marker.
    const prompt = promptOf(d.callsOf(1, 'middle')[0]!);
    expect(prompt).toMatch(/\[… \d+ characters cut here to keep this prompt within the model's context budget …\]/);
    expect(prompt).toContain('the end of cedar.');
    const cuts = d.session.promptCuts ?? [];
    expect(cuts.filter((c) => c.round === 2 && c.slot === 3).map((c) => c.reader)).toEqual(expect.arrayContaining([1, 2, 4, 5]));
    for (const c of cuts) {
      expect(c.chars).toBe(huge.length);
      expect(c.keptChars).toBeLessThan(promptChars(CONFIGS[c.reader - 1]!.provider, undefined));
    }
    // The verdict's transcript is cut too (round 0).
    expect(cuts.some((c) => c.round === 0 && c.quotedRound === 1)).toBe(true);
  });
});
