import { describe, expect, it } from 'vitest';
import { thrown as error } from '../../../../test/wiki/fixtures/build.js';
import type { ParamInfo, TypeDef } from '../types.js';
import { LIBRARY_POLICY, type ValidateContext } from './context.js';
import { validateParam as coreValidateParam } from './core.js';
import { TYPE_DEFS, validateParam } from './registry.js';

const ctx: ValidateContext = { param: 'apfoo', module: 'query+allpages' };
const p = (type: ParamInfo['type'], extra: Partial<ParamInfo> = {}): ParamInfo => ({ name: 'foo', type, ...extra });

describe('absent parameters', () => {
  it('take the default, validated as a default, or fail when required', () => {
    expect(validateParam(p('string'), undefined, ctx).value).toBeUndefined();
    expect(validateParam(p('integer', { default: 10 }), undefined, ctx).value).toBe(10);
    expect(validateParam(p(['a', 'b'], { multi: true, default: 'b|a' }), undefined, ctx).value).toEqual(['b', 'a']);
    expect(validateParam(p(['a'], { default: 'a', deprecatedvalues: ['a'] }), undefined, ctx).warnings).toEqual([]);
    expect(validateParam(p('boolean', { default: false }), undefined, ctx).value).toBe(false);
    const e = error(() => validateParam(p('string', { required: true }), undefined, ctx));
    expect([e.code, e.param, e.module]).toEqual(['missingparam', 'apfoo', 'query+allpages']);
  });

  it('never fail on a default the caller did not give', () => {
    expect(validateParam(p(['a'], { default: 'zz' }), undefined, ctx)).toEqual({ value: 'zz', warnings: [] });
  });
});

describe('present parameters', () => {
  it('warn when the parameter is deprecated', () => {
    expect(validateParam(p('string', { deprecated: true }), 'x', ctx).warnings).toEqual([
      { code: 'param-deprecated', param: 'apfoo', module: 'query+allpages' },
    ]);
  });

  it('treat booleans as presence', () => {
    for (const raw of ['', '0', 'false', 'no']) expect(validateParam(p('boolean'), raw, ctx).value).toBe(true);
  });

  it('reject U+001F-separated values for single-valued parameters', () => {
    expect(error(() => validateParam(p('string'), '\u001fa', ctx)).code).toBe('badvalue');
  });

  it('check maxbytes and maxchars of strings, and an empty required string', () => {
    expect(error(() => validateParam(p('string', { maxbytes: 3 }), 'éé', ctx)).data).toEqual({ maxbytes: 3, maxchars: null });
    expect(error(() => validateParam(p('string', { maxchars: 1 }), '😀😀', ctx)).code).toBe('maxchars');
    expect(validateParam(p('string', { maxchars: 1 }), '😀', ctx).value).toBe('😀');
    expect(error(() => validateParam(p('string', { required: true }), '', ctx)).code).toBe('missingparam');
  });

  it('pass unknown types through', () => {
    expect(validateParam(p('expiry'), '2 weeks', ctx).value).toBe('2 weeks');
  });

  it('pass types named like an object’s own properties through, whatever validators are given', () => {
    for (const type of ['constructor', 'toString', '__proto__'])
      expect(validateParam(p(type), 'v', { ...ctx, typeDefs: {} }).value).toBe('v');
  });
});

