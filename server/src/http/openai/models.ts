/**
 * The model names an OpenAI client asks for: the council modes (`consilium/deep`, `consilium/deep-2` … `-5` for its
 * rounds, `consilium/parallel`) and one per slot (`consilium/slot-N`, or the slot's provider name). Every configured slot answers (an
 * `offline` one with the built-in offline model), so every slot is one the caller may use.
 */
import type { SlotInfo } from '../../../../sdk/src/generated/types.gen.js';

export type ModelPlan = { mode: 'deep'; rounds?: number } | { mode: 'parallel' } | { mode: 'single'; provider: string };

export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** Fixed so a listing is the same on every call (clients cache it). */
const CREATED = 1_764_547_200;

/** Every model id the caller may ask, given the configured slots. */
export function modelIds(slots: readonly Pick<SlotInfo, 'slot'>[]): string[] {
  // A debate needs two slots; every slot answers (an offline one through its stand-in).
  const council = slots.length >= 2 ? ['consilium/deep', ...[2, 3, 4, 5].map((r) => `consilium/deep-${r}`)] : [];
  return [...council, ...(slots.length > 0 ? ['consilium/parallel'] : []), ...slots.map((s) => `consilium/slot-${s.slot}`)];
}

export function modelList(slots: readonly Pick<SlotInfo, 'slot'>[]): { object: 'list'; data: ModelEntry[] } {
  return {
    object: 'list',
    data: modelIds(slots).map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'consilium' })),
  };
}

/** What a model id asks for, or `undefined` for one the caller may not use (a 404 `model_not_found`). */
export function planOf(model: string, slots: readonly Pick<SlotInfo, 'slot' | 'provider'>[]): ModelPlan | undefined {
  const name = model.startsWith('consilium/') ? model.slice('consilium/'.length) : model;
  const byProvider = slots.find((s) => s.provider === name);
  const id = byProvider ? `consilium/slot-${byProvider.slot}` : `consilium/${name}`;
  if (!modelIds(slots).includes(id)) return undefined;
  if (name === 'deep') return { mode: 'deep' };
  const rounds = /^deep-([2-5])$/.exec(name);
  if (rounds) return { mode: 'deep', rounds: Number(rounds[1]) };
  if (name === 'parallel') return { mode: 'parallel' };
  const slot = byProvider ?? slots.find((s) => `slot-${s.slot}` === name)!;
  return { mode: 'single', provider: slot.provider };
}
