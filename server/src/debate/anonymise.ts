/**
 * Anonymous peers: in critique and final rounds (and rankings) each model sees the others as
 * "Response A, B…" in an order shuffled per model and per prompt stage, so it cannot defer to a
 * name or a position it recognises. The mapping is kept so the engine can name slots again before
 * anything is stored or shown.
 *
 * The labels come from one random cyclic order of the slots and one random permutation of the
 * offsets 1…m−1: reader i's label k is the slot `offsets[k]` places after it. For a fixed label the
 * readers' slots are then all different (a shift of the cycle), and no reader is ever its own peer.
 */
import type { LabelMap, ResponseLabel } from '../../../sdk/src/generated/types.gen.js';
import type { FinalPosition } from './prompts.js';

export const LABELS: readonly ResponseLabel[] = ['A', 'B', 'C', 'D', 'E'];

/** A source of numbers in [0, 1), as `Math.random`. */
export type Random = () => number;

type SlotNumber = LabelMap['reader'];
export type Labelled = LabelMap['responses'];

function shuffle<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Each reader's labelled peers, in label order (the order its prompt shows them): every slot of
 * `quoted` but itself. A peer with nothing to quote leaves its label unused rather than shift the
 * others, so a label still never names the same slot for two readers.
 */
export function assignLabels(readers: readonly number[], quoted: readonly number[], random: Random): Map<SlotNumber, Labelled> {
  const members = [...new Set([...readers, ...quoted])].sort((a, b) => a - b) as SlotNumber[];
  const cycle = shuffle(members, random);
  const m = cycle.length;
  const offsets = shuffle(
    Array.from({ length: m - 1 }, (_, k) => k + 1),
    random,
  );
  const isQuoted = new Set(quoted);
  const out = new Map<SlotNumber, Labelled>();
  for (const [i, reader] of cycle.entries()) {
    if (!readers.includes(reader)) continue;
    const responses: Labelled = [];
    for (const [k, offset] of offsets.entries()) {
      const slot = cycle[(i + offset) % m]!;
      if (isQuoted.has(slot)) responses.push({ label: LABELS[k]!, slot });
    }
    out.set(reader, responses);
  }
  return out;
}

/** The label maps of one prompt stage, in reader order, as the session records them. */
export function labelMaps(round: number, purpose: LabelMap['purpose'], labels: ReadonlyMap<SlotNumber, Labelled>): LabelMap[] {
  return [...labels.entries()]
    .sort(([a], [b]) => a - b)
    .map(([reader, responses]) => ({ round: round as LabelMap['round'], purpose, reader, responses }));
}

/** What an anonymous final round returns: who holds a view, as "you" or a response's label. */
export interface AnonymousHolders {
  responses: readonly string[];
}

/** The slots behind `holders` for `reader`: "you" is the reader; an unknown label credits no one. */
export function slotsOf(holders: readonly string[], reader: SlotNumber, labels: Labelled): SlotNumber[] {
  const bySlot = new Map(labels.map((l) => [l.label, l.slot]));
  const out = new Set<SlotNumber>();
  for (const h of holders) {
    const key = h.trim().toUpperCase();
    if (key === 'YOU') out.add(reader);
    else {
      const slot = bySlot.get(key.replace(/^RESPONSE\s+/, '') as ResponseLabel);
      if (slot !== undefined) out.add(slot);
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** An anonymous final position with its labels mapped back to slots, ready for `mergeConsensus`. */
export function namedFinal(
  anonymous: {
    position: string;
    changed: boolean;
    changeReason: string;
    agreements: readonly { statement: string; responses: readonly string[] }[];
    disagreements: readonly { topic: string; positions: readonly { position: string; responses: readonly string[] }[] }[];
  },
  reader: SlotNumber,
  labels: Labelled,
): FinalPosition {
  return {
    position: anonymous.position,
    changed: anonymous.changed,
    changeReason: anonymous.changeReason,
    agreements: anonymous.agreements.map((a) => ({ statement: a.statement, slots: slotsOf(a.responses, reader, labels) })),
    disagreements: anonymous.disagreements.map((d) => ({
      topic: d.topic,
      positions: d.positions.map((p) => ({ position: p.position, slots: slotsOf(p.responses, reader, labels) })),
    })),
  };
}
