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

export type Colour = 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'grey' | 'bold' | 'dim';
const CODES: Record<Colour, [number, number]> = {
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

/** Each slot's colour, so a model keeps its colour across rounds. */
const SLOT_COLOURS: readonly Colour[] = ['magenta', 'green', 'blue', 'yellow', 'cyan'];
export const slotColour = (slot: number): Colour => SLOT_COLOURS[(slot - 1) % SLOT_COLOURS.length]!;

export interface Paint {
  readonly enabled: boolean;
  (colour: Colour, text: string): string;
}

/** Colours only when asked for: `enabled` is decided once from the TTY, `NO_COLOR` and `--no-color`. */
export function paint(enabled: boolean): Paint {
  const fn = (colour: Colour, text: string) => {
    if (!enabled) return text;
    const [open, close] = CODES[colour];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  };
  return Object.assign(fn, { enabled });
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
