import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeForm, encodeFormComponent } from './form.js';

const viaURLSearchParams = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('encodeForm', () => {
  it('encodes as URLSearchParams does, on the characters that differ from encodeURIComponent', () => {
    const tricky = { 'a b': "x+y !'()~*-._", pipe: 'a|b', unit: '\u001fa\u001fb', amp: '&=%#?/' };
    expect(encodeForm(tricky)).toBe(viaURLSearchParams(tricky));
    expect(encodeForm(tricky)).toBe('a+b=x%2By+%21%27%28%29%7E*-._&pipe=a%7Cb&unit=%1Fa%1Fb&amp=%26%3D%25%23%3F%2F');
  });

  it('encodes UTF-8 and turns a lone surrogate into U+FFFD', () => {
    expect(encodeFormComponent('é€𝄞')).toBe('%C3%A9%E2%82%AC%F0%9D%84%9E');
    expect(encodeFormComponent('\ud800x\udc00')).toBe('%EF%BF%BDx%EF%BF%BD');
    expect(encodeFormComponent('\ud834')).toBe('%EF%BF%BD');
  });

  it('returns a string with nothing to escape as it is, and an empty object as ""', () => {
    const s = 'Abc_123';
    expect(encodeFormComponent(s)).toBe(s);
    expect(encodeForm({})).toBe('');
  });

  it('equals URLSearchParams on arbitrary UTF-16 (lone surrogates included), key order kept', () => {
    const record = fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), { maxKeys: 8 });
    fc.assert(
      fc.property(record, (params) => {
        expect(encodeForm(params)).toBe(viaURLSearchParams(params));
      }),
      { numRuns: 2000 },
    );
  });
});
