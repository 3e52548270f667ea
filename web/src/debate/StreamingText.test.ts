import { describe, expect, it } from 'vitest';
import { blocksOf } from './StreamingText.js';

describe('blocksOf', () => {
  const text = Array.from({ length: 400 }, (_, i) => `line ${i} of the answer`).join('\n');

  it('cuts after newlines into blocks that join back to the text', () => {
    const blocks = blocksOf(text);
    expect(blocks.length).toBeGreaterThan(5);
    expect(blocks.join('')).toBe(text);
    for (const block of blocks.slice(0, -1)) {
      expect(block.endsWith('\n')).toBe(true);
      expect(block.length).toBeGreaterThan(1000);
    }
  });

  it('keeps every block but the last as the text grows, so only the last changes', () => {
    const before = blocksOf(text.slice(0, 5000));
    const after = blocksOf(text.slice(0, 5200));
    expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
  });

  it('cuts text without a newline too (at a space, else anywhere), and the cuts stay as it grows', () => {
    const words = 'word '.repeat(2000);
    const blocks = blocksOf(words);
    expect(blocks.length).toBeGreaterThan(4);
    expect(blocks.join('')).toBe(words);
    for (const block of blocks.slice(0, -1)) expect(block.endsWith(' ')).toBe(true);
    const solid = blocksOf('x'.repeat(5000));
    expect(solid.join('')).toBe('x'.repeat(5000));
    expect(Math.max(...solid.map((b) => b.length))).toBeLessThanOrEqual(2000);
    for (let n = 1000; n < 10_000; n += 333) {
      const before = blocksOf(words.slice(0, n));
      expect(blocksOf(words).slice(0, before.length - 1)).toEqual(before.slice(0, -1));
    }
  });
});
