/** What `ask`, `debate` and `follow-up` read the same way: the question, and the model a slot names. */
import type { Consilium } from '../facade/consilium.js';
import { oneLine } from '../terminal/terminal.js';
import { UsageError } from '../terminal/usage.js';
import type { Context } from './context.js';

/** The provider of `slot`, checked against the server's slots before asking (a usage error names them). */
export async function slotProvider(consilium: Consilium, slot: number): Promise<string> {
  const { slots } = await consilium.providers();
  const found = slots.find((s) => s.slot === slot);
  if (!found) {
    const valid = slots.map((s) => `${s.slot} (${oneLine(s.provider)})`).join(', ');
    throw new UsageError(`no slot ${slot} on this server; its slots are ${valid || 'none'}`);
  }
  return found.provider;
}

/** The one positional argument of `command`: the question. */
export function question(ctx: Context, command: 'ask' | 'debate' | 'parallel'): string {
  const [text, ...extra] = ctx.parsed.positionals;
  if (text === undefined || text.trim() === '') {
    throw new UsageError(`missing the question, e.g. consilium ${command} "Should we rewrite it in Rust?"`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]} (quote the question)`);
  return text;
}
