import { describe, expect, it } from 'vitest';
import { sampleRegex } from './regex-sample.js';
import { seededRng } from './seeded-random.js';

const PATTERNS = [
  '^[a-z][a-z0-9-]{0,31}$', // ProviderId in the contract
  '^\\d{3}-\\d{4}$',
  '^(P0|P1|P2)$',
  '^[A-Z]{2,3}-\\d+$',
  '^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$',
  '^#[0-9a-fA-F]{6}$',
  '^(?:https?://)?[\\w.-]+\\.example\\.(com|org)(/[\\w-]*)*$',
  '^\\w+(\\s\\w+)*$',
  'abc', // unanchored
  '^[\\d\\-+ ]{7,15}$',
  '^v\\d+\\.\\d+\\.\\d+(-[a-z]+(\\.\\d+)?)?$',
  '^(?=.*\\d)[a-z\\d]{8}$', // lookahead: enforced by the final check
  '^[\\u0041-\\u005A]+\\x21$',
  '^.{5}$',
  '^[^a-z]+$',
  '^a*?b+?c??$',
];

describe('sampleRegex', () => {
  it.each(PATTERNS)('draws strings that match %s', (pattern) => {
    const regex = new RegExp(pattern, 'u');
    let drawn = 0;
    for (let seed = 0; seed < 40; seed++) {
      const s = sampleRegex(pattern, seededRng(`${pattern}#${seed}`));
      if (s === undefined) continue;
      drawn++;
      expect(s).toMatch(regex);
    }
    // Lookaheads may need a few draws; the others succeed every time.
    expect(drawn).toBeGreaterThanOrEqual(pattern.includes('(?=') ? 10 : 40);
  });

  it('is deterministic for a seed', () => {
    const p = PATTERNS[0]!;
    expect(sampleRegex(p, seededRng('s'))).toBe(sampleRegex(p, seededRng('s')));
  });

  // A backreference, a property escape, an invalid pattern, a lookbehind no draw can satisfy.
  it.each(['^(a)\\1$', '^\\p{Lu}+$', '[unclosed', '(?<=x)y+'])('gives undefined rather than a wrong string for %s', (pattern) => {
    expect(sampleRegex(pattern, seededRng('x'))).toBeUndefined();
  });
});
