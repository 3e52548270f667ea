import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explodeMultiValue, implodeMultiValue } from './multi.js';

describe('explodeMultiValue', () => {
  it('splits on | unless the value starts with U+001F', () => {
    expect(explodeMultiValue('a|b|c', 50)).toEqual(['a', 'b', 'c']);
    expect(explodeMultiValue('\u001fa|b\u001fc', 50)).toEqual(['a|b', 'c']);
    expect(explodeMultiValue('a\u001fb', 50)).toEqual(['a\u001fb']);
  });

  it('gives no values for the empty string and a lone U+001F, empty values otherwise', () => {
    expect(explodeMultiValue('', 50)).toEqual([]);
    expect(explodeMultiValue('\u001f', 50)).toEqual([]);
    expect(explodeMultiValue('|', 50)).toEqual(['', '']);
    expect(explodeMultiValue('\u001f\u001f', 50)).toEqual(['', '']);
  });

  it("keeps the rest in the last part, like PHP's explode() limit", () => {
    expect(explodeMultiValue('a|b|c|d', 2)).toEqual(['a', 'b|c|d']);
    expect(explodeMultiValue('a|b|c', 0)).toEqual(['a|b|c']);
    expect(explodeMultiValue('a|b|c', -1)).toEqual(['a', 'b']);
  });
});

describe('implodeMultiValue', () => {
  it('joins with | or switches to U+001F when a value contains |', () => {
    expect(implodeMultiValue([])).toBe('');
    expect(implodeMultiValue(['a', 'b'])).toBe('a|b');
    expect(implodeMultiValue(['a|b', 'c'])).toBe('\u001fa|b\u001fc');
  });

  it("writes [''] as '|' (two empty values, one after deduplication)", () => {
    expect(implodeMultiValue([''])).toBe('|');
  });

  it('round-trips through explodeMultiValue', () => {
    const value = fc.string({ unit: 'binary' }).filter((v) => !v.includes('\u001f'));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (values) => {
        fc.pre(!(values.length === 1 && values[0] === ''));
        expect(explodeMultiValue(implodeMultiValue(values), values.length + 1)).toEqual(values);
      }),
    );
  });
});
