import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { build, NOW, options, thrown } from '../../../test/wiki/fixtures/build.js';
import { allpagesSpec, categorymembersSpec, requiredSpec } from '../../../test/wiki/fixtures/query-specs.js';
import { buildModuleParams, formatTimestamp, toRaw } from './full-path.js';
import type { ModuleSpec } from './types.js';
import { WikiParamError } from './types.js';
import { explodeMultiValue } from './validate/index.js';

const multiString: ModuleSpec = {
  name: 'ms',
  path: 'query+ms',
  group: 'list',
  prefix: 'ms',
  parameters: [{ name: 'values', type: 'string', multi: true, lowlimit: 50, highlimit: 500, limit: 50 }],
};

describe('typed value → raw string', () => {
  it('numbers in decimal, booleans as presence, Dates as ISO seconds, arrays joined, max kept', () => {
    expect(toRaw(42, 'x', 'm')).toBe('42');
    expect(toRaw(true, 'b', 'm')).toBe('1');
    expect(toRaw(false, 'b', 'm')).toBeUndefined();
    expect(toRaw(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), 'x', 'm')).toBe('2024-01-02T03:04:05Z');
    expect(toRaw(['a', 'b'], 'x', 'm')).toBe('a|b');
    expect(toRaw(['a|b', 'c'], 'x', 'm')).toBe('\u001fa|b\u001fc');
    expect(toRaw('max', 'x', 'm')).toBe('max');
    expect(toRaw(undefined, 'x', 'm')).toBeUndefined();
    expect(() => toRaw({}, 'x', 'm')).toThrow(WikiParamError);
  });

  it('formats timestamps as MediaWiki answers them', () => {
    expect(formatTimestamp(new Date('2001-02-03T04:05:06.999Z'))).toBe('2001-02-03T04:05:06Z');
    expect(formatTimestamp(new Date(Number.NaN))).toBe('Invalid Date');
  });
});