describe('multi-valued parameters', () => {
  const e = p(['a', 'b', 'c'], { multi: true });

  it('drop unrecognized values with a warning (Action API), or fail (library)', () => {
    expect(validateParam(e, 'a|x|b|y', ctx)).toEqual({
      value: ['a', 'b'],
      warnings: [{ code: 'unrecognizedvalues', param: 'apfoo', module: 'query+allpages', data: { values: ['x', 'y'] } }],
    });
    expect(error(() => validateParam(e, 'a|x', { ...ctx, policy: LIBRARY_POLICY })).code).toBe('badvalue');
    expect(validateParam({ ...e, 'x-ignoreUnrecognizedValues': true }, 'a|x', { ...ctx, policy: LIBRARY_POLICY }).value).toEqual([
      'a',
    ]);
    expect(error(() => validateParam(p('integer', { multi: true }), '1|x', ctx)).code).toBe('badinteger');
  });

  it('remove duplicates after validation unless allowed', () => {
    expect(validateParam(e, 'a|b|a', ctx).value).toEqual(['a', 'b']);
    expect(validateParam({ ...e, allowsduplicates: true }, 'a|b|a', ctx).value).toEqual(['a', 'b', 'a']);
    expect(validateParam(p('user', { multi: true }), 'foo|Foo|foo_', ctx).value).toEqual(['Foo']);
  });

  it('expand the all-specifier only when it is the only value', () => {
    expect(validateParam({ ...e, allspecifier: '*' }, '*', ctx).value).toEqual(['a', 'b', 'c']);
    expect(validateParam({ ...e, allspecifier: '*' }, '*|a', ctx).value).toEqual(['a']);
    expect(validateParam({ ...e, allspecifier: 'all' }, 'all', ctx).value).toEqual(['a', 'b', 'c']);
    expect(validateParam(p('string', { multi: true, allspecifier: '*' }), '*', ctx).value).toEqual(['*']);
  });

  it('cap the raw number of values at lowlimit, or highlimit with apihighlimits', () => {
    const capped = { ...e, lowlimit: 2, highlimit: 4 };
    const tooMany = error(() => validateParam(capped, 'a|a|a', ctx));
    expect([tooMany.code, tooMany.data]).toEqual(['toomanyvalues', { parameter: 'apfoo', limit: 2, lowlimit: 2, highlimit: 4 }]);
    expect(validateParam(capped, 'a|a|a|a', { ...ctx, options: { apihighlimits: true } }).value).toEqual(['a']);
    expect(error(() => validateParam(capped, 'a|b|c|a|b', { ...ctx, options: { apihighlimits: true } })).code).toBe(
      'toomanyvalues',
    );
    expect(error(() => validateParam(p('string', { multi: true }), Array(51).fill('x').join('|'), ctx)).data).toMatchObject({
      limit: 50,
    });
    expect(
      validateParam(p('string', { multi: true }), Array(51).fill('x').join('|'), { ...ctx, options: { apihighlimits: true } })
        .value,
    ).toEqual(['x']);
  });

  it('warn once per deprecated value used', () => {
    const r = validateParam({ ...e, deprecatedvalues: ['b', 'c'] }, 'a|b|c', ctx);
    expect(r.warnings.map((w) => [w.code, w.data])).toEqual([
      ['deprecated-value', { value: 'b' }],
      ['deprecated-value', { value: 'c' }],
    ]);
  });

  it('give namespaces as numbers, all of them for *', () => {
    expect(validateParam(p('namespace', { multi: true }), '0|+1|0|-1', ctx).value).toEqual([0, 1]);
    expect(validateParam(p('namespace', { multi: true, extranamespaces: [-1] }), '-1|4', ctx).value).toEqual([-1, 4]);
    expect(validateParam(p('namespace', { multi: true }), '*', ctx).value).toEqual(['*']);
    expect(
      validateParam(p('namespace', { multi: true }), '*', {
        ...ctx,
        site: {
          namespaces: [
            { id: 0, name: '' },
            { id: 1, name: 'Talk' },
          ],
        },
      }).value,
    ).toEqual([0, 1]);
    expect(error(() => validateParam(p('namespace'), '99', { ...ctx, site: { namespaces: [{ id: 0, name: '' }] } })).code).toBe(
      'badvalue',
    );
  });
});

describe('custom type definitions', () => {
  it('are used before the built-in ones', () => {
    const upper: TypeDef = { validate: (v) => v.toUpperCase() };
    expect(validateParam(p('string', { multi: true }), 'a|b', { ...ctx, typeDefs: { string: upper } }).value).toEqual(['A', 'B']);
  });
});

describe('strict mode', () => {
  it('turns the first warning into an error', () => {
    const err = error(() => validateParam(p(['a', 'b'], { multi: true }), 'a|x', { ...ctx, options: { strict: true } }));
    expect([err.code, err.data]).toEqual(['unrecognizedvalues', { values: ['x'] }]);
  });
});

