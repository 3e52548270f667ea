/**
 * The panel flags of `debate` and `follow-up`: `--slots 1,3,4`, `--synthesizer N`, `--ranking`,
 * `--named` (peers quoted by slot instead of anonymously) and `--models 2=gpt-4.1-mini,…` (each from the
 * slot's operator-allowed list, `consilium` shows none of its own: the server says what is allowed).
 */
import type { PanelOptions } from '../facade/consilium.js';
import { UsageError } from '../terminal/usage.js';
import { intFlag, type Parsed, stringFlag } from './args.js';

/** The flags that take a value, and the two that do not. */
export const PANEL_OPTIONS = ['slots', 'synthesizer', 'models'];
export const PANEL_BOOLEANS = ['ranking', 'named'];

/** `--slots` as slot numbers. */
export function slotList(parsed: Parsed): number[] | undefined {
  return stringFlag(parsed, 'slots')
    ?.split(',')
    .map((n) => {
      if (!/^\d{1,2}$/.test(n.trim())) throw new UsageError('--slots must be slot numbers separated by commas, e.g. 1,3');
      return Number(n);
    });
}

/** The panel options the flags give (only those given). */
export function panelFlags(parsed: Parsed): PanelOptions {
  const slots = slotList(parsed);
  const synthesizer = intFlag(parsed, 'synthesizer', 1, 99);
  const models = stringFlag(parsed, 'models')
    ?.split(',')
    .map((pair) => {
      const m = /^\s*(\d{1,2})=(\S.*?)\s*$/.exec(pair);
      if (!m) throw new UsageError('--models must be slot=model pairs separated by commas, e.g. 2=gpt-4.1-mini');
      return { slot: Number(m[1]), model: m[2]! };
    });
  return {
    ...(slots !== undefined && { slots }),
    ...(synthesizer !== undefined && { synthesizer }),
    ...(parsed.flags.has('ranking') && { ranking: true }),
    ...(parsed.flags.has('named') && { anonymous: false }),
    ...(models !== undefined && { models }),
  };
}
