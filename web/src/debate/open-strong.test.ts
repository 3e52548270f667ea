import { describe, expect, it } from 'vitest';
import { markdown } from '../markdown-parse.js';
import { closeOpenStrong } from './open-strong.js';

const shown = (tail: string) => markdown.parse(closeOpenStrong(tail)) as string;

describe('closeOpenStrong', () => {
  it('closes bold being written, so no literal ** shows mid-stream', () => {
    expect(closeOpenStrong('Retention **matt')).toBe('Retention **matt**');
    expect(shown('Retention **matt')).toContain('<strong>matt</strong>');
    expect(shown('The **queue** and **repl')).not.toContain('**');
  });

  it('holds back an opener with nothing after it yet', () => {
    expect(closeOpenStrong('Retention **')).toBe('Retention');
    expect(shown('Retention **')).not.toContain('**');
  });

  it('leaves closed bold, code and fences as written', () => {
    for (const tail of ['The **queue** is', 'Run `a ** b` now', '```\nx = 2 ** 3', 'Run `a **', 'plain']) {
      expect(closeOpenStrong(tail)).toBe(tail);
    }
  });
});
