/**
 * What every tool that runs something returns: the stored session as a model needs it (the verdict, its actions by
 * priority, the dissent, the last round's answers, the cost) and a link to the session in the web UI.
 */
import { z } from 'zod';
import type { Session } from '../../../sdk/src/generated/types.gen.js';

const action = z.object({
  title: z.string(),
  rationale: z.string(),
  supportingSlots: z.array(z.number()),
  supportingRounds: z.array(z.number()),
  sources: z.array(z.number()).optional(),
});

export const outcomeOutput = z.object({
  sessionId: z.string(),
  status: z.enum(['running', 'completed', 'partial', 'cancelled', 'interrupted', 'failed']),
  mode: z.enum(['single', 'parallel', 'deep', 'synthesis']),
  link: z.string().describe('The session in the web UI.'),
  verdict: z
    .object({
      summary: z.string().optional(),
      answer: z.string().optional(),
      rawText: z.string().optional().describe('The verdict as written, when it could not be read as structured.'),
      confidence: z.number().optional(),
    })
    .optional()
    .describe('Absent without a verdict (one model, parallel answers, or a run that stopped before it).'),
  actions: z.object({ P0: z.array(action), P1: z.array(action), P2: z.array(action) }).describe('P0 now, P1 next, P2 later.'),
  dissent: z.array(z.object({ slots: z.array(z.number()), text: z.string() })),
  answers: z
    .array(
      z.object({
        slot: z.number(),
        provider: z.string(),
        model: z.string(),
        text: z.string(),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      }),
    )
    .describe('The last round’s answers.'),
  missingSlots: z.array(z.number()),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }),
  cost: z.object({
    usd: z.number(),
    priced: z.boolean().describe('False when some usage had no price: usd is then a lower bound.'),
  }),
});

export type Outcome = z.infer<typeof outcomeOutput>;

export function outcomeOf(session: Session, link: string): Outcome {
  const v = session.verdict;
  const last = session.rounds.at(-1);
  return {
    sessionId: session.id,
    status: session.status,
    mode: session.mode,
    link,
    ...(v && {
      verdict: {
        ...(v.summary !== undefined && { summary: v.summary }),
        ...(v.answer !== undefined && { answer: v.answer }),
        ...(v.rawText !== undefined && { rawText: v.rawText }),
        ...(v.confidence !== undefined && { confidence: v.confidence }),
      },
    }),
    actions: v?.actions ?? { P0: [], P1: [], P2: [] },
    dissent: v?.dissent ?? [],
    answers: (last?.answers ?? []).map((a) => ({
      slot: a.slot,
      provider: a.provider,
      model: a.model,
      text: a.text,
      ...(a.error && { error: { code: a.error.code, message: a.error.message } }),
    })),
    missingSlots: session.missingSlots,
    usage: session.usage,
    cost: session.cost,
  };
}

/** The outcome as text a model reads first: the verdict (else the answers), the actions, the link. */
export function outcomeText(o: Outcome): string {
  const lines = [`Session ${o.sessionId} (${o.mode}, ${o.status}): ${o.link}`];
  const v = o.verdict;
  if (v) lines.push('', v.summary ?? v.answer ?? v.rawText ?? '');
  if (v?.answer && v.summary) lines.push('', v.answer);
  if (!v)
    for (const a of o.answers)
      lines.push('', `Slot ${a.slot} (${a.provider}): ${a.error ? `failed: ${a.error.message}` : a.text}`);
  for (const p of ['P0', 'P1', 'P2'] as const) for (const a of o.actions[p]) lines.push(`- ${p} ${a.title}: ${a.rationale}`);
  for (const d of o.dissent) lines.push(`Dissent (slots ${d.slots.join(', ')}): ${d.text}`);
  lines.push('', `Cost: $${o.cost.usd.toFixed(4)}${o.cost.priced ? '' : ' (at least)'}; ${o.usage.totalTokens} tokens.`);
  return lines.join('\n');
}
