/**
 * A final round answered as real models answer it, in each of the five providers' own wire envelopes (msw):
 * structured JSON in a code fence, after a sentence or followed by a note is read as it is; an answer off the schema
 * is repaired once (both calls counted); still off, the round misses its quorum and the session says why. The
 * consensus reads peer labels as models write them ("Response A", "[B]", "answer c"), and a holder that names no one
 * is reported on the session and told to the verdict as no one's, never passed on as agreement.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { DebateEngine } from '../../server/src/debate/engine.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { scriptedPanel, startScriptedModels } from '../support/scripted-models.js';
import {
  AGREEMENT,
  answer,
  type Case,
  FaultNet,
  finalJson,
  LIVE_ENV,
  labelsIn,
  type Responder,
  USAGE,
  verdictJson,
} from './fault-providers.js';

const net = new FaultNet();
globalThis.AI_SDK_LOG_WARNINGS = false;
const msw = setupServer(...net.handlers());
beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterAll(() => msw.close());

const SLOTS = [1, 2, 3, 4, 5] as const;
const ROUNDS = 2;

async function debate(respond: Responder): Promise<{ session: Session; c: Case }> {
  const c = net.open(respond);
  const engine = new DebateEngine({
    panel: slotsFromEnv(LIVE_ENV).map((config) => ({ config, model: createSlotModel(config, LIVE_ENV) })),
    quorum: 3,
    callTimeoutMs: 30_000,
    maxRetries: 0,
    prices: {},
    owner: 'test',
  });
  return { session: await engine.deep(c.question, { rounds: ROUNDS }), c };
}

const WRAPS = {
  fenced: (json: string) => `\`\`\`json\n${json}\n\`\`\``,
  'after a sentence': (json: string) => `Here is my final position in the JSON shape you asked for:\n\n${json}`,
  'with trailing text': (json: string) => `${json}\n\nNote: I weighed the critiques above before settling on this.`,
  'fenced between sentences': (json: string) => `Sure.\n\`\`\`\n${json}\n\`\`\`\nLet me know if you need more.`,
};

/** Off the schema: parses, but `changed` is a word and the consensus is missing. */
const OFF_SCHEMA = '{"position": "Ship the smaller change first.", "changed": "no"}';
const OFF_VERDICT = '{"summary": "Ship small", "answer": "Ship it", "confidence": "high"}';

/** The user prompt of a request in any of the five wire formats, as one string. */
const bodyText = (body: string) => JSON.stringify(JSON.parse(body));

