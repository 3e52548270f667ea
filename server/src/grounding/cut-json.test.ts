/**
 * A cut JSON document closed into a whole one: for every cut of a wiki-shaped answer, the result parses, keeps the
 * fields before the cut, and keeps a page's text up to it (a prefix of the original).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeCutJson, wholeCharacters } from './cut-json.js';

const answer = {
  batchcomplete: true,
  query: {
    pages: [
      {
        pageid: 12,
        ns: 0,
        title: 'Zürich "old" town',
        lastrevid: 345,
        extract: 'Line one.\nQuote: "x" \\ back; emoji 😀 and é.',
      },
      { pageid: 13, ns: 0, title: 'Empty', missing: false, revisions: [{ revid: 9, slots: { main: { content: '' } } }] },
    ],
  },
};

describe('closeCutJson', () => {
  const text = JSON.stringify(answer);

  it('closes every cut of a document into one that parses', () => {
    for (let at = 1; at <= text.length; at++) {
      const closed = closeCutJson(text.slice(0, at));
      expect(() => JSON.parse(closed), `cut at ${at}: ${closed}`).not.toThrow();
    }
    expect(JSON.parse(closeCutJson(text))).toEqual(answer);
  });

  it('keeps the fields before the cut, and the text cut in its middle up to the cut', () => {
    const at = text.indexOf('emoji');
    const page = JSON.parse(closeCutJson(text.slice(0, at))).query.pages[0];
    expect(page).toMatchObject({ pageid: 12, title: 'Zürich "old" town', lastrevid: 345 });
    expect(answer.query.pages[0]!.extract!.startsWith(page.extract)).toBe(true);
    expect(page.extract).toMatch(/back; $/);
  });

  it('drops an escape cut short rather than breaking the string', () => {
    expect(JSON.parse(closeCutJson('{"t":"a\\'))).toEqual({ t: 'a' });
    expect(JSON.parse(closeCutJson('{"t":"a\\u00'))).toEqual({ t: 'a' });
    expect(JSON.parse(closeCutJson('{"t":"a\\u00e9'))).toEqual({ t: 'aé' });
    expect(JSON.parse(closeCutJson('{"t":"a\\\\'))).toEqual({ t: 'a\\' });
    expect(JSON.parse(closeCutJson('{"t":"a\\n'))).toEqual({ t: 'a\n' });
  });

  it('drops a key, a number or a value not yet whole', () => {
    expect(JSON.parse(closeCutJson('{"a":1,"lon'))).toEqual({ a: 1 });
    expect(JSON.parse(closeCutJson('{"a":1,"b":12'))).toEqual({ a: 1 });
    expect(JSON.parse(closeCutJson('[1,2,tr'))).toEqual([1, 2]);
    expect(JSON.parse(closeCutJson('{"a":'))).toEqual({});
  });

  it('any cut of any JSON value parses', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, n) => {
        const json = JSON.stringify(value);
        if (json === undefined) return;
        const cut = json.slice(0, n % (json.length + 1));
        if (!/^[[{"]/.test(json) || cut === '') return;
        JSON.parse(closeCutJson(cut));
      }),
    );
  });
});

describe('wholeCharacters', () => {
  it('cuts back to the last whole UTF-8 character', () => {
    const bytes = new TextEncoder().encode('aé😀');
    const lengths = Array.from({ length: bytes.length + 1 }, (_, n) => wholeCharacters(bytes.subarray(0, n)).length);
    expect(lengths).toEqual([0, 1, 1, 3, 3, 3, 3, 7]);
  });
});
