import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  alldeletedrevisionsSpec,
  allpagesSpec,
  categorymembersSpec,
  deletedrevsSpec,
  infoSpec,
  requiredSpec,
  revisionsSpec,
} from '../../../test/wiki/fixtures/query-specs.js';
import { buildModuleParams, formatTimestamp, toRaw } from './build.js';
import { checkInfoConditions } from './info.js';
import { templateVariables } from './templated.js';
import type { ModuleSpec } from './types.js';
import { WikiParamError } from './types.js';
import { explodeMultiValue } from './validate/index.js';

const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);
const options = { now: () => NOW };

function build(spec: ModuleSpec, input: Record<string, unknown>, extra: Partial<Parameters<typeof buildModuleParams>[2]> = {}) {
  return buildModuleParams(spec, input, { prefix: spec.prefix, options, ...extra });
}

function thrown(fn: () => unknown): WikiParamError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WikiParamError) return e;
    throw e;
  }
  throw new Error('expected a WikiParamError');
}

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

  it('lists template variables in name order', () => {
    expect(templateVariables('recursivetemplate-{m}-{t}')).toEqual(['m', 't']);
    expect(templateVariables('plain')).toEqual([]);
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

  it('applies the generator prefix when asked', () => {
    expect(buildModuleParams(allpagesSpec, { from: 'B' }, { prefix: 'gap' }).params).toEqual({ gapfrom: 'B' });
  });
});

describe('templated parameters', () => {
  it('expand from the values of their target: rvslots=main + contentformat-{slot}.main', () => {
    const out = build(revisionsSpec, { slots: ['main'], 'contentformat-{slot}': { main: 'text/x-wiki' } });
    expect(out.params).toEqual({ rvslots: 'main', 'rvcontentformat-main': 'text/x-wiki' });
    expect(out.warnings).toEqual([]);
  });

  it('a key whose variable value is not among the given values is never read: unrecognizedparams', () => {
    const out = build(revisionsSpec, { slots: ['main'], 'contentformat-{slot}': { mediainfo: 'text/plain' } });
    expect(out.params).toEqual({ rvslots: 'main' });
    expect(out.warnings.map((w) => [w.code, w.param])).toEqual([['unrecognizedparams', 'rvcontentformat-mediainfo']]);
  });

  it('validates expanded values with the templated settings', () => {
    expect(thrown(() => build(revisionsSpec, { slots: ['main'], 'contentformat-{slot}': { main: 'text/nope' } }))).toMatchObject({
      code: 'badvalue',
      param: 'rvcontentformat-main',
    });
  });

  // api/extractRequestParams/templated parameters (ApiBaseTest), from the shared conformance data.
  it('matches ApiBase::extractRequestParams on the conformance case', () => {
    const spec: ModuleSpec = {
      name: 'xx',
      path: 'query+xx',
      group: 'list',
      prefix: 'xx',
      parameters: [
        { name: 'notexists', type: 'string' },
        { name: 'exists', type: 'string' },
        { name: 'multi', type: 'string', multi: true, lowlimit: 50, highlimit: 500 },
        { name: 'empty', type: 'string', multi: true, lowlimit: 50, highlimit: 500 },
      ],
      templatedparameters: [
        { name: 'template-{m}', type: 'string', multi: true, lowlimit: 50, highlimit: 500, templatevars: { m: 'multi' } },
        { name: 'recursivetemplate-{m}-{t}', type: 'string', templatevars: { t: 'template-{m}', m: 'multi' } },
        { name: 'emptytemplate-{m}', type: 'string', multi: true, templatevars: { m: 'empty' } },
        { name: 'badtemplate-{e}', type: 'string', templatevars: { e: 'exists' } },
        { name: 'badtemplate2-{e}', type: 'string', templatevars: { e: 'badtemplate2-{e}' } },
        { name: 'badtemplate3-{x}', type: 'string', templatevars: { x: 'foo' } },
      ],
    };
    const out = build(spec, {
      exists: 'exists!',
      multi: ['a', 'b', 'c', 'd', '{bad}'],
      empty: [],
      'template-{m}': { a: ['A!'], b: ['B1', 'B2', 'B3'], c: [] },
      'recursivetemplate-{m}-{t}': { b: { B1: 'X', B3: 'Y', B4: '?' } },
      'emptytemplate-{m}': { '': 'nope' },
    });
    const expected: Record<string, unknown> = {
      notexists: null,
      exists: 'exists!',
      multi: ['a', 'b', 'c', 'd', '{bad}'],
      empty: [],
      'template-a': ['A!'],
      'template-b': ['B1', 'B2', 'B3'],
      'template-c': [],
      'template-d': null,
      'recursivetemplate-a-A!': null,
      'recursivetemplate-b-B1': 'X',
      'recursivetemplate-b-B2': null,
      'recursivetemplate-b-B3': 'Y',
    };
    const values = Object.fromEntries(Object.entries(out.values).map(([k, v]) => [k, v ?? null]));
    expect(values).toEqual(expected);
    expect(out.warnings.filter((w) => w.code === 'ignoring-invalid-templated-value')).toHaveLength(1);
    // The keys MediaWiki never reads are the main module's unrecognized parameters.
    expect(
      out.warnings
        .filter((w) => w.code === 'unrecognizedparams')
        .map((w) => w.param)
        .sort(),
    ).toEqual(['xxemptytemplate-', 'xxrecursivetemplate-b-B4']);
    expect(Object.keys(out.params).sort()).toEqual(
      [
        'xxempty',
        'xxexists',
        'xxmulti',
        'xxrecursivetemplate-b-B1',
        'xxrecursivetemplate-b-B3',
        'xxtemplate-a',
        'xxtemplate-b',
        'xxtemplate-c',
      ].sort(),
    );
  });
});

