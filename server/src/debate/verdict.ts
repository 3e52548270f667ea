/** The verdict: who writes it, from what, repaired once when its structure is wrong; and a synthesis of given answers. */
import type { Answer, PositionChange, Session, Synthesizer, Verdict } from '../../../sdk/src/generated/types.gen.js';
import { type AnswerResult, streamAnswer } from '../providers/call.js';
import { bounded, type EngineContext, panelOf, reportFailures, systemOf } from './context.js';
import { FieldStream } from './position-stream.js';
import {
  type FinalPosition,
  type QuotedAnswer,
  repairPrompt,
  synthesisPrompt,
  type VerdictDraft,
  verdictDraftSchema,
} from './prompts.js';
import { rankingNote } from './ranking.js';
import { type Run, sorted, stoppedError } from './run.js';
import type { Slot } from './settings.js';

type SlotNumber = Answer['slot'];

export async function synthesizeDebate(
  ctx: EngineContext,
  run: Run,
  finals: ReadonlyMap<SlotNumber, FinalPosition>,
  rounds: number,
): Promise<void> {
  const transcript = run.rounds.map((r) => ({
    number: r.number,
    answers: r.answers.filter((a) => !a.error).map((a) => ({ slot: a.slot, provider: a.provider, text: a.text })),
  }));
  const participants = new Set(run.rounds.flatMap((r) => r.answers.filter((a) => !a.error).map((a) => a.slot)));
  const lastRound = run.rounds.at(-1);
  const healthy = new Set(lastRound?.answers.filter((a) => !a.error).map((a) => a.slot));
  const changes: PositionChange[] = [];
  for (const { config } of panelOf(ctx, run)) {
    const slot = config.slot;
    const final = finals.get(slot);
    if (final) changes.push({ slot, changed: final.changed, round: rounds, reason: oneLine(final.changeReason) });
    else changes.push({ slot, changed: false, reason: 'No final position: the model did not complete the final round.' });
  }
  await writeVerdict(ctx, run, transcript, participants, healthy, changes);
}

/**
 * The verdict: the synthesizer the request chose (any slot, in the panel or not), else the panel's
 * first slot (slot 1 on a full panel), writes it unless it is down (it debated and failed the last
 * round, or fails now); then the next healthy panel slot does, and the verdict says so. Output that
 * fails validation gets one repair attempt; after that the raw text is kept as an `unstructured`
 * verdict, never invented.
 */
export async function writeVerdict(
  ctx: EngineContext,
  run: Run,
  transcript: { number: number; answers: QuotedAnswer[] }[],
  participants: ReadonlySet<SlotNumber>,
  healthy: ReadonlySet<SlotNumber>,
  positionChanges: PositionChange[] | undefined,
): Promise<void> {
  const panel = panelOf(ctx, run);
  const chosen = run.choice?.synthesizer;
  const first = (chosen !== undefined && run.choice ? ctx.resolver.slot(chosen, run.choice) : undefined) ?? panel[0]!;
  const debated = panel.some((p) => p.config.slot === first.config.slot);
  const firstDown = run.mode === 'deep' && debated && !healthy.has(first.config.slot);
  const candidates = [
    ...(firstDown ? [] : [first]),
    ...panel.filter((p) => p.config.slot !== first.config.slot && (run.mode !== 'deep' || healthy.has(p.config.slot))),
  ];
  const consensusNote = [consensusOf(run), ...unattributed(run), ...run.rankings.map(rankingNote)].join('\n\n');
  const parts = transcript.flatMap((r) => r.answers.map((a) => ({ slot: a.slot as SlotNumber, round: r.number, text: a.text })));
  const promptFor = (slot: Slot) =>
    bounded(ctx, run, slot, 0, parts, (texts) => {
      let i = 0;
      const cut = transcript.map((r) => ({ number: r.number, answers: r.answers.map((a) => ({ ...a, text: texts[i++]! })) }));
      const asked = synthesisPrompt(run.question, cut, consensusNote, run.thread?.context);
      return run.grounding?.decorate(asked) ?? asked;
    });
  const validSlots = new Set(participants);
  const validRounds = new Set(transcript.map((r) => r.number));

  for (const slot of candidates) {
    if (run.signal.aborted) return;
    const slotNumber = slot.config.slot;
    const synthesizer: Synthesizer = {
      slot: slotNumber,
      provider: slot.model.provider,
      model: slot.model.model,
      reason: slot !== first ? 'fallback' : chosen !== undefined ? 'chosen' : 'default',
      participated: participants.has(slotNumber),
      ...(slot !== first && { fallbackFrom: first.config.slot }),
    };
    const prompt = promptFor(slot);
    run.log.emit({ type: 'synthesis.started', synthesizer });
    let result = await callVerdict(ctx, run, slot, prompt, 1);
    if (result.error?.code === 'invalid_output') {
      const repaired = await callVerdict(ctx, run, slot, repairPrompt(prompt, result.text, result.error.message), 2);
      result = repaired.error?.code === 'invalid_output' || !repaired.error ? repaired : result;
    }
    const error = stoppedError(run, result);
    if (result.object) {
      run.verdict = verdictOf(run, synthesizer, slot.model.offline, result.object, validSlots, validRounds, positionChanges);
    } else if (error?.code === 'invalid_output') {
      // Still invalid after the repair: name the failure (round 0 = synthesis) before the verdict
      // copies the reasons, or the verdict says `degraded: true` with no slot and no reason.
      run.fail(slotNumber, 0, error);
      run.verdict = verdictOf(
        run,
        synthesizer,
        slot.model.offline,
        undefined,
        validSlots,
        validRounds,
        positionChanges,
        result.text,
      );
    } else if (error) {
      run.fail(slotNumber, 0, error);
      continue;
    }
    if (run.verdict && run.grounding) run.verdict = run.grounding.verdict(run.verdict);
    if (run.verdict) run.log.emit({ type: 'verdict', verdict: run.verdict });
    return;
  }
  if (!run.signal.aborted) run.error ??= 'no_synthesizer: every slot that could write the verdict failed';
}

