import type { Answer, Session } from '../../../sdk/src/generated/types.gen.js';

/**
 * An answer's scalar columns in the `answers` table, in table order after the session id (both stores): round,
 * position, slot, provider, model, input/output/total tokens, latency, finish reason, error code.
 */
export function answerColumns(round: number, position: number, a: Answer) {
  return [
    round,
    position,
    a.slot,
    a.provider,
    a.model,
    a.usage.inputTokens,
    a.usage.outputTokens,
    a.usage.totalTokens,
    a.latencyMs,
    a.finishReason,
    a.error?.code,
  ] as const;
}

/**
 * A grounded session's page texts, stored apart (`session_sources`, by page number), put back on its pages as read
 * from `links`; a page whose text is not stored stays without it.
 */
export function withSourceTexts(session: Session, texts: Readonly<Record<string, string>> | null): void {
  if (!session.grounding || !texts) return;
  session.grounding.pages = session.grounding.pages.map((p) => {
    const text = texts[String(p.n)];
    return text === undefined ? p : { ...p, text };
  });
}
