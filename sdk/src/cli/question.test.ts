import { describe, expect, it } from 'vitest';
import type { Consilium } from '../facade/consilium.js';
import type { Context } from './context.js';
import { question, slotProvider } from './question.js';

const withPositionals = (positionals: string[]) => ({ parsed: { positionals, flags: new Map() } }) as unknown as Context;

describe('the question and the slot', () => {
  it('takes exactly one non-blank question', () => {
    expect(question(withPositionals(['Why?']), 'ask')).toBe('Why?');
    expect(() => question(withPositionals(['Why', 'not?']), 'ask')).toThrow('unexpected argument: not? (quote the question)');
  });

  it.each(['ask', 'debate', 'parallel'] as const)('without one, `%s` suggests itself with a question', (command) => {
    for (const positionals of [[], [' ']]) {
      expect(() => question(withPositionals(positionals), command)).toThrow(
        `missing the question, e.g. consilium ${command} "Should we rewrite it in Rust?"`,
      );
    }
  });

  it("names a slot's provider, or the server's slots when it has no such slot", async () => {
    const consilium = {
      providers: async () => ({
        slots: [
          { slot: 1, provider: 'anthropic' },
          { slot: 2, provider: 'openai' },
        ],
      }),
    } as unknown as Consilium;
    await expect(slotProvider(consilium, 2)).resolves.toBe('openai');
    await expect(slotProvider(consilium, 7)).rejects.toThrow('no slot 7 on this server; its slots are 1 (anthropic), 2 (openai)');
  });
});
