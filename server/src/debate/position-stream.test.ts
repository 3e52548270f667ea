import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldStream, PositionStream } from './position-stream.js';

function streamAll(json: string, cuts: number[]): string {
  const s = new PositionStream();
  let out = '';
  let at = 0;
  for (const cut of [...cuts.sort((a, b) => a - b), json.length]) {
    out += s.push(json.slice(at, cut));
    at = cut;
  }
  return out;
}

/** Whitespace JSON allows between tokens, some of it empty. */
const gap = fc.constantFrom('', ' ', '\t', '\r\n', '\n ', ' \t');

/** A string as a model might escape it: character `i` as `\uXXXX` where `asUnits[i]` says so, else short or as is. */
function escaped(text: string, asUnits: boolean[]): string {
  const SHORT: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '/': '\\/',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
  };
  let out = '"';
  [...text].forEach((ch, i) => {
    // A code point past U+FFFF is two escapes, its surrogates.
    const u = Array.from({ length: ch.length }, (_, k) => `\\u${ch.charCodeAt(k).toString(16).padStart(4, '0')}`).join('');
    out += asUnits[i % asUnits.length] ? u : (SHORT[ch] ?? (ch.charCodeAt(0) < 0x20 ? u : ch));
  });
  return `${out}"`;
}

/** `json` pushed in the fragments `cuts` make: what a FieldStream yields, joined per field. */
function streamFields<K extends string>(fields: readonly K[], json: string, cuts: number[]): Record<string, string> {
  const s = new FieldStream(fields);
  const got: Record<string, string> = Object.fromEntries(fields.map((f) => [f, '']));
  let at = 0;
  for (const cut of [...cuts].sort((x, y) => x - y).concat(json.length)) {
    for (const d of s.push(json.slice(at, cut))) got[d.field] += d.delta;
    at = cut;
  }
  return got;
}

describe('PositionStream', () => {
  it('yields the top-level position, decoded, however the JSON is cut', () => {
    const value = {
      disagreements: [{ topic: 't', positions: [{ position: 'nested, not mine', slots: [1] }] }],
      position: 'Keep "flow B"\n\\ and é \u2028 😀',
      changed: true,
    };
    const json = JSON.stringify(value);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: json.length }), { maxLength: 30 }), (cuts) => {
        expect(streamAll(json, cuts)).toBe(value.position);
      }),
    );
  });

  it('yields nothing when there is no top-level position, and nothing after it ends', () => {
    const s = new PositionStream();
    expect(s.push('{"changed":false,')).toBe('');
    expect(s.push('"position":"ab')).toBe('ab');
    expect(s.push('c","x":"position\\":\\"y"}')).toBe('c');
    expect(s.push('more')).toBe('');
  });
});

describe('FieldStream', () => {
  it('yields each chosen top-level string as it grows, decoded, however the JSON is cut', () => {
    const value = {
      note: 'summary',
      summary: 'Ship "B" first;\n\\ é 😀',
      actions: { P0: [{ summary: 'nested, not the verdict’s', answer: 'no' }] },
      confidence: 0.5,
      answer: 'Flow B, \u2028 then A.',
    };
    const json = JSON.stringify(value, null, 1);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: json.length }), { maxLength: 40 }), (cuts) => {
        const s = new FieldStream(['summary', 'answer'] as const);
        const got = { summary: '', answer: '' };
        let at = 0;
        for (const cut of [...cuts.sort((a, b) => a - b), json.length]) {
          for (const d of s.push(json.slice(at, cut))) got[d.field] += d.delta;
          at = cut;
        }
        expect(got).toEqual({ summary: value.summary, answer: value.answer });
      }),
    );
  });

  it('decodes any escape and skips any whitespace a model writes, however the JSON is cut', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((t) => `${t}"\\/\b\f\n\r\t é😀`);
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.array(gap, { minLength: 12, maxLength: 12 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 30 }),
        (summary, other, asUnits, g, cuts) => {
          // The chosen field, a key and a value holding its name and escapes, and the field nested, all spaced.
          const json =
            `${g[0]}{${g[1]}${escaped('note', asUnits)}${g[2]}:${g[3]}${escaped(`"summary":${other}`, asUnits)}${g[4]},` +
            `${g[5]}"nested"${g[6]}:${g[7]}{"summary":${escaped(other, asUnits)}}${g[8]},` +
            `${g[9]}"summary"${g[10]}:${g[11]}${escaped(summary, asUnits)}}`;
          expect(JSON.parse(json).summary).toBe(summary);
          expect(
            streamFields(
              ['summary'],
              json,
              cuts.map((c) => c % (json.length + 1)),
            ),
          ).toEqual({ summary });
        },
      ),
    );
  });

  it('a backslash at the end of a fragment, in a string it does not stream, waits for what it escapes', () => {
    const s = new FieldStream(['answer'] as const);
    expect(s.push('{"x":"a\\')).toEqual([]);
    expect(s.push('","answer":"b"}')).toEqual([]);
    const t = new FieldStream(['answer'] as const);
    expect(t.push('{"x":"a\\')).toEqual([]);
    expect(t.push('"","answer":"b"}')).toEqual([{ field: 'answer', delta: 'b' }]);
  });

  it('merges one push’s growth of a field into one delta', () => {
    const s = new FieldStream(['answer'] as const);
    expect(s.push('{"answer":"a')).toEqual([{ field: 'answer', delta: 'a' }]);
    expect(s.push('bc\\')).toEqual([{ field: 'answer', delta: 'bc' }]);
    expect(s.push('n"}')).toEqual([{ field: 'answer', delta: '\n' }]);
  });
});
