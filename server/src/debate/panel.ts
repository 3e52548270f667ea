/**
 * The panel a deep debate asks for: which slots debate (at least two; all by default), who writes
 * the verdict (any configured slot, in the panel or not; slot 1 by default), whether peers are
 * anonymous (by default) and ranked, and per-slot models from each slot's operator-set list, never
 * an arbitrary name.
 */
import type { PanelChoice, PanelModel } from '../../../sdk/src/generated/types.gen.js';
import type { SlotConfig } from '../config/slots.js';
import type { SlotModel } from '../providers/models.js';

type SlotNumber = SlotConfig['slot'];

/** One slot of the panel: its configuration and its model. */
export interface PanelSlot {
  config: SlotConfig;
  model: SlotModel;
}

/** What a request may say about its panel; every field optional. */
export interface PanelRequest {
  slots?: readonly number[];
  synthesizer?: number;
  anonymous?: boolean;
  ranking?: boolean;
  models?: readonly PanelModel[];
}

/** A request's mistakes, as the problem's `errors` (path under the body); empty when it is valid. */
export function panelProblems(configured: readonly PanelSlot[], request: PanelRequest): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const known = new Set(configured.map((p) => p.config.slot));
  if (request.slots !== undefined) {
    const distinct = new Set(request.slots);
    if (distinct.size < 2) problems.push({ path: 'body.slots', message: 'A debate needs at least two distinct slots.' });
    for (const [i, s] of request.slots.entries()) {
      if (!known.has(s as SlotNumber)) problems.push({ path: `body.slots.${i}`, message: `Slot ${s} is not configured.` });
    }
  }
  if (request.synthesizer !== undefined && !known.has(request.synthesizer as SlotNumber)) {
    problems.push({ path: 'body.synthesizer', message: `Slot ${request.synthesizer} is not configured.` });
  }
  const chosen = new Set<number>();
  for (const [i, m] of (request.models ?? []).entries()) {
    const slot = configured.find((p) => p.config.slot === m.slot);
    if (chosen.has(m.slot)) problems.push({ path: `body.models.${i}.slot`, message: `Slot ${m.slot} is given a model twice.` });
    chosen.add(m.slot);
    if (!slot) continue;
    const allowed = [slot.config.model, ...(slot.config.models ?? [])];
    if (!allowed.includes(m.model)) {
      problems.push({
        path: `body.models.${i}.model`,
        message: `Slot ${m.slot} may use ${allowed.map((a) => `"${a}"`).join(', ')}; "${m.model}" is not on its list.`,
      });
    }
  }
  return problems;
}

/** The request with defaults filled in, as the session records it (and a follow-up inherits it). */
export function panelChoice(configured: readonly PanelSlot[], request: PanelRequest): PanelChoice {
  const slots = request.slots
    ? ([...new Set(request.slots)].sort((a, b) => a - b) as SlotNumber[])
    : configured.map((p) => p.config.slot);
  // A model named for a slot that keeps its configured one changes nothing: not recorded.
  const models = (request.models ?? []).filter((m) => configured.find((p) => p.config.slot === m.slot)?.config.model !== m.model);
  return {
    slots,
    ...(request.synthesizer !== undefined && { synthesizer: request.synthesizer as SlotNumber }),
    anonymous: request.anonymous ?? true,
    ranking: request.ranking ?? false,
    ...(models.length > 0 && { models: models.map((m) => ({ slot: m.slot, model: m.model })) }),
  };
}

/**
 * The slots a choice names, in slot order, each with the model asked for (made by `modelFor`,
 * once per slot and model), and the synthesizer's slot the same way.
 */
export class PanelResolver {
  readonly #made = new Map<string, PanelSlot>();

  constructor(
    readonly configured: readonly PanelSlot[],
    readonly modelFor: ((config: SlotConfig) => SlotModel) | undefined,
  ) {}

  slot(number: number, choice: PanelChoice): PanelSlot | undefined {
    const base = this.configured.find((p) => p.config.slot === number);
    if (!base) return undefined;
    const model = choice.models?.find((m) => m.slot === number)?.model;
    if (model === undefined || model === base.config.model || !this.modelFor) return base;
    const key = `${number}/${model}`;
    let made = this.#made.get(key);
    if (!made) {
      const config = { ...base.config, model };
      made = { config, model: this.modelFor(config) };
      this.#made.set(key, made);
    }
    return made;
  }

  panel(choice: PanelChoice): PanelSlot[] {
    return choice.slots.flatMap((n) => this.slot(n, choice) ?? []);
  }
}
