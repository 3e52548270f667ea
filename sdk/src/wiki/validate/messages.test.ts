/**
 * The messages of the validator's errors: what a caller reads when a value is refused (the code is
 * MediaWiki's; the message is ours). Each names the parameter and says what would be accepted.
 */
import { describe, expect, it } from 'vitest';
import { type ParamInfo, WikiParamError } from '../types.js';
import { BOOLEAN_WORDS_TYPE } from './core.js';
import { validateParam } from './registry.js';

const p = (type: ParamInfo['type'], extra: Partial<ParamInfo> = {}): ParamInfo => ({ name: 'foo', type, ...extra });

function refusal(settings: ParamInfo, raw: string | undefined, options = {}): [string, string] {
  try {
    validateParam(settings, raw, { param: 'xxfoo', module: 'query+x', options });
  } catch (e) {
    if (e instanceof WikiParamError) return [e.code, e.message];
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('error messages', () => {
  it('say which parameter and what it accepts', () => {
    const cases: [ParamInfo, string | undefined, [string, string]][] = [
      [p('string', { required: true }), undefined, ['missingparam', 'The "xxfoo" parameter must be set.']],
      [p('string', { required: true }), '', ['missingparam', 'The "xxfoo" parameter must be set.']],
      [p('string', { maxbytes: 3 }), 'éé', ['maxbytes', 'Parameter "xxfoo" cannot be longer than 3 bytes; it has 4.']],
      [p('string', { maxchars: 1 }), 'éé', ['maxchars', 'Parameter "xxfoo" cannot be longer than 1 characters; it has 2.']],
      [
        p(['a', 'b']),
        'c',
        ['badvalue', 'Unrecognized value for parameter "xxfoo": c. Only one value may be given. Allowed: a, b.'],
      ],
      [
        p(['a', 'b']),
        '\u001fa\u001fb',
        ['badvalue', 'Parameter "xxfoo" does not take multiple values (U+001F-separated value given).'],
      ],
      [p('integer'), '1.5', ['badinteger', 'Invalid value "1.5" for integer parameter "xxfoo".']],
      [p('integer', { min: 1, max: 10 }), '11', ['outofrange', 'Invalid value "11" for parameter "xxfoo": must be in 1 … 10.']],
      [p('integer', { max: 10 }), '11', ['outofrange', 'Invalid value "11" for parameter "xxfoo": must be in −∞ … 10.']],
      [p('integer', { min: 1 }), '0', ['outofrange', 'Invalid value "0" for parameter "xxfoo": must be in 1 … ∞.']],
      [
        p(BOOLEAN_WORDS_TYPE as ParamInfo['type']),
        'maybe',
        ['badbool', 'Invalid value "maybe" for boolean parameter "xxfoo": use true or false.'],
      ],
      [
        p('string', { multi: true, lowlimit: 2, highlimit: 3 }),
        'a|b|c',
        ['toomanyvalues', 'Too many values supplied for parameter "xxfoo". The limit is 2.'],
      ],
    ];
    for (const [settings, raw, expected] of cases) {
      expect(refusal({ ...settings, ...(expected[0] === 'outofrange' && { 'x-ignoreRange': false }) }, raw), String(raw)).toEqual(
        expected,
      );
    }
  });

  it('list the allowed values up to 20, and not past that', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `v${i}`);
    expect(refusal(p(twenty, { multi: true, 'x-ignoreUnrecognizedValues': false }), 'v0|nope')[1]).toBe(
      `Unrecognized value for parameter "xxfoo": nope. Allowed: ${twenty.join(', ')}.`,
    );
    expect(refusal(p([...twenty, 'v20']), 'nope')[1]).toBe(
      'Unrecognized value for parameter "xxfoo": nope. Only one value may be given.',
    );
  });

  it('in strict mode, name the warning that became an error', () => {
    expect(refusal(p('string', { deprecated: true }), 'x', { strict: true })).toEqual([
      'param-deprecated',
      'Warning "param-deprecated" for parameter "xxfoo" (strict mode).',
    ]);
  });
});
