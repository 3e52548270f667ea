/**
 * The peer ranking: each model ranks the others' anonymous answers (never its own: its prompt does
 * not hold it), its ballot is checked against the labels it was shown, and a Borda count aggregates
 * the ballots. A ballot that is missing or does not rank exactly the answers shown is listed as
 * missing with why, never repaired by guessing.
 */
import { z } from 'zod';
import type { Ballot, RankEntry, Ranking } from '../../../sdk/src/generated/types.gen.js';
import type { Labelled } from './anonymise.js';

type SlotNumber = Ballot['slot'];

/** What a ranking call returns. */
export const rankingSchema = z.object({
  ranking: z
    .array(
      z.object({
        response: z.string().min(1).describe('The letter of a response, e.g. "A".'),
        reason: z.string().describe('In one line, why it stands here.'),
      }),
    )
    .min(1)
    .describe('Every response you were shown, each once, best first.'),
});
export type RankingReply = z.infer<typeof rankingSchema>;

/** The ballot behind a reply, or why it cannot count. */
export function ballotOf(reply: RankingReply, ranker: SlotNumber, labels: Labelled): Ballot | { invalid: string } {
  const bySlot = new Map(labels.map((l) => [l.label as string, l.slot]));
  const seen = new Set<string>();
  const order: Ballot['order'] = [];
  for (const entry of reply.ranking) {
    const label = entry.response
      .trim()
      .toUpperCase()
      .replace(/^RESPONSE\s+/, '');
    const slot = bySlot.get(label);
    if (slot === undefined) return { invalid: `ranked "${entry.response}", which it was not shown` };
    if (seen.has(label)) return { invalid: `ranked response ${label} twice` };
    seen.add(label);
    order.push({ slot, reason: oneLine(entry.reason) });
  }
  if (order.length !== labels.length) {
    const left = labels.filter((l) => !seen.has(l.label)).map((l) => l.label);
    return { invalid: `left out response${left.length > 1 ? 's' : ''} ${left.join(', ')}` };
  }
  // Never its own, even if a label somehow mapped to it.
  if (order.some((o) => o.slot === ranker)) return { invalid: 'ranked its own answer' };
  return { slot: ranker, order };
}

/**
 * The Borda count: on a ballot of k answers the first gets k−1 points, the last 0. Slots are
 * ordered by points per ballot that ranked them, so a ballot that went missing (or a slot's own,
 * which cannot rank it) does not tilt the count; equal scores share a rank (1, 2, 2, 4).
 */
export function aggregate(ballots: readonly Ballot[], candidates: readonly number[]): { aggregate: RankEntry[]; note?: string } {
  const tally = new Map<number, { points: number; ballots: number }>(candidates.map((s) => [s, { points: 0, ballots: 0 }]));
  for (const ballot of ballots) {
    const k = ballot.order.length;
    for (const [p, { slot }] of ballot.order.entries()) {
      const t = tally.get(slot) ?? { points: 0, ballots: 0 };
      t.points += k - 1 - p;
      t.ballots += 1;
      tally.set(slot, t);
    }
  }
  const rows = [...tally.entries()].map(([slot, t]) => ({
    slot: slot as SlotNumber,
    points: t.points,
    ballots: t.ballots,
    score: t.ballots === 0 ? 0 : t.points / t.ballots,
  }));
  rows.sort((a, b) => b.score - a.score || a.slot - b.slot);
  const entries: RankEntry[] = rows.map((r) => ({
    ...r,
    score: round3(r.score),
    rank: rows.findIndex((x) => x.score === r.score) + 1,
    tied: rows.filter((x) => x.score === r.score).length > 1,
  }));
  const groups = new Map<number, number[]>();
  for (const e of entries) if (e.tied) groups.set(e.rank, [...(groups.get(e.rank) ?? []), e.slot]);
  if (groups.size === 0) return { aggregate: entries };
  const ties = [...groups.entries()].map(
    ([rank, slots]) =>
      `slots ${slots.join(' and ')} share rank ${rank} (${round3(entries.find((e) => e.rank === rank)!.score)} points per ballot)`,
  );
  return {
    aggregate: entries,
    note: `Tied on Borda points per ballot, so ranked equal and listed by slot number: ${ties.join('; ')}; the next rank is skipped.`,
  };
}

/** The ranking after `round`: the ballots, who has none and why, and their Borda count. */
export function rankingOf(
  round: number,
  ballots: readonly Ballot[],
  missing: Ranking['missing'],
  candidates: readonly number[],
): Ranking {
  const sortedBallots = [...ballots].sort((a, b) => a.slot - b.slot);
  const { aggregate: entries, note } = aggregate(sortedBallots, candidates);
  return {
    round: round as Ranking['round'],
    ballots: sortedBallots,
    missing: [...missing].sort((a, b) => a.slot - b.slot),
    aggregate: entries,
    ...(note !== undefined && { note }),
  };
}

/** The ranking as the synthesizer reads it: material, with the slots named. */
export function rankingNote(ranking: Ranking): string {
  const lines = ranking.aggregate.map(
    (e) =>
      `${e.rank}. Slot ${e.slot}: ${e.points} Borda points from ${e.ballots} ballot${e.ballots === 1 ? '' : 's'}${e.tied ? ' (tied)' : ''}`,
  );
  const missing = ranking.missing.map((m) => `Slot ${m.slot} gave no usable ranking: ${m.reason}.`);
  return [
    `The panel's peer ranking of the round ${ranking.round} answers (each model ranked the others anonymously; a Borda count):`,
    ...lines,
    ...(ranking.note ? [ranking.note] : []),
    ...missing,
  ].join('\n');
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
