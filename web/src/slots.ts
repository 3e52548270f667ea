/**
 * Each slot's identity on screen: a colour (CSS `--slot-N` variables, tuned for AA contrast in both themes, see
 * styles.css) plus a letter and a shape, so models are told apart without colour. The same mapping is used in every
 * view, by slot number, whatever provider a slot is configured with.
 */
export interface SlotLook {
  /** The CSS class that sets `--c` (the slot's colour) for the element and its children. */
  className: string;
  /** A shape drawn before the name: the second cue besides colour. */
  shape: string;
}

const SHAPES = ['●', '■', '▲', '◆', '★'];

export const slotLook = (slot: number): SlotLook => ({
  className: `slot slot-${((slot - 1) % 5) + 1}`,
  shape: SHAPES[(slot - 1) % 5] ?? '●',
});
