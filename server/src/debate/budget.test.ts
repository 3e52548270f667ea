import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedPrompt, fitTexts, promptChars, shorten } from './budget.js';

describe('promptChars', () => {
  it('follows the provider, a slot setting overrides it, and a tiny one still leaves room', () => {
    expect(promptChars('deepseek', undefined)).toBe((64_000 - 8_000) * 3);
    expect(promptChars('ollama-qwen', undefined)).toBe((32_000 - 8_000) * 3);
    expect(promptChars('anthropic', 20_000)).toBe(36_000);
    expect(promptChars('anthropic', 1_000)).toBe(4_000);
  });
});

describe('shorten and fitTexts', () => {
  it('keeps head and tail around a marker that says how much was cut', () => {
    const text = `HEAD${'x'.repeat(10_000)}TAIL`;
    const { text: cut, kept } = shorten(text, 500);
    expect(cut.length).toBeLessThanOrEqual(500);
    expect(cut.startsWith('HEAD')).toBe(true);
    expect(cut.endsWith('TAIL')).toBe(true);
    expect(cut).toContain(`[… ${text.length - kept} characters cut here`);
  });

  it('property: short texts stay whole, the total fits, nothing is cut when it all fits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(20_000), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 2_000, max: 40_000 }),
        (lengths, available) => {
          const texts = lengths.map((n, i) => String.fromCharCode(97 + i).repeat(n));
          const fitted = fitTexts(texts, available);
          const total = lengths.reduce((a, b) => a + b, 0);
          if (total <= available) expect(fitted.map((f) => f.text)).toEqual(texts);
          expect(fitted.reduce((n, f) => n + f.text.length, 0)).toBeLessThanOrEqual(
            Math.max(available, total <= available ? total : 0) + 0,
          );
          // A text no longer than an even share is never cut.
          for (const [i, t] of texts.entries()) if (t.length <= available / texts.length) expect(fitted[i]!.text).toBe(t);
        },
      ),
    );
  });
});

describe('boundedPrompt', () => {
  it('records each cut with who read it and whose answer it was', () => {
    const build = (texts: readonly string[]) => `Q\n${texts.map((t) => `<${t}>`).join('\n')}`;
    const { prompt, cuts } = boundedPrompt(
      [
        { slot: 2, round: 1, text: 'short' },
        { slot: 3, round: 1, text: 'y'.repeat(50_000) },
      ],
      build,
      { maxChars: 10_000, overhead: 300, round: 2, reader: 1 },
    );
    expect(prompt.length + 300).toBeLessThanOrEqual(10_000);
    expect(prompt).toContain('<short>');
    expect(cuts).toEqual([{ round: 2, reader: 1, slot: 3, quotedRound: 1, chars: 50_000, keptChars: expect.any(Number) }]);
    expect(cuts[0]!.keptChars).toBeLessThan(10_000);
  });
});
