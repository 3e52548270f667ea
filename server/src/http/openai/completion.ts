/** OpenAI's response shapes for a stored session: `chat.completion`, its `chat.completion.chunk`s, and the `consilium` field. */
import type { DebateEvent, Session } from '../../../../sdk/src/generated/types.gen.js';

export interface ConsiliumField {
  session_id: string;
  /** Where the session reads in the UI (and, under `/sessions/{id}`, in the API). */
  url: string;
  status: Session['status'];
  mode: Session['mode'];
  actions?: NonNullable<Session['verdict']>['actions'];
  dissent: NonNullable<Session['verdict']>['dissent'];
  cost_usd: number;
}

/** The assistant's content: the verdict's answer; without a verdict (one model, or all at once) the answers. */
export function contentOf(session: Session): string {
  const verdict = session.verdict;
  if (verdict) return verdict.answer ?? verdict.rawText ?? verdict.summary ?? '';
  const answers = session.rounds.at(-1)?.answers.filter((a) => !a.error) ?? [];
  if (answers.length === 1) return answers[0]!.text;
  return answers.map((a) => `### Slot ${a.slot} (${a.provider})\n\n${a.text}`).join('\n\n');
}

export function consiliumField(session: Session, origin: string): ConsiliumField {
  return {
    session_id: session.id,
    url: `${origin}/#/sessions/${session.id}`,
    status: session.status,
    mode: session.mode,
    ...(session.verdict?.actions && { actions: session.verdict.actions }),
    dissent: session.verdict?.dissent ?? [],
    cost_usd: session.cost.usd,
  };
}

export const usageOf = (session: Session) => ({
  prompt_tokens: session.usage.inputTokens,
  completion_tokens: session.usage.outputTokens,
  total_tokens: session.usage.totalTokens,
});

/** `stop`, unless the run ended short of its verdict. */
const finishReason = (session: Session) => (session.status === 'completed' || session.status === 'partial' ? 'stop' : 'length');

export const completionId = (sessionId: string) => `chatcmpl-${sessionId}`;

export function chatCompletion(session: Session, model: string, origin: string, created: number) {
  return {
    id: completionId(session.id),
    object: 'chat.completion' as const,
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: contentOf(session), refusal: null },
        logprobs: null,
        finish_reason: finishReason(session),
      },
    ],
    usage: usageOf(session),
    consilium: consiliumField(session, origin),
  };
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
}

export function chunk(id: string, model: string, created: number, delta: ChunkDelta, finish: string | null = null) {
  return {
    id,
    object: 'chat.completion.chunk' as const,
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
}

export const lastChunks = (session: Session, model: string, origin: string, created: number, includeUsage: boolean) => {
  const id = completionId(session.id);
  const content = contentOf(session);
  return [
    ...(content ? [chunk(id, model, created, { content })] : []),
    { ...chunk(id, model, created, {}, finishReason(session)), consilium: consiliumField(session, origin) },
    ...(includeUsage
      ? [{ id, object: 'chat.completion.chunk' as const, created, model, choices: [], usage: usageOf(session) }]
      : []),
  ];
};

/**
 * The reasoning a debate event adds: each answer's text as it streams, under a heading when a slot starts a
 * round, and a line when a round or the synthesis starts.
 */
export function reasoningOf(event: DebateEvent, seen: Set<string>): string | undefined {
  switch (event.type) {
    case 'round.started':
      return `\n\n## Round ${event.round}\n`;
    case 'answer.delta': {
      const key = `${event.round}:${event.slot}`;
      if (seen.has(key)) return event.delta;
      seen.add(key);
      return `\n**Slot ${event.slot}:** ${event.delta}`;
    }
    case 'answer.failed':
      return `\n**Slot ${event.slot}** failed: ${event.error.message}\n`;
    case 'synthesis.started':
      return `\n\n## Verdict (slot ${event.synthesizer.slot})\n`;
    default:
      return undefined;
  }
}