/** The consensus as the verdict is told it: never an empty one that reads as "nothing contested" when its holders were unreadable. */
function consensusOf(run: Run): string {
  const c = run.consensus;
  if (!c) return 'There is no consensus report: the debate ended before its final round completed.';
  if (c.agreements.length === 0 && c.disagreements.length === 0 && run.unmatchedLabels.length > 0)
    return 'There is no consensus report: no view the final answers reported could be credited to a panel member.';
  return `The final round's consensus:\n${JSON.stringify({ agreements: c.agreements, disagreements: c.disagreements })}`;
}

/** Views credited to holders that match no panel member: told apart, so they are weighed as no one's. */
function unattributed(run: Run): string[] {
  if (run.unmatchedLabels.length === 0) return [];
  const views = run.unmatchedLabels.map((u) => ({ statement: u.statement, holder: u.text }));
  return [
    `These views were credited to holders that match no panel member; they count for no one and are not agreement:\n${JSON.stringify(views)}`,
  ];
}

/** One synthesizer call; its summary and answer stream as `verdict.delta` events as they are written. */
function callVerdict(
  ctx: EngineContext,
  run: Run,
  slot: Slot,
  prompt: string,
  attempt: 1 | 2,
): Promise<AnswerResult<VerdictDraft>> {
  const fields = new FieldStream(['summary', 'answer'] as const);
  return streamAnswer({
    onDelta: (text) => {
      for (const { field, delta } of fields.push(text)) run.log.verdictDelta(slot.config.slot, attempt, field, delta);
    },
    model: slot.model,
    system: systemOf(ctx, slot, run),
    prompt,
    signal: run.signal,
    timeoutMs: ctx.settings.callTimeoutMs,
    maxRetries: ctx.settings.maxRetries,
    output: verdictDraftSchema,
    ...(ctx.settings.sleep && { sleep: ctx.settings.sleep }),
    ...reportFailures(ctx, run, slot, 0),
  }).then((result) => {
    run.account(result.usage, slot);
    return result;
  });
}

function verdictOf(
  run: Run,
  synthesizer: Synthesizer,
  offline: boolean,
  draft: VerdictDraft | undefined,
  slots: ReadonlySet<number>,
  rounds: ReadonlySet<number>,
  positionChanges: PositionChange[] | undefined,
  rawText?: string,
): Verdict {
  const degradation = {
    degraded: run.missing.size > 0 || synthesizer.reason === 'fallback' || !draft,
    missingSlots: sorted(run.missing),
    reasons: [...run.reasons],
  };
  const base = { synthesizer, degradation, positionChanges: positionChanges ?? [] };
  if (!draft) return { format: 'unstructured', rawText: rawText ?? '', dissent: [], ...base };
  // The model may credit slots or rounds that gave nothing; provenance keeps only real ones.
  const keepSlots = (list: readonly number[]) => sorted(list.filter((s) => slots.has(s)) as SlotNumber[]);
  const keepRounds = (list: readonly number[]) => [...new Set(list.filter((r) => rounds.has(r)))].sort((a, b) => a - b);
  // An action listed twice (same title, in any priority) is kept once, at its highest priority.
  const titles = new Set<string>();
  const actions = (list: VerdictDraft['actions']['P0']) =>
    list
      .filter((a) => {
        const key = a.title.trim().toLowerCase();
        if (titles.has(key)) return false;
        titles.add(key);
        return true;
      })
      .map((a) => ({
        ...a,
        supportingSlots: keepSlots(a.supportingSlots),
        supportingRounds: keepRounds(a.supportingRounds),
      }));
  return {
    format: 'structured',
    summary: draft.summary,
    answer: draft.answer,
    actions: { P0: actions(draft.actions.P0), P1: actions(draft.actions.P1), P2: actions(draft.actions.P2) },
    dissent: draft.dissent.map((d) => ({ ...d, slots: keepSlots(d.slots) })).filter((d) => d.slots.length > 0),
    // A stand-in's number would read as a judgement it cannot make.
    ...(!offline && { confidence: draft.confidence }),
    ...base,
  } as Verdict;
}

export async function synthesis(
  ctx: EngineContext,
  run: Run,
  answers: readonly { slot: SlotNumber; round?: number; text: string }[],
): Promise<Session> {
  const byRound = new Map<number, QuotedAnswer[]>();
  for (const a of answers) {
    const n = a.round ?? 1;
    const provider = ctx.settings.panel.find((p) => p.config.slot === a.slot)?.config.provider ?? `slot-${a.slot}`;
    byRound.set(n, [...(byRound.get(n) ?? []), { slot: a.slot, provider, text: a.text }]);
  }
  const transcript = [...byRound.entries()].sort(([a], [b]) => a - b).map(([number, list]) => ({ number, answers: list }));
  await writeVerdict(ctx, run, transcript, new Set(answers.map((a) => a.slot)), new Set(), undefined);
  if (run.cancelled) return run.end('cancelled');
  return run.end(
    run.verdict?.format === 'structured' && run.missing.size === 0 ? 'completed' : run.verdict ? 'partial' : 'failed',
  );
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