describe('a final round answered slightly off-format', () => {
  for (const [form, wrap] of Object.entries(WRAPS)) {
    it(`reads every provider's structured answer ${form}, the verdict's too, with no repair`, async () => {
      const { session, c } = await debate((call, request, p) => {
        if (call.stage === 'final') return answer(p, request, call, wrap(finalJson(call.slot)));
        if (call.stage === 'synthesis') return answer(p, request, call, wrap(verdictJson(call.slot)));
        return undefined;
      });
      expect(session).toMatchObject({ status: 'completed', missingSlots: [] });
      expect(session.endReason).toBeUndefined();
      for (const a of session.rounds[ROUNDS - 1]!.answers) {
        expect(a.error, `slot ${a.slot}`).toBeUndefined();
        expect(a.repaired).toBeUndefined();
        expect(a.text).toBe(`Slot ${a.slot} holds: ship the smaller change first.`);
      }
      for (const slot of SLOTS) expect(c.callsOf(slot, 'finalRepair')).toEqual([]);
      expect(c.calls.filter((x) => x.stage === 'repair')).toEqual([]);
      expect(session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
      expect(session.verdict).toMatchObject({ format: 'structured', summary: expect.stringContaining('Verdict by slot 1') });
    });
  }

  it("repairs each provider's off-schema final answer and the verdict once, every call counted", async () => {
    const { session, c } = await debate((call, request, p) => {
      if (call.stage === 'final') return answer(p, request, call, OFF_SCHEMA);
      if (call.stage === 'synthesis') return answer(p, request, call, OFF_VERDICT);
      return undefined;
    });
    expect(session).toMatchObject({ status: 'completed', missingSlots: [] });
    for (const slot of SLOTS) {
      const [repair] = c.callsOf(slot, 'finalRepair');
      expect(c.callsOf(slot, 'finalRepair')).toHaveLength(1);
      // The repair quotes the reply and says what was wrong with it.
      expect(bodyText(repair!.body)).toContain('did not match schema');
      expect(repair!.body).toContain(JSON.stringify(OFF_SCHEMA).slice(1, -1));
      const a = session.rounds[ROUNDS - 1]!.answers.find((x) => x.slot === slot)!;
      expect(a).toMatchObject({
        text: `Slot ${slot} holds: ship the smaller change first.`,
        repaired: expect.stringContaining('did not match schema'),
        usage: { inputTokens: 2 * USAGE.input, outputTokens: 2 * USAGE.output, totalTokens: 2 * (USAGE.input + USAGE.output) },
      });
      expect(a.error).toBeUndefined();
    }
    expect(c.callsOf(1, 'repair')).toHaveLength(1);
    expect(session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
    expect(session.verdict?.format).toBe('structured');
    // Every request was answered and billed: 5 + 5 + 5 repairs + the verdict and its repair.
    expect(c.calls).toHaveLength(17);
    expect(session.usage).toEqual({
      inputTokens: 17 * USAGE.input,
      outputTokens: 17 * USAGE.output,
      totalTokens: 17 * (USAGE.input + USAGE.output),
    });
  });

  it('a final round still off-schema after its repair misses the quorum: the session keeps its answers and says why', async () => {
    const { session, c } = await debate((call, request, p) =>
      call.stage === 'final' || call.stage === 'finalRepair' ? answer(p, request, call, OFF_SCHEMA) : undefined,
    );
    expect(session.status).toBe('partial');
    expect(session.endReason).toBe(`quorum_not_met: round ${ROUNDS} had 0 answers, the quorum is 3`);
    for (const slot of SLOTS) expect(c.callsOf(slot, 'finalRepair')).toHaveLength(1);
    const final = session.rounds[ROUNDS - 1]!;
    expect(final.missingSlots).toEqual([...SLOTS]);
    for (const a of final.answers) expect(a.error).toMatchObject({ code: 'invalid_output', attempts: 2 });
    // Round 1's answers stay, for a verdict synthesized from them.
    expect(session.rounds[0]!.answers.every((a) => !a.error && a.text !== '')).toBe(true);
    expect(session.consensus).toBeUndefined();
  });
});

/** A holder's label written the way models write it, by form index. */
const FORMS = [
  (l: string) => `Response ${l}`,
  (l: string) => l.toLowerCase(),
  (l: string) => `[${l}]`,
  (l: string) => `(${l})`,
  (l: string) => `Answer ${l}`,
  (l: string) => `response ${l.toLowerCase()}`,
  (l: string) => `**${l}**`,
];

describe('peer labels as models write them', () => {
  it('credit their slots, and a holder that names no one is reported and told to the verdict as no one’s', async () => {
    const { session, c } = await debate((call, request, p) => {
      if (call.stage !== 'final') return undefined;
      const labels = labelsIn(bodyText(call.body).replace(/\\n/g, '\n'));
      const responses = ['you', ...labels.map((l, i) => FORMS[(call.slot + i) % FORMS.length]!(l))];
      if (call.slot === 1) responses.push('Response Z');
      const body = {
        position: `Slot ${call.slot} holds.`,
        changed: false,
        changeReason: 'Held.',
        agreements: [{ statement: AGREEMENT, responses }],
        disagreements: [],
      };
      return answer(p, request, call, JSON.stringify(body));
    });
    expect(session.panel?.anonymous).toBe(true);
    expect(session.consensus?.agreements).toEqual([{ statement: AGREEMENT, slots: [...SLOTS] }]);
    expect(session.unmatchedLabels).toEqual([{ round: ROUNDS, reader: 1, statement: AGREEMENT, text: 'Response Z' }]);
    const synthesis = bodyText(c.callsOf(1, 'synthesis')[0]!.body);
    expect(synthesis).toContain('match no panel member; they count for no one and are not agreement');
    expect(synthesis).toContain('Response Z');
  });

  it('a consensus none of whose holders could be read is not handed to the verdict as one', async () => {
    const { session, c } = await debate((call, request, p) => {
      if (call.stage !== 'final') return undefined;
      const body = {
        position: `Slot ${call.slot} holds.`,
        changed: false,
        changeReason: 'Held.',
        agreements: [{ statement: AGREEMENT, responses: ['Participant 9'] }],
        disagreements: [],
      };
      return answer(p, request, call, JSON.stringify(body));
    });
    expect(session.consensus?.agreements).toEqual([]);
    expect(session.unmatchedLabels).toHaveLength(5);
    const synthesis = bodyText(c.callsOf(1, 'synthesis')[0]!.body);
    expect(synthesis).toContain('no view the final answers reported could be credited to a panel member');
    expect(synthesis).not.toContain("The final round's consensus");
  });
});

describe('over real HTTP on loopback (an OpenAI-compatible server)', () => {
  const MODELS = ['accurate-1', 'stubborn-1', 'accurate-0.9', 'stubborn-0.9', 'accurate-0.8'];
  const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

  it('an off-schema final answer repaired into a fenced one, and a verdict after a sentence, reach a verdict; the repair is priced', async () => {
    const models = await startScriptedModels({
      dress: ({ kind, text }, user) => {
        if (kind === 'final' && !user.includes('Your previous reply could not be used')) return OFF_SCHEMA;
        if (kind === 'final') return `\`\`\`json\n${text}\n\`\`\``;
        if (kind === 'verdict') return `Here is the verdict you asked for.\n${text}\nI hope it helps.`;
        return text;
      },
    });
    try {
      const env = scriptedPanel(models.baseUrl, MODELS, PRICE);
      const engine = new DebateEngine({
        panel: slotsFromEnv(env).map((config) => ({ config, model: createSlotModel(config, env) })),
        quorum: 3,
        callTimeoutMs: 30_000,
        maxRetries: 0,
        prices: Object.fromEntries(MODELS.map((m, i) => [`scripted-${i + 1}/${m}`, PRICE])),
        owner: 'test',
      });
      const session = await engine.deep('What is 2 + 3?', { rounds: 2 });
      expect(session).toMatchObject({ status: 'completed', missingSlots: [] });
      expect(session.verdict?.format).toBe('structured');
      for (const [i, model] of MODELS.entries()) {
        const finals = models.calls.filter((c) => c.kind === 'final' && c.model === model);
        expect(finals, model).toHaveLength(2);
        const a = session.rounds[1]!.answers.find((x) => x.slot === i + 1)!;
        const input = finals.reduce((n, c) => n + c.usage.prompt, 0);
        const output = finals.reduce((n, c) => n + c.usage.completion, 0);
        expect(a).toMatchObject({ repaired: expect.stringContaining('did not match schema') });
        expect(a.usage).toEqual({ inputTokens: input, outputTokens: output, totalTokens: input + output });
        expect(a.cost?.usd).toBeCloseTo((input * PRICE.inputPerMTok + output * PRICE.outputPerMTok) / 1e6, 12);
      }
      // The session's spend is every call's: the repairs included.
      const all = models.calls.reduce((n, c) => n + c.usage.prompt + c.usage.completion, 0);
      expect(session.usage.totalTokens).toBe(all);
    } finally {
      await models.close();
    }
  });
});
