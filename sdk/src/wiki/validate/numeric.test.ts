import { describe, expect, it } from 'vitest';
import { type ParamInfo, WikiParamError } from '../types.js';
import { LIBRARY_POLICY, type ValidateContext } from './context.js';
import { INT64_MAX, integerValue, parseInteger } from './numeric.js';
import { validateParam } from './registry.js';

const int = (extra: Partial<ParamInfo> = {}): ParamInfo => ({ name: 'n', type: 'integer', ...extra });
const limit = (extra: Partial<ParamInfo> = {}): ParamInfo => ({
  name: 'limit',
  type: 'limit',
  max: 500,
  highmax: 5000,
  ...extra,
});
const ctx = (extra: Partial<ValidateContext> = {}): ValidateContext => ({ param: 'xxlimit', ...extra });

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof WikiParamError) return e.code;
    throw e;
  }
  return undefined;
}

describe('parseInteger', () => {
  it('accepts an optional sign and leading zeros, nothing else', () => {
    expect(parseInteger('+7')).toBe(7n);
    expect(parseInteger('-0')).toBe(0n);
    expect(parseInteger('000123')).toBe(123n);
    for (const bad of ['', ' 1', '1 ', '1.0', '1e3', '0x10', '١', '--1', '+']) expect(parseInteger(bad)).toBeUndefined();
  });

  it('covers exactly the 64-bit range, with PHP rejecting an explicit + on PHP_INT_MAX', () => {
    expect(parseInteger('9223372036854775807')).toBe(INT64_MAX);
    expect(parseInteger('-9223372036854775808')).toBe(-INT64_MAX - 1n);
    expect(parseInteger('9223372036854775808')).toBeUndefined();
    expect(parseInteger('+9223372036854775807')).toBeUndefined();
    expect(parseInteger('+9223372036854775806')).toBe(INT64_MAX - 1n);
  });

  it('gives numbers while they are exact, decimal strings beyond', () => {
    expect(integerValue(9007199254740991n)).toBe(9007199254740991);
    expect(integerValue(9007199254740992n)).toBe('9007199254740992');
    expect(integerValue(-0n)).toBe(0);
  });
});

describe('integer ranges', () => {
  it('clamps with an outofrange warning under the Action API policy', () => {
    const r = validateParam(int({ min: 1, max: 10 }), '11', ctx());
    expect(r.value).toBe(10);
    expect(r.warnings).toEqual([{ code: 'outofrange', param: 'xxlimit', data: { min: 1, curmax: 10, max: 10, highmax: 10 } }]);
  });

  it('fails under the library policy, or with x-rangeEnforce', () => {
    expect(code(() => validateParam(int({ min: 1 }), '0', ctx({ policy: LIBRARY_POLICY })))).toBe('outofrange');
    expect(code(() => validateParam(int({ min: 1, 'x-rangeEnforce': true }), '0', ctx()))).toBe('outofrange');
    expect(validateParam(int({ min: 1, 'x-ignoreRange': true }), '0', ctx({ policy: LIBRARY_POLICY })).value).toBe(1);
  });

  it('uses highmax only with apihighlimits, and ignores highmax below max or without max', () => {
    expect(validateParam(int({ max: 2, highmax: 4 }), '3', ctx({ options: { apihighlimits: true } })).warnings).toEqual([]);
    expect(validateParam(int({ max: 2, highmax: 4 }), '5', ctx({ options: { apihighlimits: true } })).value).toBe(4);
    expect(validateParam(int({ max: 2, highmax: 1 }), '2', ctx({ options: { apihighlimits: true } })).value).toBe(2);
    expect(validateParam(int({ highmax: 1 }), '99', ctx({ options: { apihighlimits: true } })).value).toBe(99);
  });

  it('in strict mode turns the warning into an error', () => {
    expect(code(() => validateParam(int({ max: 2 }), '3', ctx({ options: { strict: true } })))).toBe('outofrange');
  });

  it('checks each value of a multi-valued parameter', () => {
    const r = validateParam(int({ multi: true, min: 0, max: 100 }), '3|966|-1|3', ctx());
    expect(r.value).toEqual([3, 100, 0]);
    expect(r.warnings.map((w) => w.code)).toEqual(['outofrange', 'outofrange']);
  });
});

