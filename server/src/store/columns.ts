import type { Answer } from '../../../sdk/src/generated/types.gen.js';

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
