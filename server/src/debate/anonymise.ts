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

/** A slot as a model may name it instead of by its label: the name the system prompt gave it ("slot 2 (anthropic)"). */
export interface SlotName {
  slot: SlotNumber;
  provider: string;
  model: string;
}

/** What one holder string of a final answer credited: the slots it names, and the parts that name no one. */
export interface ReadHolders {
  slots: SlotNumber[];
  unmatched: string[];
}

const SELF = new Set(['you', 'yourself', 'me', 'myself', 'i', 'self', 'mine', 'yours', 'own', 'my own', 'your own']);
/** Words models put before a label ("Response A", "Answer A", "Model A", "the response A"). */
const LABEL_WORDS =
  /^(?:the\s+)?(?:responses?|answers?|respondents?|models?|peers?|participants?|panel(?:ists?|\s+members?)?|members?|labels?|options?)\b\s*(?:#|no\.?\s*)?/;
/** Quotes, brackets, emphasis and closing punctuation around a label ("[A]", "(A)", "**A**", "'A'.") */
const WRAPPING = /^[\s"'`*_([{<\u2018\u201c]+|[\s"'`*_)\]}>.:;!?\u2019\u201d]+$/g;

const bare = (text: string) => text.replace(WRAPPING, '').trim();

/**
 * The slots behind `holders` for `reader`, read as models write them: "you" (or "me", "myself", "your response") is
 * the reader; a label with or without its word, in any case, bracketed or quoted ("Response A", "a", "[A]", "(A)",
 * "Answer A"); a list in one string ("A and C", "B, D"); and a slot by the name its system prompt gave it ("slot 3",
 * "slot 3 (google)", its provider or model when only one of the reader's panel has it). What names no slot of the
 * reader's is returned as `unmatched`, to be reported, never silently dropped.
 */
export function readHolders(
  holders: readonly string[],
  reader: SlotNumber,
  labels: Labelled,
  names: readonly SlotName[] = [],
): ReadHolders {
  const bySlot = new Map(labels.map((l) => [l.label.toLowerCase(), l.slot]));
  const known = new Set<number>([reader, ...labels.map((l) => l.slot)]);
  const named = names.filter((n) => known.has(n.slot));
  const unique = (key: (n: SlotName) => string, text: string) => {
    const hits = named.filter((n) => key(n).toLowerCase() === text);
    return hits.length === 1 ? hits[0]!.slot : undefined;
  };
  const one = (part: string): SlotNumber | undefined => {
    const text = bare(part).toLowerCase().replace(/\s+/g, ' ');
    const self = text.replace(/^(?:your|my)\s+(?:own\s+)?(?:response|answer|position|view)$/, 'you');
    if (SELF.has(self)) return reader;
    const label = bare(text.replace(LABEL_WORDS, ''));
    const byLabel = bySlot.get(label);
    if (byLabel !== undefined) return byLabel;
    const slot = /^slot\s*#?\s*([1-5])\b/.exec(text);
    if (slot && known.has(Number(slot[1]))) return Number(slot[1]) as SlotNumber;
    return unique((n) => n.provider, text) ?? unique((n) => n.model, text);
  };
  const out = new Set<SlotNumber>();
  const unmatched: string[] = [];
  for (const holder of holders) {
    // A whole holder first ("slot 2 (openai, gpt-4o)"), else each part of a list ("A and C", "B, D").
    const whole = one(holder);
    if (whole !== undefined) {
      out.add(whole);
      continue;
    }
    for (const part of holder.split(/\s*(?:,|;|\/|&|\+|\band\b)\s*/i).filter((p) => bare(p) !== '')) {
      const slot = one(part);
      if (slot !== undefined) out.add(slot);
      else unmatched.push(part.trim());
    }
  }
  return { slots: [...out].sort((a, b) => a - b), unmatched };
}

/** The slots behind `holders` for `reader` (see `readHolders`); what names no one credits no one. */
export function slotsOf(
  holders: readonly string[],
  reader: SlotNumber,
  labels: Labelled,
  names: readonly SlotName[] = [],
): SlotNumber[] {
  return readHolders(holders, reader, labels, names).slots;
}

/** A holder text of a final answer that named no slot: which statement it was given for, and what it said. */
export interface UnmatchedHolder {
  statement: string;
  text: string;
}

/**
 * An anonymous final position with its labels mapped back to slots, ready for `mergeConsensus`, and every holder text
 * that named no one (`onUnmatched`).
 */
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
  names: readonly SlotName[] = [],
  onUnmatched: (holder: UnmatchedHolder) => void = () => {},
): FinalPosition {
  const slots = (statement: string, holders: readonly string[]) => {
    const read = readHolders(holders, reader, labels, names);
    for (const text of read.unmatched) onUnmatched({ statement, text });
    return read.slots;
  };
  return {
    position: anonymous.position,
    changed: anonymous.changed,
    changeReason: anonymous.changeReason,
    agreements: anonymous.agreements.map((a) => ({ statement: a.statement, slots: slots(a.statement, a.responses) })),
    disagreements: anonymous.disagreements.map((d) => ({
      topic: d.topic,
      positions: d.positions.map((p) => ({ position: p.position, slots: slots(`${d.topic}: ${p.position}`, p.responses) })),
    })),
  };
}
