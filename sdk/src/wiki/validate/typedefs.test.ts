/**
 * The simple TypeDefs at their edges: string length settings that are not numbers, the `NULL` type,
 * submodule and checkbox parameters (the catalogue has none, MediaWiki's modules do), and namespace
 * numbers with and without the wiki's namespaces.
 */
import { describe, expect, it } from 'vitest';
import type { SiteContext, TypeContext } from '../types.js';
import { type ParamInfo, WikiParamError } from '../types.js';
import type { ValidateContext } from './context.js';
import { validateParam } from './registry.js';
import { presenceBooleanDef, submoduleDef } from './typedefs.js';

const p = (type: ParamInfo['type'], extra: Partial<ParamInfo> = {}): ParamInfo => ({ name: 'foo', type, ...extra });
const ctx: ValidateContext = { param: 'xxfoo' };
const withSite = (site: SiteContext): ValidateContext => ({ ...ctx, site });

function refusal(settings: ParamInfo, raw: string | undefined, c: ValidateContext = ctx): WikiParamError {
  try {
    validateParam(settings, raw, c);
  } catch (e) {
    if (e instanceof WikiParamError) return e;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

const value = (settings: ParamInfo, raw: string | undefined, c: ValidateContext = ctx): unknown =>
  validateParam(settings, raw, c).value;

describe('strings', () => {
  it('ignore maxbytes and maxchars that are not finite numbers', () => {
    const long = 'x'.repeat(40);
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, '3', null]) {
      expect(value(p('string', { maxbytes: bad, maxchars: bad } as unknown as Partial<ParamInfo>), long)).toBe(long);
      // The limit that applies is reported; the other, not being a number, as null.
      expect(refusal(p('string', { maxbytes: bad, maxchars: 2 } as unknown as Partial<ParamInfo>), 'abc').data).toEqual({
        maxbytes: null,
        maxchars: 2,
      });
      expect(refusal(p('string', { maxbytes: 2, maxchars: bad } as unknown as Partial<ParamInfo>), 'abc').data).toEqual({
        maxbytes: 2,
        maxchars: null,
      });
    }
  });

  it('accept exactly maxbytes bytes and maxchars characters', () => {
    expect(value(p('string', { maxbytes: 4 }), 'éé')).toBe('éé');
    expect(refusal(p('string', { maxbytes: 3 }), 'éé').message).toBe(
      'Parameter "xxfoo" cannot be longer than 3 bytes; it has 4.',
    );
    expect(value(p('string', { maxchars: 2 }), '😀😀')).toBe('😀😀');
    expect(refusal(p('string', { maxchars: 2 }), '😀😀😀').data).toEqual({ maxbytes: null, maxchars: 2 });
    // Both at once: bytes are checked first.
    expect(refusal(p('string', { maxbytes: 4, maxchars: 1 }), 'éé').code).toBe('maxchars');
    expect(refusal(p('string', { maxbytes: 3, maxchars: 1 }), 'éé').code).toBe('maxbytes');
  });

  it('of type NULL may be empty even when required; other strings may not', () => {
    expect(validateParam(p('NULL' as ParamInfo['type'], { required: true }), '', ctx)).toEqual({ value: '', warnings: [] });
    expect(refusal(p('NULL' as ParamInfo['type'], { required: true }), undefined).code).toBe('missingparam');
    expect(refusal(p('NULL' as ParamInfo['type'], { maxbytes: 1 }), 'ab').code).toBe('maxbytes');
    for (const type of ['string', 'text', 'raw', 'password']) {
      expect(refusal(p(type as ParamInfo['type'], { required: true }), '').code).toBe('missingparam');
      expect(value(p(type as ParamInfo['type']), '')).toBe('');
    }
  });
});

describe('submodule parameters', () => {
  it('take the names from the type, else from submodules', () => {
    expect(
      value(p('submodule' as ParamInfo['type'], { submodules: { parse: 'main/parse', query: 'main/query' } }), 'query'),
    ).toBe('query');
    const e = refusal(p('submodule' as ParamInfo['type'], { submodules: { parse: 'main/parse', query: 'main/query' } }), 'edit');
    expect([e.code, e.message]).toEqual([
      'badvalue',
      'Unrecognized value for parameter "xxfoo": edit. Only one value may be given. Allowed: parse, query.',
    ]);
    expect(
      value(
        p('submodule' as ParamInfo['type'], {
          multi: true,
          allspecifier: '*',
          submodules: { parse: 'main/parse', query: 'main/query' },
        }),
        '*',
      ),
    ).toEqual(['parse', 'query']);
  });

  it('with neither a list nor a map, allow nothing', () => {
    for (const submodules of [undefined, null, 'parse']) {
      const e = refusal(p('submodule' as ParamInfo['type'], { submodules } as unknown as Partial<ParamInfo>), 'parse');
      expect([e.code, e.message]).toEqual([
        'badvalue',
        'Unrecognized value for parameter "xxfoo": parse. Only one value may be given.',
      ]);
    }
  });

  it('warn on a deprecated submodule unless it is the default', () => {
    const s = p('submodule' as ParamInfo['type'], { submodules: { a: 'x/a', b: 'x/b' }, deprecatedvalues: ['a'], default: 'a' });
    expect(validateParam(s, 'a', ctx).warnings).toEqual([{ code: 'deprecated-value', param: 'xxfoo', data: { value: 'a' } }]);
    expect(validateParam(s, undefined, ctx)).toEqual({ value: 'a', warnings: [] });
    expect(validateParam(s, 'b', ctx).warnings).toEqual([]);
  });
});

