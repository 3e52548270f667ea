import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PositionStream } from './position-stream.js';

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
