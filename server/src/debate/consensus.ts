/**
 * The final round's consensus, merged from what each model reported: the same statement (or
 * topic, or position) told by several models is one entry whose slots are the union of theirs.
 * Slots outside the panel are dropped, so a model cannot credit a view to a slot that never spoke.
 */
import type { Agreement, Consensus, Disagreement } from '../../../sdk/src/generated/types.gen.js';
import type { FinalPosition } from './prompts.js';

type SlotNumber = Agreement['slots'][number];

/** Case, spacing and closing punctuation do not make two statements different. */
export function normalizeStatement(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/, '')
    .trim();
}

class SlotSets<T> {
  readonly #entries = new Map<string, { value: T; slots: Set<SlotNumber> }>();

  add(key: string, value: () => T, slots: readonly number[], panel: ReadonlySet<number>): Set<SlotNumber> | undefined {
    const valid = slots.filter((s) => panel.has(s)) as SlotNumber[];
    if (valid.length === 0) return undefined;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { value: value(), slots: new Set() };
      this.#entries.set(key, entry);
    }
    for (const s of valid) entry.slots.add(s);
    return entry.slots;
  }

  entries(): { value: T; slots: SlotNumber[] }[] {
    return [...this.#entries.values()].map((e) => ({ value: e.value, slots: [...e.slots].sort((a, b) => a - b) }));
  }
}

export function mergeConsensus(round: number, reports: readonly FinalPosition[], panel: ReadonlySet<number>): Consensus {
  const agreements = new SlotSets<string>();
  const topics = new Map<string, { topic: string; positions: SlotSets<string> }>();
  for (const report of reports) {
    for (const a of report.agreements) {
      agreements.add(normalizeStatement(a.statement), () => a.statement.trim(), a.slots, panel);
    }
    for (const d of report.disagreements) {
      const key = normalizeStatement(d.topic);
      let topic = topics.get(key);
      if (!topic) {
        topic = { topic: d.topic.trim(), positions: new SlotSets() };
        topics.set(key, topic);
      }
      for (const p of d.positions) topic.positions.add(normalizeStatement(p.position), () => p.position.trim(), p.slots, panel);
    }
  }
  const disagreements: Disagreement[] = [];
  for (const { topic, positions } of topics.values()) {
    const merged = positions.entries().map((p) => ({ position: p.value, slots: p.slots }));
    if (merged.length > 0) disagreements.push({ topic, positions: merged });
  }
  return {
    round,
    agreements: agreements.entries().map((a) => ({ statement: a.value, slots: a.slots })),
    disagreements,
  };
}
