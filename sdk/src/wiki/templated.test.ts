import { describe, expect, it } from 'vitest';
import { build, thrown } from '../../../test/wiki/fixtures/build.js';
import { revisionsSpec } from '../../../test/wiki/fixtures/query-specs.js';
import { templateVariables } from './templated.js';
import type { ModuleSpec } from './types.js';

describe('templated parameters (through buildModuleParams)', () => {
  it('lists template variables in name order', () => {
    expect(templateVariables('recursivetemplate-{m}-{t}')).toEqual(['m', 't']);
    expect(templateVariables('plain')).toEqual([]);
  });
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
