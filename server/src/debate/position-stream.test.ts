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

  it('merges one push’s growth of a field into one delta', () => {
    const s = new FieldStream(['answer'] as const);
    expect(s.push('{"answer":"a')).toEqual([{ field: 'answer', delta: 'a' }]);
    expect(s.push('bc\\')).toEqual([{ field: 'answer', delta: 'bc' }]);
    expect(s.push('n"}')).toEqual([{ field: 'answer', delta: '\n' }]);
  });
});
