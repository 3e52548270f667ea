/** A small argument parser: positionals, `--flag value`, `--flag=value`, and boolean `--flag`. */

import { UsageError } from '../terminal/usage.js';

export interface Parsed {
  positionals: string[];
  /** Every `--name` given, with its value (`true` for a boolean flag). */
  flags: Map<string, string | true>;
}

/**
 * `booleans` name the flags that take no value; every other flag needs one. With `known`, any other
 * flag is an unknown option, said before anything else (so a typo is not reported as "needs a value").
 * After `--`, everything is positional. `-h` is `--help`.
 */
export function parseArgs(args: readonly string[], booleans: ReadonlySet<string>, known?: ReadonlySet<string>): Parsed {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) throw new UsageError(`unknown option: ${arg}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    if (!name) throw new UsageError(`bad option: ${arg}`);
    if (known && !known.has(name) && !booleans.has(name)) throw new UsageError(`unknown option: --${name}`);
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    if (booleans.has(name)) {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return { positionals, flags };
}

/** The flag's string value, or `undefined`; a boolean where a value is needed is a usage error. */
export function stringFlag(parsed: Parsed, name: string): string | undefined {
  const value = parsed.flags.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

/** An integer flag within bounds. */
export function intFlag(parsed: Parsed, name: string, min: number, max: number): number | undefined {
  const value = stringFlag(parsed, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** Fails on any flag not in `known`, naming it. */
export function onlyFlags(parsed: Parsed, known: readonly string[]): void {
  for (const name of parsed.flags.keys()) {
    if (!known.includes(name)) throw new UsageError(`unknown option: --${name}`);
  }
}
