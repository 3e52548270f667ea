/** The one round of a single or parallel run, and how it ends. */
import type { Answer, Round, Session } from '../../../sdk/src/generated/types.gen.js';
import type { EngineContext } from './context.js';
import { independentPrompt } from './prompts.js';
import { runRound } from './rounds.js';
import type { Run, StoredProgress, StoredRun } from './run.js';
import type { Slot } from './settings.js';

/** The round of a single or parallel run; `kept` are answers a continued run already has. */
export async function singleRound(
  ctx: EngineContext,
  run: Run,
  slots: readonly Slot[],
  options: { maxOutputTokens?: number },
  kept: readonly Answer[],
): Promise<Session> {
  const round = await runRound(
    ctx,
    run,
    1,
    'independent',
    slots,
    () => independentPrompt(run.question, run.thread?.context),
    options.maxOutputTokens,
    undefined,
    kept,
  );
  if (run.cancelled) return run.end('cancelled');
  return singleEnd(run, round, slots.length);
}

export function singleEnd(run: Run, round: Round, asked: number): Session {
  if (!run.rounds.includes(round)) run.rounds.push(round);
  // The answers' citations, told before the session ends (a deep debate tells them with its verdict).
  run.grounding?.settle?.();
  const answered = round.answers.filter((a) => !a.error).length;
  return run.end(answered === 0 ? 'failed' : answered < asked ? 'partial' : 'completed');
}

/** A single or parallel session continued: the slots that had not answered are asked, or it ends as it stood. */
export function continueSingle(
  ctx: EngineContext,
  run: Run,
  stored: StoredRun,
  { ended, finished }: StoredProgress,
): Promise<Session> | Session {
  const s = stored.session;
  const asked = new Set<number>();
  for (const e of stored.progress) {
    if (e.type === 'round.started') for (const slot of e.slots) asked.add(slot);
    else if (e.type === 'session.started' && s.mode === 'parallel') for (const slot of e.slots) asked.add(slot.slot);
  }
  const first = s.rounds.find((r) => r.number === 1);
  if (ended.has(1) && first) {
    run.keep(first.answers);
    return singleEnd(run, first, first.answers.length);
  }
  const slots = ctx.settings.panel.filter((p) => asked.has(p.config.slot));
  run.keep(finished(first));
  return singleRound(ctx, run, slots, {}, finished(first));
}