describe('enumerations', () => {
  it('warn on a deprecated value only when deprecatedvalues is a list holding it', () => {
    expect(validateParam(p(['a', 'b'], { deprecatedvalues: ['b'] }), 'a', ctx).warnings).toEqual([]);
    expect(validateParam(p(['a', 'b'], { deprecatedvalues: 'a' } as unknown as Partial<ParamInfo>), 'a', ctx).warnings).toEqual(
      [],
    );
  });
});

describe('checkbox parameters', () => {
  it('are presence booleans: true when given (whatever the value), false when absent', () => {
    for (const raw of ['', '0', 'false']) expect(value(p('checkbox' as ParamInfo['type']), raw)).toBe(true);
    expect(value(p('checkbox' as ParamInfo['type']), undefined)).toBe(false);
  });
});

describe('namespaces', () => {
  const ns = p('namespace');

  it('without the wiki’s namespaces, take 0 up to 2^31 − 1, or an extra one', () => {
    expect(value(ns, '2147483647')).toBe(2147483647);
    expect(refusal(ns, '2147483648').code).toBe('badvalue');
    expect(value(ns, '0')).toBe(0);
    expect(refusal(ns, '-1').code).toBe('badvalue');
    expect(value(p('namespace', { extranamespaces: [-1] }), '-1')).toBe(-1);
    expect(value(p('namespace', { extranamespaces: [2147483648] }), '2147483648')).toBe(2147483648);
  });

  it('read signs and zeros, and nothing but digits', () => {
    expect(value(ns, '+4')).toBe(4);
    expect(value(ns, '007')).toBe(7);
    expect(Object.is(value(ns, '-0'), 0)).toBe(true);
    expect(Object.is(value(ns, '+0'), 0)).toBe(true);
    for (const bad of ['1a', 'a1', ' 1', '1 ', '1.0', '1e1', '', '+', '0x1']) expect(refusal(ns, bad).code, bad).toBe('badvalue');
  });

  it('with the wiki’s namespaces, take those from 0 up and the extra ones, sorted, listed in errors', () => {
    const site = withSite({
      namespaces: [
        { id: 4, name: 'Project' },
        { id: -1, name: 'Special' },
        { id: 0, name: '' },
        { id: 1, name: 'Talk' },
        { id: -2, name: 'Media' },
      ],
    });
    expect(value(ns, '4', site)).toBe(4);
    expect(refusal(ns, '-1', site).code).toBe('badvalue');
    expect(refusal(ns, '2', site).message).toBe(
      'Unrecognized value for parameter "xxfoo": 2. Only one value may be given. Allowed: 0, 1, 4.',
    );
    // Extra namespaces that are not numbers are ignored; numbers are added in order, once.
    const extra = p('namespace', { extranamespaces: [-1, 'x', 1, '2'] } as unknown as Partial<ParamInfo>);
    expect(value(extra, '-1', site)).toBe(-1);
    expect(refusal(extra, '2', site).message).toBe(
      'Unrecognized value for parameter "xxfoo": 2. Only one value may be given. Allowed: -1, 0, 1, 4.',
    );
    expect(value({ ...extra, multi: true }, '*', site)).toEqual([-1, 0, 1, 4]);
    // Without the wiki's namespaces, a non-number extra is no namespace either.
    expect(refusal(extra, '-2').code).toBe('badvalue');
  });

  it('in a multi-valued parameter, drop unknown numbers with a warning; * is all of them', () => {
    expect(validateParam({ ...ns, multi: true }, '0|x|-3|1', ctx)).toEqual({
      value: [0, 1],
      warnings: [{ code: 'unrecognizedvalues', param: 'xxfoo', data: { values: ['x', '-3'] } }],
    });
    expect(value({ ...ns, multi: true }, '*')).toEqual(['*']);
    // A single-valued namespace parameter has no all-specifier.
    expect(refusal(ns, '*').code).toBe('badvalue');
  });
});

describe('refusals list what is allowed', () => {
  it('a namespace without the wiki’s namespaces lists nothing; a parameter typed "enum" allows nothing', () => {
    expect(refusal(p('namespace'), '-1').message).toBe(
      'Unrecognized value for parameter "xxfoo": -1. Only one value may be given.',
    );
    expect(refusal(p('enum' as ParamInfo['type']), 'x').message).toBe(
      'Unrecognized value for parameter "xxfoo": x. Only one value may be given.',
    );
  });
});

describe('definitions used directly', () => {
  const typeCtx = {} as TypeContext;

  it('a submodule definition reads a list type as its names; a presence boolean validates to true', () => {
    expect(submoduleDef.enumValues!(p(['a', 'b'], { submodules: { c: 'x/c' } }), typeCtx)).toEqual(['a', 'b']);
    expect(submoduleDef.enumValues!(p('submodule' as ParamInfo['type'], { submodules: { c: 'x/c' } }), typeCtx)).toEqual(['c']);
    expect(presenceBooleanDef.validate('', p('boolean'), typeCtx)).toBe(true);
  });
});
