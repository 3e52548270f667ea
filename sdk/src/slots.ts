/**
 * Each slot's colour, the one table the web UI and the `consilium` terminal client both draw from, so a model
 * is the same colour everywhere. By slot number, whatever provider a slot is configured with. `light` is for a
 * light background and `dark` for a dark one, each at AA contrast (≥ 4.5:1) on the web UI's backgrounds.
 */
export interface SlotColour {
  /** The colour's name, for people: "slot 1 is orange". */
  readonly name: string;
  /** `#rrggbb` on a light background. */
  readonly light: string;
  /** `#rrggbb` on a dark background. */
  readonly dark: string;
}

export const SLOT_COLOURS: readonly SlotColour[] = [
  { name: 'orange', light: '#b3471d', dark: '#ff9b6b' },
  { name: 'green', light: '#0b7a55', dark: '#4fd6a0' },
  { name: 'blue', light: '#2456c7', dark: '#8ab4ff' },
  { name: 'purple', light: '#8e3bb8', dark: '#d49bff' },
  { name: 'crimson', light: '#b0255a', dark: '#ff8ab8' },
];

/** Slot `slot`'s colour (slots past the table's end take its colours again, in order). */
export const slotColourOf = (slot: number): SlotColour =>
  SLOT_COLOURS[(((slot - 1) % SLOT_COLOURS.length) + SLOT_COLOURS.length) % SLOT_COLOURS.length]!;
