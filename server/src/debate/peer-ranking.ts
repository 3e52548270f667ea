/** The peer ranking: each slot that answered ranks the others' answers, anonymous and shuffled for it. */
import type { Answer, Ranking } from '../../../sdk/src/generated/types.gen.js';
import { streamAnswer } from '../providers/call.js';
import { assignLabels, labelMaps } from './anonymise.js';
import { bounded, type EngineContext, reportFailures, systemOf } from './context.js';
import { rankingPrompt } from './prompts.js';
import { ballotOf, rankingOf, rankingSchema } from './ranking.js';
import { type Run, stoppedError } from './run.js';
import type { Slot } from './settings.js';

/**
 * The peer ranking after round `round`: each slot that answered ranks the others' answers, anonymous
 * and shuffled for it, never its own. A ballot that fails or does not rank exactly what it was shown
 * is missing, with why (and the slot's failure is the session's, as a failed answer's is); an
 * offline stand-in has no judgement to give, so it is not asked.
 */
export async function rankPeers(
  ctx: EngineContext,
  run: Run,
  panel: readonly Slot[],
  answers: readonly Answer[],
  round: number,
): Promise<void> {
  const bySlot = new Map(answers.map((a) => [a.slot, a]));
  const rankers = panel.filter((p) => bySlot.has(p.config.slot));
  const labels = assignLabels(
    rankers.map((p) => p.config.slot),
    [...bySlot.keys()],
    ctx.random,
  );
  run.labels.push(...labelMaps(round, 'ranking', labels));
  const ballots: Ranking['ballots'] = [];
  const missing: Ranking['missing'] = [];
  await Promise.all(
    rankers.map(async (slot) => {
      const n = slot.config.slot;
      const mine = labels.get(n) ?? [];
      if (mine.length < 2) return void missing.push({ slot: n, reason: 'fewer than two other answers to rank' });
      if (slot.model.offline) return void missing.push({ slot: n, reason: 'an offline stand-in cannot judge answers' });
      const quoted = mine.map((l) => ({ slot: l.slot, provider: '', text: bySlot.get(l.slot)!.text, label: l.label, round }));
      const prompt = bounded(ctx, run, slot, round, quoted, (texts) =>
        rankingPrompt(
          run.question,
          round,
          quoted.map((q, i) => ({ ...q, text: texts[i]! })),
          run.thread?.context,
        ),
      );
      const result = await streamAnswer({
        model: slot.model,
        system: systemOf(ctx, slot, run),
        prompt,
        signal: run.signal,
        timeoutMs: ctx.settings.callTimeoutMs,
        maxRetries: ctx.settings.maxRetries,
        output: rankingSchema,
        ...(ctx.settings.sleep && { sleep: ctx.settings.sleep }),
        ...reportFailures(ctx, run, slot, round),
      });
      run.account(result.usage, slot);
      const error = stoppedError(run, result);
      if (!result.object || error) {
        const e = error ?? { code: 'invalid_output' as const, message: 'no ranking', retryable: false, attempts: 1 };
        if (!run.cancelled) run.fail(n, round, { ...e, message: `ranking: ${e.message}` });
        return void missing.push({ slot: n, reason: `${e.code}: ${e.message}` });
      }
      const ballot = ballotOf(result.object, n, mine);
      if ('invalid' in ballot) {
        run.fail(n, round, { code: 'invalid_output', message: `ranking: ${ballot.invalid}`, retryable: false, attempts: 1 });
        return void missing.push({ slot: n, reason: `invalid ranking: ${ballot.invalid}` });
      }
      ballots.push(ballot);
    }),
  );
  if (run.cancelled) return;
  const ranking = rankingOf(round, ballots, missing, [...bySlot.keys()]);
  run.rankings.push(ranking);
  run.log.emit({ type: 'ranking', ranking });
}
