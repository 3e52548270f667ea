/** A deep debate's rounds, consensus and verdict, from the start or from what a continued session kept. */
import type { Answer, Round, RoundKind, Session } from '../../../sdk/src/generated/types.gen.js';
import { adaptiveDecision, adaptiveOutcome, adaptiveSaving, voteVerdict } from './adaptive.js';
import { assignLabels, type Labelled, labelMaps, namedFinal, type SlotName, type UnmatchedHolder } from './anonymise.js';
import { mergeConsensus } from './consensus.js';
import { bounded, type EngineContext, panelOf } from './context.js';
import { rankPeers } from './peer-ranking.js';
import {
  type AnonymousFinalPosition,
  anonymousFinalPositionSchema,
  critiquePrompt,
  type FinalPosition,
  finalPrompt,
  independentPrompt,
  type QuotedAnswer,
  reportsUnchanged,
} from './prompts.js';
import { runRound } from './rounds.js';
import { type DeepOptions, type Run, type StoredProgress, type StoredRun, sorted } from './run.js';
import type { Slot } from './settings.js';
import { synthesizeDebate } from './verdict.js';

type SlotNumber = Answer['slot'];

/** The rounds, the consensus and the verdict of a deep debate, going on from what `kept` holds. */
export async function debate(
  ctx: EngineContext,
  run: Run,
  options: Pick<DeepOptions, 'rounds' | 'quorum' | 'earlyStop'>,
  kept: { ended: readonly Round[]; open?: { number: number; answers: readonly Answer[] } },
): Promise<Session> {
  const rounds = options.rounds ?? 3;
  const panel = panelOf(ctx, run);
  const quorum = Math.min(options.quorum ?? ctx.settings.quorum, panel.length);
  const question = run.question;
  const context = run.thread?.context;
  const anonymous = run.choice?.anonymous === true;
  const names = panel.map((p) => ({ slot: p.config.slot, provider: p.model.provider, model: p.model.model }));

  /** Each slot's latest answer, as the others see it. */
  const latest = new Map<SlotNumber, QuotedAnswer & { round: number }>();
  const finals = new Map<SlotNumber, FinalPosition>();
  let stopped = false;
  /** The final round's number: `rounds`, or sooner after an early stop. */
  let last = run.earlyStop ? run.earlyStop.afterRound + 1 : rounds;
  for (let n = 1; n <= last; n++) {
    const kind = roundKind(n, last);
    // In slot order: a slot that first answers in a later round would otherwise come last.
    const others = (slot: SlotNumber) => [...latest.values()].filter((a) => a.slot !== slot).sort((a, b) => a.slot - b.slot);
    // Only a critique round followed by another critique round can end early.
    const positionLine = options.earlyStop === true && kind === 'critique' && n + 1 < last;
    const ended = kept.ended.find((r) => r.number === n);
    // Anonymous: each reader's peers as labels, shuffled per reader and per round (see anonymise.ts).
    const labels =
      anonymous && kind !== 'independent' && !ended
        ? assignLabels(
            panel.map((p) => p.config.slot),
            [...latest.keys()],
            ctx.random,
          )
        : undefined;
    const labelled = labels ? labelMaps(n, 'debate', labels) : [];
    run.labels.push(...labelled);
    run.finalOutput =
      labels && kind === 'final'
        ? anonymousFinal(labels, names, (reader, holder) => run.unmatchedLabels.push({ round: n, reader, ...holder }))
        : undefined;
    const prompt = (slot: Slot) => {
      if (kind === 'independent') return independentPrompt(question, context, { positionLine: true });
      const own = latest.get(slot.config.slot);
      const mine = labels?.get(slot.config.slot);
      const quoted = mine ? mine.map((l) => ({ ...latest.get(l.slot)!, label: l.label })) : others(slot.config.slot);
      return bounded(ctx, run, slot, n, [...(own ? [own] : []), ...quoted], (texts) => {
        const ownText = own ? texts[0] : undefined;
        const peers = quoted.map((q, i) => ({ ...q, text: texts[i + (own ? 1 : 0)]! }));
        return kind === 'critique'
          ? critiquePrompt(question, n, ownText, peers, { context, positionLine })
          : finalPrompt(question, n, ownText, peers, rounds === 2, context, { anonymous: labels !== undefined });
      });
    };
    let round: Round;
    if (ended) {
      round = ended;
      run.rounds.push(round);
    } else {
      const answers = kept.open?.number === n ? kept.open.answers : [];
      round = await runRound(
        ctx,
        run,
        n,
        kind,
        panel,
        prompt,
        undefined,
        kind === 'final' ? finals : undefined,
        answers,
        labelled,
      );
    }
    const answered = round.answers.filter((a) => !a.error);
    for (const a of answered) latest.set(a.slot, { slot: a.slot, provider: a.provider, text: a.text, round: n });
    const quorumMet = answered.length >= quorum;
    if (!ended) run.log.emit({ type: 'round.ended', round: n, missingSlots: round.missingSlots, quorumMet });
    // The peer ranking runs beside the next rounds; the verdict waits for it.
    if (n === 1 && quorumMet && !ended && run.choice?.ranking && !run.signal.aborted)
      run.side = rankPeers(ctx, run, panel, answered, n);
    if (run.cancelled) return run.finish('cancelled');
    if (run.overBudget) {
      stopped = true;
      break;
    }
    if (!quorumMet) {
      run.error = `quorum_not_met: round ${n} had ${answered.length} answers, the quorum is ${quorum}`;
      if (n === 1) return run.finish('failed');
      stopped = true;
      break;
    }
    if (n === 1 && run.adaptive && voted(ctx, run, panel, answered, rounds)) {
      await run.side;
      return run.end(run.missing.size === 0 ? 'completed' : 'partial');
    }
    if (positionLine && round.missingSlots.length === 0 && answered.every((a) => reportsUnchanged(a.text)))
      last = stopEarly(run, n, rounds, answered);
  }

  if (!stopped && finals.size > 0) {
    run.consensus = mergeConsensus(last, [...finals.values()], new Set(finals.keys()));
    run.log.emit({ type: 'consensus', consensus: run.consensus });
  }
  await run.side;
  if (run.overBudget) return run.end('partial');

  await synthesizeDebate(ctx, run, finals, last);
  if (run.cancelled) return run.end('cancelled');
  const complete = !stopped && run.missing.size === 0 && run.verdict?.format === 'structured' && run.consensus;
  return run.end(complete ? 'completed' : 'partial');
}

