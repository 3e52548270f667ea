/**
 * What the engine asks of a run's grounding (any mode) in a wiki (implemented in `server/src/grounding/`): sources
 * read before round 1 and added to every prompt, each answer's and the verdict's citations checked. The
 * engine only calls these hooks; a grounding never fails the debate: a wiki that misbehaves degrades it.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Answer, DebateEvent, Grounding, Verdict } from '../../../sdk/src/generated/types.gen.js';

export type GroundingEmit = (
  event: Extract<DebateEvent, { type: 'grounding' }> extends infer E ? Omit<E, 'v' | 'sessionId' | 'seq' | 'ts'> : never,
) => void;

export interface GroundingHook {
  /** Reads the sources before round 1; resolves (never rejects) once the session's grounding is known. */
  prepare(question: string, signal: AbortSignal, emit: GroundingEmit): Promise<void>;
  /** The prompt with the numbered sources added (unchanged when there are none). */
  decorate(prompt: string): string;
  /** Checks one answer's citations. */
  answered(answer: Answer): void;
  /** Checks the verdict's citations and gives each action the pages it rests on. */
  verdict(verdict: Verdict): Verdict;
  /** Emits the grounding as it stands if citations were checked since it was last told (a run without a verdict ends). */
  settle?(): void;
  /** A critique round's model with the wiki's tools offered (bounded per round and model); undefined for none. */
  toolModel?(model: LanguageModelV3, where: { round: number; slot: number }): LanguageModelV3 | undefined;
  /** The session's grounding as it stands. */
  snapshot(): Grounding;
}