describe('buildModuleParams', () => {
  it('sends only what was given, serialized from the normalized value', () => {
    const out = build(allpagesSpec, { from: 'B', limit: 20, namespace: 4, prtype: ['move', 'edit', 'move'] });
    expect(out.params).toEqual({ apfrom: 'B', aplimit: '20', apnamespace: '4', apprtype: 'move|edit' });
    expect(out.warnings).toEqual([]);
    // defaults are known to the builder but not sent
    expect(out.values.filterredir).toBe('all');
    expect(out.values.dir).toBe('ascending');
  });

  it("resolves limit 'max' to max, or highmax with apihighlimits", () => {
    expect(build(allpagesSpec, { limit: 'max' }).params.aplimit).toBe('500');
    expect(build(allpagesSpec, { limit: 'max' }, { options: { ...options, apihighlimits: true } }).params.aplimit).toBe('5000');
  });

  it('clamps out-of-range integers with an outofrange warning, as the Action API does', () => {
    const out = build(allpagesSpec, { limit: 9999 });
    expect(out.params.aplimit).toBe('500');
    expect(out.warnings.map((w) => [w.code, w.param])).toEqual([['outofrange', 'aplimit']]);
  });

  it('throws MediaWiki codes: badvalue, badinteger, missingparam, toomanyvalues', () => {
    expect(thrown(() => build(allpagesSpec, { dir: 'up' })).code).toBe('badvalue');
    expect(thrown(() => build(allpagesSpec, { limit: 1.5 })).code).toBe('badinteger');
    expect(thrown(() => build(requiredSpec, {}))).toMatchObject({
      code: 'missingparam',
      param: 'nttitle',
      module: 'query+needstitle',
    });
    const many = Array.from({ length: 51 }, (_, i) => `v${i}`);
    expect(thrown(() => build(multiString, { values: many }))).toMatchObject({ code: 'toomanyvalues', param: 'msvalues' });
    expect(build(multiString, { values: many }, { options: { ...options, apihighlimits: true } }).params.msvalues).toBe(
      many.join('|'),
    );
  });

  it('drops unrecognized values of a multi enum with a warning, and keeps the allspecifier as given', () => {
    const out = build(categorymembersSpec, { type: ['page', 'nope'], namespace: '*' });
    expect(out.params.cmtype).toBe('page');
    expect(out.params.cmnamespace).toBe('*');
    expect(out.warnings.map((w) => w.code)).toContain('unrecognizedvalues');
  });

  it('normalizes timestamps to ISO UTC, keeps "now" for the server', () => {
    const out = build(categorymembersSpec, { start: '20240102030405', end: new Date(NOW) });
    expect(out.params.cmstart).toBe('2024-01-02T03:04:05Z');
    expect(out.params.cmend).toBe('2024-01-02T03:04:05Z');
    expect(build(categorymembersSpec, { start: 'now' }).params.cmstart).toBe('now');
    expect(thrown(() => build(categorymembersSpec, { start: 'yesterday-ish' })).code).toBe('badtimestamp');
  });

  it('joins multi values with U+001F when one holds a pipe', () => {
    expect(build(multiString, { values: ['a|b', 'c'] }).params.msvalues).toBe('\u001fa|b\u001fc');
  });

  it('round-trips any multi string value through explodeMultiValue (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 10 }), (values) => {
        const printable = values.filter((v) => !v.includes('\u001f'));
        fc.pre(printable.length > 0);
        const out = build(multiString, { values: printable }, { options: { ...options, apihighlimits: true } });
        const wire = out.params.msvalues!;
        expect(explodeMultiValue(wire, 500)).toEqual(out.values.values);
      }),
      { numRuns: 200 },
    );
  });

  it('warns unrecognizedparams (module main) for keys the module does not have, and does not send them', () => {
    const out = build(allpagesSpec, { from: 'A', bogus: 'x' });
    expect(out.params).toEqual({ apfrom: 'A' });
    expect(out.warnings).toEqual([
      { code: 'unrecognizedparams', param: 'apbogus', module: 'main', data: { params: ['apbogus'], module: 'query+allpages' } },
    ]);
  });

  it('strict turns warnings into WikiParamError', () => {
    expect(thrown(() => build(allpagesSpec, { limit: 9999 }, { options: { ...options, strict: true } }))).toMatchObject({
      code: 'outofrange',
      param: 'aplimit',
    });
  });

  it('reads a given timestamp once: one unclearnowtimestamp for "" or "0", as the API', () => {
    const spec: ModuleSpec = { ...multiString, parameters: [{ name: 'start', type: 'timestamp' }] };
    for (const start of ['', '0']) {
      const out = buildModuleParams(spec, { start }, { prefix: 'ms', options });
      expect(out.warnings).toEqual([{ code: 'unclearnowtimestamp', param: 'msstart', module: 'query+ms' }]);
      expect(out.params).toEqual({ msstart: 'now' });
    }
  });

  it('cleans a value as MediaWiki reads it (NFC, U+FFFD for forbidden characters), warns badutf8 first, sends the clean one', () => {
    const spec: ModuleSpec = { ...multiString, parameters: [{ name: 'p', type: 'string' }, ...multiString.parameters] };
    const cases: [unknown, string][] = [
      ['Cafe\u0301', 'Café'],
      ['a\u0001b', 'a\uFFFDb'],
      ['a\ud800', 'a\uFFFD'],
    ];
    for (const [given, clean] of cases) {
      const out = buildModuleParams(spec, { p: given }, { prefix: 'ms', options });
      expect(out.params).toEqual({ msp: clean });
      expect(out.warnings).toEqual([{ code: 'badutf8', param: 'msp', module: 'query+ms', data: { value: clean } }]);
    }
    // A multi value with `|` goes out U+001F-separated: each piece is cleaned, the separators stay.
    const multi = buildModuleParams(spec, { values: ['a|b', 'Cafe\u0301'] }, { prefix: 'ms', options });
    expect(multi.params).toEqual({ msvalues: '\u001fa|b\u001fCafé' });
    expect(multi.warnings.map((w) => w.code)).toEqual(['badutf8']);
    expect(buildModuleParams(spec, { p: 'Café', values: ['x\ty'] }, { prefix: 'ms', options }).warnings).toEqual([]);
  });

  it('applies the generator prefix when asked', () => {
    expect(buildModuleParams(allpagesSpec, { from: 'B' }, { prefix: 'gap' }).params).toEqual({ gapfrom: 'B' });
  });
});
