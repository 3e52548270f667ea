/**
 * What both bins (`consilium`, `consilium-wiki`) print, made safe and (on a TTY) coloured. Model output,
 * wiki text and user text are untrusted: an escape sequence in them could move the cursor, rewrite
 * earlier lines, set the window title or hide text, so every such byte is removed before printing.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST), then any other ESC pair.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]?|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]?/g;
// C0 controls except tab and newline (so also CR, which could overwrite a line), DEL, C1 controls, and
// the Unicode bidirectional overrides and isolates, which can make text read in a different order.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with the same characters `inert` removes shown instead, as visible inert marks, for a page that must show
 * what a model wrote without acting on it: a C0 control as its Unicode control picture (ESC as ␛, CR as ␍), DEL as ␡,
 * a C1 control or a bidirectional override or isolate as `⟨U+202E⟩`. Tab and newline stay.
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}

/** `text` without escape sequences or control characters (tab and newline stay). */
export function inert(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

/** `text` on one line: inert, with newlines and tabs as spaces. */
export function oneLine(text: string): string {
  return inert(text).replace(/\s+/g, ' ');
}

import { SLOT_COLOURS } from '../slots.js';

/** A named terminal colour, or a slot's colour (`slot-1` …), drawn from the SDK's one slot table. */
export type Colour = 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'grey' | 'bold' | 'dim' | SlotName;
type SlotName = `slot-${number}`;
const CODES: Record<Exclude<Colour, SlotName>, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  grey: [90, 39],
  bold: [1, 22],
  dim: [2, 22],
};

/** Each slot's colour, so a model keeps its colour across rounds and matches the web UI's. */
export const slotColour = (slot: number): Colour =>
  `slot-${((((slot - 1) % SLOT_COLOURS.length) + SLOT_COLOURS.length) % SLOT_COLOURS.length) + 1}`;

export interface Paint {
  readonly enabled: boolean;
  (colour: Colour, text: string): string;
}

export interface PaintOptions {
  /** 24-bit colour (`COLORTERM=truecolor`); otherwise the nearest of the 256-colour palette. */
  truecolor?: boolean;
  /** A light background: the slot table's `light` colours; its `dark` ones otherwise. */
  light?: boolean;
}

/** The SGR parameters of `#rrggbb`: exact in 24-bit, else the nearest colour of xterm's 6×6×6 cube. */
export function hexSgr(hex: string, truecolor: boolean): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  if (truecolor) return `38;2;${r};${g};${b}`;
  const level = (v: number) => (v < 48 ? 0 : v < 115 ? 1 : Math.min(5, Math.floor((v - 35) / 40)));
  return `38;5;${16 + 36 * level(r) + 6 * level(g) + level(b)}`;
}

/** Colours only when asked for: `enabled` is decided once from the TTY, `NO_COLOR` and `--no-color`. */
export function paint(enabled: boolean, options: PaintOptions = {}): Paint {
  const fn = (colour: Colour, text: string) => {
    if (!enabled) return text;
    if (colour.startsWith('slot-')) {
      const entry = SLOT_COLOURS[Number(colour.slice(5)) - 1] ?? SLOT_COLOURS[0]!;
      return `\u001b[${hexSgr(options.light ? entry.light : entry.dark, options.truecolor ?? false)}m${text}\u001b[39m`;
    }
    const [open, close] = CODES[colour as Exclude<Colour, SlotName>];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  };
  return Object.assign(fn, { enabled });
}

/** How this terminal shows colour, from its environment: 24-bit when it says so, light when `COLORFGBG` says its background is. */
export function paintOptions(env: Record<string, string | undefined>): PaintOptions {
  const background = Number(env.COLORFGBG?.split(';').at(-1));
  return {
    truecolor: env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit',
    light: background === 7 || background === 15,
  };
}

/** Colour on a terminal, unless `NO_COLOR` is set (to anything but empty) or `TERM=dumb`. */
export function wantsColour(
  isTTY: boolean | undefined,
  env: Record<string, string | undefined>,
  flag: boolean | undefined,
): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return Boolean(isTTY) && env.TERM !== 'dumb';
}

/** The last `width` characters of `text`, on one line. */
export function tail(text: string, width: number): string {
  const line = oneLine(text).trimStart();
  return line.length <= width ? line : `…${line.slice(line.length - width + 1)}`;
}

// What JSON.stringify leaves raw although a terminal acts on it: DEL, the C1 controls (U+009B is a
// one-byte CSI), the line and paragraph separators, and the bidirectional marks, overrides and isolates.
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A JSON text with those characters written as `\uXXXX` escapes: still valid JSON that parses to the
 * same data (they can only occur inside strings), but inert on a terminal.
 */
export function escapeJson(json: string): string {
  return json.replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `value` as one line of terminal-safe JSON. */
export const jsonLine = (value: unknown): string => `${escapeJson(JSON.stringify(value))}\n`;

/** The width to draw in: a terminal that reports 0 or nothing (`stty cols 0`, a serial line) gets 80. */
export const terminalColumns = (columns: number | undefined): number => (columns && columns > 0 ? columns : 80);

/** Whether to redraw in place: a terminal that can move the cursor (not `TERM=dumb`). */
export const canRedraw = (isTTY: boolean | undefined, env: Record<string, string | undefined>): boolean =>
  Boolean(isTTY) && env.TERM !== 'dumb';