describe('info conditions', () => {
  const ctx = { pageCount: 0, revidCount: 0, generator: false };

  it('useronly / nonuseronly: invalidparammix, as alldeletedrevisions dies', () => {
    expect(thrown(() => build(alldeletedrevisionsSpec, { start: '2024-01-01T00:00:00Z' }))).toMatchObject({
      code: 'invalidparammix',
      param: 'adrstart',
    });
    expect(thrown(() => build(alldeletedrevisionsSpec, { user: 'Example', from: 'A' }))).toMatchObject({
      code: 'invalidparammix',
      param: 'adrfrom',
    });
    expect(build(alldeletedrevisionsSpec, { user: 'Example', start: '2024-01-01T00:00:00Z' }).params.adrstart).toBe(
      '2024-01-01T00:00:00Z',
    );
    expect(build(alldeletedrevisionsSpec, { from: 'A', prefix: 'B' }).warnings).toEqual([]);
  });

  it('modes (deletedrevs): 1 = pages given, 2 = user, 3 = neither', () => {
    // start is for modes 1 and 2: an error in mode 3
    expect(thrown(() => build(deletedrevsSpec, { start: '2024-01-01T00:00:00Z' }))).toMatchObject({
      code: 'badparams',
      param: 'drstart',
    });
    expect(build(deletedrevsSpec, { start: '2024-01-01T00:00:00Z', user: 'Example' }).warnings).toEqual([]);
    expect(build(deletedrevsSpec, { start: '2024-01-01T00:00:00Z' }, { context: { ...ctx, pageCount: 1 } }).warnings).toEqual([]);
    // from is for mode 3 only
    expect(thrown(() => build(deletedrevsSpec, { from: 'A' }, { context: { ...ctx, pageCount: 1 } })).code).toBe('badparams');
    expect(thrown(() => build(deletedrevsSpec, { from: 'A', user: 'Example' })).code).toBe('badparams');
    expect(build(deletedrevsSpec, { from: 'A' }).warnings).toEqual([]);
    // parameters with a default are not enforced by the module: it ignores them, and so does the API's answer
    expect(build(deletedrevsSpec, { unique: true, user: 'Example' }).warnings).toEqual([]);
    expect(build(deletedrevsSpec, { dir: 'older', user: 'Example' }).warnings).toEqual([]);
  });

  it('singlepageonly: invalidparammix with revids or several pages, as ApiQueryRevisions::run dies (1.39)', () => {
    expect(thrown(() => build(revisionsSpec, { limit: 5 }, { context: { ...ctx, revidCount: 2 } }))).toMatchObject({
      code: 'invalidparammix',
      param: 'rvlimit',
    });
    expect(build(revisionsSpec, { limit: 5 }, { context: { ...ctx, pageCount: 1 } }).warnings).toEqual([]);
    expect(thrown(() => build(revisionsSpec, { limit: 5 }, { context: { ...ctx, pageCount: 2 } }))).toMatchObject({
      code: 'invalidparammix',
      param: 'rvlimit',
      data: { condition: 'singlepageonly', pages: 2 },
    });
    // a generator's page count is the wiki's: the builder cannot know it, and says nothing
    expect(build(revisionsSpec, { limit: 5 }, { context: { ...ctx, generator: true } }).warnings).toEqual([]);
    // dir at its default is not enumeration mode
    expect(build(revisionsSpec, { dir: 'older' }, { context: { ...ctx, revidCount: 1 } }).warnings).toEqual([]);
  });

  it('preloadcontentonly / editintroonly: silently ignored when prop lacks the value, as info does', () => {
    expect(build(infoSpec, { preloadcustom: 'Template:X' }).warnings).toEqual([]);
    expect(build(infoSpec, { prop: ['preloadcontent'], preloadcustom: 'Template:X' }).warnings).toEqual([]);
    expect(build(infoSpec, { editintrostyle: 'lessframes' }).warnings).toEqual([]);
    expect(build(infoSpec, { prop: ['editintro'], editintrostyle: 'lessframes' }).warnings).toEqual([]);
  });

  it('checkInfoConditions ignores parameters that were not given', () => {
    expect(checkInfoConditions(alldeletedrevisionsSpec, 'adr', new Set(), { start: null }, ctx)).toEqual([]);
  });
});