describe('limit', () => {
  it('resolves max to max, or to highmax with apihighlimits', () => {
    expect(validateParam(limit(), 'max', ctx()).value).toBe(500);
    expect(validateParam(limit(), 'max', ctx({ options: { apihighlimits: true } })).value).toBe(5000);
    expect(validateParam(limit({ highmax: undefined }), 'max', ctx({ options: { apihighlimits: true } })).value).toBe(500);
  });

  it('keeps max with parseLimit: false, and PHP_INT_MAX when there is no max', () => {
    expect(validateParam(limit(), 'max', ctx({ parseLimit: false })).value).toBe('max');
    expect(validateParam(limit({ max: undefined, highmax: undefined }), 'max', ctx()).value).toBe('9223372036854775807');
  });

  it('has a minimum of 0 by default, is never multi-valued, and is case-sensitive about max', () => {
    expect(validateParam(limit(), '-1', ctx()).value).toBe(0);
    expect(validateParam(limit({ multi: true }), '5', ctx()).value).toBe(5);
    expect(code(() => validateParam(limit(), 'MAX', ctx()))).toBe('badinteger');
    expect(code(() => validateParam(limit(), '5|6', ctx()))).toBe('badinteger');
  });
});

describe('bounds (NumericDef::normalizeSettings)', () => {
  it('reads bounds given as decimal strings or bigints, as numbers', () => {
    const strict = ctx({ policy: LIBRARY_POLICY });
    for (const max of [10, '10', 10n] as unknown[]) {
      expect(validateParam(int({ max } as unknown as Partial<ParamInfo>), '10', strict).value, String(max)).toBe(10);
      expect(() => validateParam(int({ max } as unknown as Partial<ParamInfo>), '11', strict), String(max)).toThrow(
        WikiParamError,
      );
    }
    // Bounds that are no integer at all are no bounds.
    expect(validateParam(int({ max: 'ten' } as unknown as Partial<ParamInfo>), '11', strict).value).toBe(11);
    expect(validateParam(int({ max: Number.NaN }), '11', strict).value).toBe(11);
  });

  it('highmax applies only with apihighlimits, is at least max, and is max when absent', () => {
    const high = ctx({ options: { apihighlimits: true } });
    expect(validateParam(limit(), 'max', high).value).toBe(5000);
    expect(validateParam(limit(), '600', high).value).toBe(600);
    expect(validateParam(limit(), '600', ctx()).value).toBe(500);
    // highmax below max: max.
    expect(validateParam(limit({ highmax: 100 }), 'max', high).value).toBe(500);
    expect(validateParam(limit({ highmax: 100 }), '400', high).value).toBe(400);
    // No highmax: max, with or without apihighlimits.
    expect(validateParam(limit({ highmax: undefined }), 'max', high).value).toBe(500);
    expect(validateParam(limit({ highmax: undefined }), '600', high).value).toBe(500);
  });
});

describe('bounds that are not numbers', () => {
  it('null, objects and text that is no integer are no bound', () => {
    for (const bad of [null, {}, 'abc', true]) {
      const settings = int({ min: bad, max: bad, highmax: bad } as unknown as Partial<ParamInfo>);
      expect(validateParam(settings, '-1', ctx())).toEqual({ value: -1, warnings: [] });
      expect(validateParam(settings, '99', ctx({ options: { apihighlimits: true } }))).toEqual({ value: 99, warnings: [] });
      expect(validateParam(limit({ max: bad, highmax: bad } as unknown as Partial<ParamInfo>), 'max', ctx()).value).toBe(
        '9223372036854775807',
      );
    }
  });
});

describe('highmax without max', () => {
  it('is no bound: max stays the 64-bit maximum, and errors report no highmax', () => {
    const noMax = limit({ max: undefined, highmax: 5000 });
    expect(validateParam(noMax, 'max', ctx({ options: { apihighlimits: true } })).value).toBe('9223372036854775807');
    expect(validateParam(noMax, '6000', ctx({ options: { apihighlimits: true } }))).toEqual({ value: 6000, warnings: [] });
    let data: unknown;
    try {
      validateParam(int({ min: 1, highmax: 5 }), '0', ctx({ policy: LIBRARY_POLICY }));
    } catch (e) {
      data = (e as WikiParamError).data;
    }
    expect(data).toEqual({ min: 1, curmax: null, max: null, highmax: null });
  });
});
