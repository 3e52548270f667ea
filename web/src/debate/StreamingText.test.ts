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

  it('leaves text without a newline in one block', () => {
    expect(blocksOf('x'.repeat(5000))).toEqual(['x'.repeat(5000)]);
  });
});
