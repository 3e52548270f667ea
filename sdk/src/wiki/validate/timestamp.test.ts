import { describe, expect, it } from 'vitest';
import { WikiParamError } from '../types.js';
import { validateParam } from './registry.js';
import { formatIsoTimestamp, parseTimestamp, toMwTimestamp } from './timestamp.js';

const iso = (value: string): string | undefined => {
  const ms = parseTimestamp(value);
  return ms === undefined ? undefined : formatIsoTimestamp(ms);
};

describe('parseTimestamp', () => {
  it.each([
    ['20180203040506', '2018-02-03T04:05:06Z'],
    ['2018-02-03T04:05:06Z', '2018-02-03T04:05:06Z'],
    ['2018-02-03T04:05:06,5+02:00', '2018-02-03T02:05:06.500Z'],
    ['20180203T040506.25Z', '2018-02-03T04:05:06.250Z'],
    ['2018-02-03 04:05:06', '2018-02-03T04:05:06Z'],
    ['2018-02-03 04:05:06 GMT', '2018-02-03T04:05:06Z'],
    ['2018-02-03 04:05:06 05', '2018-02-02T23:05:06Z'],
    ['2018:02:03 04:05:06', '2018-02-03T04:05:06Z'],
    ['03-02-2018 04:05:06.000000', '2018-02-03T04:05:06Z'],
    ['1517630706', '2018-02-03T04:05:06Z'],
    ['-1', '1969-12-31T23:59:59Z'],
    ['-1.25', '1969-12-31T23:59:58.750Z'],
    ['00', '1970-01-01T00:00:00Z'],
    ['Sat, 03 Feb 2018 04:05:06 +0100', '2018-02-03T03:05:06Z'],
    ['03 Feb 18 04:05:06 EST', '2018-02-03T09:05:06Z'],
    ['3 Feb 2018 04:05:06 Q', '2018-02-03T04:05:06Z'],
    ['Sat, 03 Feb 2018 04:05:06 GMT; comment', '2018-02-03T04:05:06Z'],
    ['Saturday, 03-Feb-18 04:05:06 CET', '2018-02-03T03:05:06Z'],
    ['Sat Feb  3 04:05:06 2018', '2018-02-03T04:05:06Z'],
  ])('%s', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it('overflows out-of-range fields like createFromFormat()', () => {
    expect(iso('20180230000000')).toBe('2018-03-02T00:00:00Z');
    expect(iso('2018-13-01 00:00:00')).toBe('2019-01-01T00:00:00Z');
    expect(iso('2018-01-01 24:00:00')).toBe('2018-01-02T00:00:00Z');
  });

  it('moves to the named day of week unless the date already is one', () => {
    expect(iso('Mon, 03 Feb 2018 04:05:06 GMT')).toBe('2018-02-05T04:05:06Z');
  });

  it('rejects what ConvertibleTimestamp rejects, and what TS_MW cannot hold', () => {
    for (const bad of [
      'bogus',
      '2018-02-03',
      '2018-02-03T04:05',
      '1.5e9',
      '99999999999999.1',
      'Sat, 03 Foo 2018 04:05:06',
      'Xyz, 03 Feb 2018 04:05:06',
      '2018-02-03T04:05:06 XYZ',
    ]) {
      expect(parseTimestamp(bad), bad).toBeUndefined();
    }
    expect(parseTimestamp('2014815210101')).toBeUndefined();
    expect(parseTimestamp('-99999999999')).toBeUndefined();
  });

  it('formats to ISO and TS_MW and back', () => {
    const ms = Date.UTC(2001, 0, 2, 3, 4, 5, 600);
    expect(formatIsoTimestamp(ms)).toBe('2001-01-02T03:04:05.600Z');
    expect(toMwTimestamp(ms)).toBe('20010102030405');
    expect(toMwTimestamp('2001-01-02T03:04:05.600Z')).toBe('20010102030405');
    expect(parseTimestamp(formatIsoTimestamp(ms))).toBe(ms);
    expect(() => toMwTimestamp('nope')).toThrow(RangeError);
  });
});

describe('timestamp parameters', () => {
  const now = () => Date.UTC(2019, 5, 5, 19, 50, 42, 123);
  it('takes now as the pinned current second, and warns for the unclear "" and "0"', () => {
    expect(validateParam({ name: 't', type: 'timestamp' }, 'now', { param: 't', options: { now } })).toEqual({
      value: '2019-06-05T19:50:42Z',
      warnings: [],
    });
    for (const unclear of ['', '0']) {
      const r = validateParam({ name: 't', type: 'timestamp' }, unclear, { param: 't', options: { now } });
      expect(r.value).toBe('2019-06-05T19:50:42Z');
      expect(r.warnings.map((w) => w.code)).toEqual(['unclearnowtimestamp']);
    }
  });

  it('fails with badtimestamp', () => {
    expect(() => validateParam({ name: 't', type: 'timestamp' }, 'a potato', { param: 't' })).toThrow(WikiParamError);
  });
});
