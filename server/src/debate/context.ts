/** What every part of a run shares: the engine's settings and state, and the helpers each model call is set up with. */
import type { Answer } from '../../../sdk/src/generated/types.gen.js';
import type { AttemptFailure } from '../providers/call.js';
import type { Random } from './anonymise.js';
import { boundedPrompt, promptChars, type QuotedPart } from './budget.js';
import type { PanelResolver } from './panel.js';
import { systemPrompt } from './prompts.js';
import type { Run } from './run.js';
import type { EngineSettings, Slot } from './settings.js';

type SlotNumber = Answer['slot'];

export interface EngineContext {
  readonly settings: EngineSettings;
  readonly now: () => number;
  readonly random: Random;
  readonly resolver: PanelResolver;
  /** Each slot's recent answer latency (ms, moving average), to start the slowest slot first. */
  readonly latency: Map<SlotNumber, number>;
}

export function systemOf(ctx: EngineContext, { config }: Slot, run: Run): string {
  const { slot, provider, strength } = config;
  return systemPrompt({ slot, provider, strength }, run.choice?.slots.length ?? ctx.settings.panel.length);
}

/** A prompt quoting `parts`, within `slot`'s context budget; what had to be cut is recorded with the session. */
export function bounded(
  ctx: EngineContext,
  run: Run,
  slot: Slot,
  round: number,
  parts: readonly QuotedPart[],
  build: (texts: readonly string[]) => string,
): string {
  const { prompt, cuts } = boundedPrompt(parts, build, {
    maxChars: promptChars(slot.config.provider, slot.config.contextTokens),
    overhead: systemOf(ctx, slot, run).length,
    round,
    reader: slot.config.slot,
  });
  run.promptCuts.push(...cuts);
  return prompt;
}

/** `streamAnswer`'s failure hook for one slot's call in `round`, when the engine reports failures. */
export function reportFailures(
  ctx: EngineContext,
  run: Run,
  slot: Slot,
  round: number,
): { onAttemptFailed?: (failure: AttemptFailure) => void } {
  const report = ctx.settings.onCallFailed;
  if (!report) return {};
  const where = {
    sessionId: run.log.sessionId,
    round,
    slot: slot.config.slot,
    provider: slot.model.provider,
    model: slot.model.model,
  };
  return { onAttemptFailed: (failure) => report({ ...where, ...failure }) };
}

/** The slots that debate in `run`: its chosen panel, or every configured slot. */
export function panelOf(ctx: EngineContext, run: Run): Slot[] {
  return run.choice ? ctx.resolver.panel(run.choice) : [...ctx.settings.panel];
}
