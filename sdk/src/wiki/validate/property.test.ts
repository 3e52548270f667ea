/**
 * Whatever string a caller hands over, validateParam either gives a value or throws a
 * WikiParamError: never anything else, for every type and for single and multi values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ParamInfo, WikiParamError } from '../types.js';
import { CANONICAL_NAMESPACES, LIBRARY_POLICY, type ValidateContext } from './index.js';
import { validateParam } from './registry.js';
import { formatIsoTimestamp, parseTimestamp } from './timestamp.js';

const SETTINGS: ParamInfo[] = [
  { name: 's', type: 'string', maxbytes: 10, maxchars: 5 },
  { name: 's', type: 'string', required: true },
  { name: 'i', type: 'integer', min: -5, max: 100, highmax: 1000 },
  { name: 'l', type: 'limit', max: 500, highmax: 5000 },
  { name: 'b', type: 'boolean' },
  { name: 'b', type: 'boolean(BooleanDef)' },
  { name: 't', type: 'timestamp' },
  { name: 'e', type: ['a', 'b', 'c|d'], deprecatedvalues: ['b'], allspecifier: '*' },
  { name: 'n', type: 'namespace', extranamespaces: [-1] },
  { name: 'u', type: 'user', subtypes: ['name', 'ip', 'cidr', 'interwiki', 'id'] },
  { name: 'p', type: 'title' },
  { name: 'x', type: 'expiry' },
];

/** Mostly printable text, with the characters the parsers care about mixed in. */
const raw = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.string({
    unit: fc.constantFrom(
      '|',
      '\u001f',
      '*',
      ':',
      '#',
      '_',
      ' ',
      '0',
      '1',
      '9',
      '-',
      '+',
      '.',
      'T',
      'Z',
      'a',
      'max',
      '::',
      '/',
      '>',
      '\u200E',
    ),
  }),
);

const contexts: ValidateContext[] = [
  { param: 'p' },
  { param: 'p', policy: LIBRARY_POLICY, options: { apihighlimits: true, strict: true } },
  { param: 'p', site: { namespaces: CANONICAL_NAMESPACES, interwikiPrefixes: ['en'], tempUserPatterns: ['~$1'] } },
];

describe('validateParam on arbitrary strings', () => {
  for (const settings of SETTINGS) {
    for (const multi of [false, true]) {
      it(`${JSON.stringify(settings.type)}${multi ? ' (multi)' : ''} validates or throws WikiParamError`, () => {
        fc.assert(
          fc.property(raw, fc.constantFrom(...contexts), (value, ctx) => {
            try {
              const r = validateParam({ ...settings, multi }, value, ctx);
              expect(Array.isArray(r.warnings)).toBe(true);
            } catch (e) {
              expect(e).toBeInstanceOf(WikiParamError);
            }
          }),
          { numRuns: 300 },
        );
      });
    }
  }
});

describe('timestamps', () => {
  it('come back unchanged from their own ISO form', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        expect(parseTimestamp(formatIsoTimestamp(ms))).toBe(ms);
      }),
    );
  });
});
