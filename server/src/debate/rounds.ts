/** One round: every slot of it at once, each answer streamed as it comes and named when it fails. */
import type { z } from 'zod';
import type { Answer, LabelMap, Round, RoundKind } from '../../../sdk/src/generated/types.gen.js';
import { streamAnswer } from '../providers/call.js';
import { type EngineContext, reportFailures, systemOf } from './context.js';
import { PositionStream } from './position-stream.js';
import { addCost, addUsage } from './pricing.js';
import { type FinalPosition, finalPositionSchema, repairPrompt } from './prompts.js';
import { type Run, sorted, stoppedError } from './run.js';
import type { Slot } from './settings.js';

type SlotNumber = Answer['slot'];

/** One round: every slot at once, each streaming its deltas; failures are named, never thrown. */
export async function runRound(
  ctx: EngineContext,
  run: Run,
  n: number,
  kind: RoundKind,
  slots: readonly Slot[],
  prompt: (slot: Slot) => string,
  maxOutputTokens: number | undefined,
  finals?: Map<SlotNumber, FinalPosition>,
  kept: readonly Answer[] = [],
  labels: readonly LabelMap[] = [],
): Promise<Round> {
  // A continued round asks only the slots it has no answer of; its `round.started` lists just those,
  // so a client resets their text and keeps the rest.
  const keptBySlot = new Map(kept.map((a) => [a.slot, a]));
  const asked = slots.filter((s) => !keptBySlot.has(s.config.slot));
  run.log.emit({
    type: 'round.started',
    round: n,
    kind,
    slots: asked.map((s) => s.config.slot),
    ...(labels.length > 0 && { labels: [...labels] }),
  });
  // Setting a call up takes the event loop a fraction of a millisecond each; starting the slot that
  // usually answers last first keeps those set-ups off the round's critical path.
  const expected = (slot: Slot) => ctx.latency.get(slot.config.slot) ?? 0;
  const byLatency = [...asked].sort((a, b) => expected(b) - expected(a));
  // The round is part of the session from its start: answers join it as they finish (a snapshot
  // taken mid-round holds them), then take the panel's order when the round ends.
  const round: Round = { number: n, kind, answers: [...kept], missingSlots: [] };
  run.rounds.push(round);
  const settled = new Map<Slot, Answer>();
  await Promise.all(
    byLatency.map(async (slot) => {
      settled.set(slot, await answer(ctx, run, round, slot, prompt(slot), maxOutputTokens, finals));
    }),
  );
  const panelSlots = new Set<number>(slots.map((s) => s.config.slot));
  round.answers = [
    ...slots.map((slot) => settled.get(slot) ?? keptBySlot.get(slot.config.slot)!),
    // A kept answer of a slot no longer configured stays part of the round.
    ...kept.filter((a) => !panelSlots.has(a.slot)),
  ];
  round.missingSlots = sorted(round.answers.filter((a) => a.error).map((a) => a.slot));
  return round;
}

async function answer(
  ctx: EngineContext,
  run: Run,
  round: Round,
  slot: Slot,
  prompt: string,
  maxOutputTokens: number | undefined,
  finals: Map<SlotNumber, FinalPosition> | undefined,
): Promise<Answer> {
  const { model } = slot;
  const slotNumber = slot.config.slot;
  const n = round.number;
  const position = finals ? new PositionStream() : undefined;
  const onDelta = (text: string) => {
    const delta = position ? position.push(text) : text;
    if (delta) run.log.answerDelta(n, slotNumber, delta);
  };
  const tooled =
    round.kind === 'critique' ? run.grounding?.toolModel?.(model.languageModel, { round: n, slot: slotNumber }) : undefined;
  const ask = (text: string, deltas?: (text: string) => void) =>
    streamAnswer({
      model: tooled ? { languageModel: tooled } : model,
      system: systemOf(ctx, slot, run),
      prompt: run.grounding?.decorate(text) ?? text,
      signal: run.signal,
      timeoutMs: ctx.settings.callTimeoutMs,
      maxRetries: ctx.settings.maxRetries,
      ...(deltas && { onDelta: deltas }),
      ...(finals && { output: (run.finalOutput?.schema ?? finalPositionSchema) as z.ZodType<unknown> }),
      ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      ...(ctx.settings.sleep && { sleep: ctx.settings.sleep }),
      ...reportFailures(ctx, run, slot, n),
    });
  let result = await ask(prompt, onDelta);
  let cost = run.account(result.usage, slot);
  let usage = result.usage;
  let latencyMs = result.latencyMs;
  let repaired: string | undefined;
  // A final answer that did not meet the schema is asked once more, with what was wrong (as the verdict is). The
  // repair's text is not streamed: the answer's completed event carries it whole.
  if (finals && result.error?.code === 'invalid_output' && !run.signal.aborted) {
    repaired = result.error.message;
    const first = result;
    result = await ask(repairPrompt(prompt, first.text, first.error!.message));
    cost = addCost(cost, run.account(result.usage, slot));
    usage = addUsage(usage, result.usage);
    latencyMs += result.latencyMs;
    if (result.error) result = { ...result, error: { ...result.error, attempts: first.attempts + result.attempts } };
  }
  const error = stoppedError(run, result);
  const final =
    result.object === undefined || !run.finalOutput
      ? (result.object as FinalPosition | undefined)
      : run.finalOutput.read(slotNumber, result.object);
  if (final && finals) finals.set(slotNumber, final);
  const answer: Answer = {
    slot: slotNumber,
    provider: model.provider,
    model: model.model,
    offline: model.offline,
    round: n,
    // The final round's answer is its position; raw JSON only when it could not be read.
    text: final ? final.position : result.text,
    usage,
    latencyMs: Math.round(latencyMs),
    finishReason: result.finishReason,
    cost,
    ...(repaired !== undefined && { repaired }),
    ...(error && { error }),
  };
  if (!error) {
    const previous = ctx.latency.get(slotNumber);
    ctx.latency.set(slotNumber, previous === undefined ? answer.latencyMs : 0.7 * previous + 0.3 * answer.latencyMs);
  }
  round.answers.push(answer);
  if (error) {
    run.fail(slotNumber, n, error);
    run.log.emit({ type: 'answer.failed', round: n, slot: slotNumber, provider: model.provider, model: model.model, error });
  } else {
    run.grounding?.answered(answer);
    run.log.emit({ type: 'answer.completed', answer });
  }
  return answer;
}