describe('defaults and warnings, exactly', () => {
  it('read defaults given as numbers, booleans or strings; null and objects are no default', () => {
    expect(validateParam(p('integer', { default: 7 }), undefined, ctx).value).toBe(7);
    expect(validateParam(p('string', { default: 7 }), undefined, ctx).value).toBe('7');
    expect(validateParam(p('string', { default: true }), undefined, ctx).value).toBe('true');
    expect(validateParam(p('string', { default: 'x' }), undefined, ctx).value).toBe('x');
    expect(validateParam(p('string', { default: null } as unknown as Partial<ParamInfo>), undefined, ctx).value).toBeUndefined();
    expect(
      validateParam(p('string', { default: { a: 1 } } as unknown as Partial<ParamInfo>), undefined, ctx).value,
    ).toBeUndefined();
    // A default is read only when the value is absent.
    expect(validateParam(p('string', { default: 'x' }), 'y', ctx).value).toBe('y');
  });

  it('warnings carry module and data keys only when there is one', () => {
    const deprecated = validateParam(p('string', { deprecated: true }), 'x', { param: 'xxfoo' }).warnings;
    expect(deprecated).toStrictEqual([{ code: 'param-deprecated', param: 'xxfoo' }]);
    const withModule = validateParam(p('string', { deprecated: true }), 'x', ctx).warnings;
    expect(withModule).toStrictEqual([{ code: 'param-deprecated', param: 'apfoo', module: 'query+allpages' }]);
  });

  it('an error after a warning carries the warning first; an error alone carries none', () => {
    const e = error(() => validateParam(p(['a'], { deprecated: true }), 'b', ctx));
    expect(e.code).toBe('badvalue');
    expect(e.warnings.map((w) => w.code)).toEqual(['param-deprecated']);
    expect(error(() => validateParam(p(['a']), 'b', ctx)).warnings).toEqual([]);
  });
});

describe('a default that does not validate', () => {
  it('comes back as given, without the warnings its validation raised before failing', () => {
    // 999 clamps with a warning, then x fails: the server applies its own default, so neither is reported.
    expect(validateParam(p('integer', { multi: true, max: 10, default: '1|999|x' }), undefined, ctx)).toEqual({
      value: '1|999|x',
      warnings: [],
    });
    expect(validateParam(p('string', { default: 'toolong', maxbytes: 3 }), undefined, ctx)).toEqual({
      value: 'toolong',
      warnings: [],
    });
  });

  it('lets an error that is not a WikiParamError through', () => {
    const broken: TypeDef = {
      validate: () => {
        throw new RangeError('bug');
      },
    };
    expect(() => validateParam(p('string', { default: 'x' }), undefined, { ...ctx, typeDefs: { string: broken } })).toThrow(
      RangeError,
    );
  });

  it('a default that validates with a warning keeps the warning', () => {
    expect(validateParam(p('integer', { default: 99, max: 10 }), undefined, ctx).warnings.map((w) => w.code)).toEqual([
      'outofrange',
    ]);
  });
});

describe('what is remembered per settings object', () => {
  it('is never a custom definition, nor one resolved with other types', () => {
    const settings = p('user');
    const upper: TypeDef = { validate: (v) => v.toUpperCase() };
    expect(coreValidateParam(settings, 'foo', { param: 'u', typeDefs: { user: upper } }).value).toBe('FOO');
    expect(coreValidateParam(settings, 'foo', { param: 'u', types: TYPE_DEFS }).value).toBe('Foo');
    expect(coreValidateParam(settings, 'foo', { param: 'u', types: { user: upper } }).value).toBe('FOO');
    expect(coreValidateParam(settings, 'foo', { param: 'u', types: TYPE_DEFS }).value).toBe('Foo');
  });
});

describe('edges of multi values and errors', () => {
  it('an all-specifier given as true is *', () => {
    expect(
      validateParam(p(['a', 'b'], { multi: true, allspecifier: true } as unknown as Partial<ParamInfo>), '*', ctx).value,
    ).toEqual(['a', 'b']);
  });

  it('an error that is not a WikiParamError comes through a given value unchanged', () => {
    const bug = new RangeError('bug');
    const broken: TypeDef = {
      validate: () => {
        throw bug;
      },
    };
    for (const settings of [p('string'), p('string', { deprecated: true })]) {
      let thrown: unknown;
      try {
        validateParam(settings, 'x', { ...ctx, typeDefs: { string: broken } });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBe(bug);
      expect(Object.keys(bug)).toEqual([]);
    }
  });
});

describe('the per-settings memory and custom definitions', () => {
  it('a call with a custom definition leaves nothing behind for the next call', () => {
    const settings = p('user');
    const upper: TypeDef = { validate: (v) => v.toUpperCase() };
    expect(validateParam(settings, 'foo', { param: 'u', typeDefs: { user: upper } }).value).toBe('FOO');
    expect(validateParam(settings, 'foo', { param: 'u' }).value).toBe('Foo');
  });

  it('a type neither core nor supplied is a programming error that says what to do', () => {
    expect(() => coreValidateParam(p('user'), 'foo', { param: 'u' })).toThrow(
      new TypeError(
        'No validator for type "user" (parameter "foo"): give it in the module\'s `types` (the generator does), or define the module with defineModule().',
      ),
    );
  });
});
