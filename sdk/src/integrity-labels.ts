/** The integrity report's words: the one table the web UI and the CLI draw from, as `slots.ts` is for colours. */
import type { IntegrityReport, SlotIntegrity } from './generated/types.gen.js';

/** How a slot moved from its round-1 position to its final one. */
export const MOVE_LABELS: Readonly<Record<SlotIntegrity['direction'], string>> = {
  unchanged: 'held',
  towards_majority: 'moved to the majority',
  away_from_majority: 'left the majority',
  to_other: 'moved to another slot’s position',
  new_position: 'moved to a new position',
  unknown: 'position not stated',
};

/** Each flag's name. */
export const FLAG_LABELS: Readonly<Record<IntegrityReport['flags'][number]['kind'], string>> = {
  conformity: 'Conformity',
  collapse: 'Collapse',
  dissent_kept: 'Dissent kept',
  same_family: 'Same family',
};
