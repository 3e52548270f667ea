/**
 * Each slot's identity on screen: a colour plus a letter and a shape, so models are told apart without colour. The
 * colours come from the SDK's one slot table (`SLOT_COLOURS`, which the `consilium` CLI draws from too): set on the
 * root as `--slot-N-light` / `--slot-N-dark`, and styles.css picks the theme's as `--slot-N`. The same mapping is
 * used in every view, by slot number, whatever provider a slot is configured with.
 */
import { SLOT_COLOURS } from '../../sdk/src/slots.js';

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

/**
 * The SDK's slot colours as CSS custom properties on `root`, before the first render. Through the CSSOM, which the
 * page's CSP (`style-src 'self'`) allows, unlike an inline style attribute or element.
 */
export function applySlotColours(root: HTMLElement): void {
  SLOT_COLOURS.forEach((colour, i) => {
    root.style.setProperty(`--slot-${i + 1}-light`, colour.light);
    root.style.setProperty(`--slot-${i + 1}-dark`, colour.dark);
  });
}