/** Every slot kept its position: the next round is the last. Returns its number. */
function stopEarly(run: Run, n: number, rounds: number, answered: readonly Answer[]): number {
  const roundsSaved = rounds - (n + 1);
  run.earlyStop = {
    afterRound: n,
    roundsSaved,
    // Estimated as this round again, once per round saved.
    callsSaved: roundsSaved * answered.length,
    tokensSaved: roundsSaved * answered.reduce((sum, a) => sum + a.usage.totalTokens, 0),
  };
  return n + 1;
}

function roundKind(round: number, rounds: number): RoundKind {
  return round === 1 ? 'independent' : round === rounds ? 'final' : 'critique';
}

/** An adaptive debate's decision after round 1; true when the answers agree and its vote is now the verdict. */
function voted(ctx: EngineContext, run: Run, panel: readonly Slot[], answered: readonly Answer[], rounds: number): boolean {
  const { threshold } = run.adaptive!;
  const decision = adaptiveDecision(answered, threshold);
  const chosen = run.choice?.synthesizer;
  const synthesizer = (chosen !== undefined && run.choice ? ctx.resolver.slot(chosen, run.choice) : undefined) ?? panel[0]!;
  const saved = decision.stop
    ? adaptiveSaving(
        { question: run.question, context: run.thread?.context, panel, synthesizer, rounds, answered },
        ctx.settings.prices,
      )
    : undefined;
  run.adaptive = adaptiveOutcome(threshold, decision, saved);
  if (!decision.stop) return false;
  const degradation = { degraded: run.missing.size > 0, missingSlots: sorted(run.missing), reasons: [...run.reasons] };
  const verdict = voteVerdict(decision, answered, degradation);
  run.verdict = run.grounding ? run.grounding.verdict(verdict) : verdict;
  run.log.emit({ type: 'verdict', verdict: run.verdict });
  return true;
}

/** How an anonymous final round is asked: labels for who holds a view, mapped back to slots per reader. */
function anonymousFinal(
  labels: ReadonlyMap<SlotNumber, Labelled>,
  names: readonly SlotName[],
  onUnmatched: (reader: SlotNumber, holder: UnmatchedHolder) => void,
): NonNullable<Run['finalOutput']> {
  return {
    schema: anonymousFinalPositionSchema,
    read: (slot, reply) =>
      namedFinal(reply as AnonymousFinalPosition, slot, labels.get(slot) ?? [], names, (holder) => onUnmatched(slot, holder)),
  };
}

/** A deep session continued: the rounds that ended are kept, the open one's finished answers too; the final round is asked again whole. */
export function continueDebate(
  ctx: EngineContext,
  run: Run,
  stored: StoredRun,
  { ended, finished }: StoredProgress,
): Promise<Session> {
  const s = stored.session;
  const last = s.earlyStop ? s.earlyStop.afterRound + 1 : s.roundsRequested;
  // The final round's structured positions (for the consensus and the verdict) are not stored.
  // A round is kept whole only when every slot it asked has its answer: a record a failover cut short may say a round
  // ended whose answers it lost.
  const asked = new Map<number, number[]>();
  for (const e of stored.progress)
    if (e.type === 'round.started') asked.set(e.round, [...(asked.get(e.round) ?? []), ...e.slots]);
  const kept: Round[] = [];
  for (let n = 1; n < last && ended.has(n); n++) {
    const round = s.rounds.find((r) => r.number === n);
    if (!round || !(asked.get(n) ?? []).every((slot) => round.answers.some((a) => a.slot === slot))) break;
    kept.push(round);
  }
  const next = kept.length + 1;
  const open = finished(next < last ? s.rounds.find((r) => r.number === next) : undefined);
  run.keep([...kept.flatMap((r) => r.answers), ...open]);
  return debate(ctx, run, { rounds: s.roundsRequested }, { ended: kept, open: { number: next, answers: open } });
}
