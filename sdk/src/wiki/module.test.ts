import { describe, expect, it } from 'vitest';
import {
  alldeletedrevisionsSpec,
  allpages,
  allpagesSpec,
  deletedrevs,
  revisions,
  revisionsSpec,
} from '../../../test/wiki/fixtures/query-specs.js';
import { categorymembers } from '../generated/wiki/categorymembers.js';
import { moduleRules } from '../generated/wiki-rules.js';
import { checkInfoConditions } from './info.js';
import { defineModule, defineTypedModule } from './module.js';
import { applyRules, rulesFor } from './rules.js';
import { readTemplated } from './templated.js';
import { type ModuleSpec, WikiParamError } from './types.js';
import { timestampDef } from './validate/timestamp.js';

describe('defineModule', () => {
  it('gives a descriptor read at run time the rules a generated builder has, by default', () => {
    // A descriptor as paraminfo gives it: no rules, no checker.
    const { rules: _rules, applyRules: _apply, ...bare } = categorymembers.spec;
    const ruled = defineModule<{ title?: string; continue?: string }, 'list', true>(bare);
    expect(ruled.spec.rules).toEqual(categorymembers.spec.rules);
    expect(ruled.spec.applyRules).toBe(applyRules);
    expect(defineModule(bare).spec).toBe(ruled.spec);
    // Passing the shipped table is the same as the default.
    expect(defineModule(bare, { rules: moduleRules }).spec).toBe(ruled.spec);
    for (const value of ['page|41', 'page|4|7', 'x']) {
      const e = (() => {
        try {
          ruled.build({ title: 'Category:X', continue: value });
        } catch (error) {
          return error;
        }
      })();
      expect(e, value).toBeInstanceOf(WikiParamError);
      expect((e as WikiParamError).code).toBe('badcontinue');
    }
    expect(ruled.build({ title: 'Category:X', continue: 'page|41|7|x' }).params.cmcontinue).toBe('page|41|7|x');
    // `rules: false` attaches none.
    const plain = defineModule<{ title?: string; continue?: string }, 'list', true>(bare, { rules: false });
    expect(plain.spec.rules).toBeUndefined();
    expect(plain.build({ title: 'Category:X', continue: 'page|41' }).params.cmcontinue).toBe('page|41');
    // A descriptor that has rules keeps its own; another table gives that table's.
    expect(defineModule(categorymembers.spec).spec.rules).toBe(categorymembers.spec.rules);
    expect(defineModule(bare, { rules: { modules: {} } }).spec.rules).toBeUndefined();
  });

  it('is callable and returns a use carrying the spec, group and parameters', () => {
    const use = allpages({ from: 'B', limit: 5 });
    expect(use).toEqual({ kind: 'module', group: 'list', spec: allpages.spec, params: { from: 'B', limit: 5 } });
    expect(allpages().params).toEqual({});
    // The hand-written descriptor, completed with the rules of the SDK's table it matches.
    expect(allpages.spec).toEqual({ ...allpagesSpec, rules: rulesFor(allpagesSpec, moduleRules), applyRules });
    expect(allpages.group).toBe('list');
    expect(allpages.name).toBe('allpages');
  });

  it('asGenerator exists only on generator modules and yields a generator use', () => {
    const g = allpages.asGenerator({ from: 'B' });
    expect(g).toMatchObject({ kind: 'generator', group: 'list', params: { from: 'B' } });
    expect('asGenerator' in deletedrevs).toBe(false);
    expect(typeof revisions.asGenerator).toBe('function');
  });

  it('build() gives a standalone action=query request for just this module', () => {
    const built = allpages.build({ from: 'B', limit: 5 });
    expect(built.params).toEqual({
      action: 'query',
      format: 'json',
      formatversion: '2',
      errorformat: 'plaintext',
      list: 'allpages',
      apfrom: 'B',
      aplimit: '5',
    });
    expect(built.method).toBe('GET');
    expect(built.warnings).toEqual([]);
  });

  it('build() passes options through (apihighlimits resolves max to highmax) and throws MediaWiki codes', () => {
    expect(allpages.build({ limit: 'max' }).params.aplimit).toBe('500');
    expect(allpages.build({ limit: 'max' }, { apihighlimits: true }).params.aplimit).toBe('5000');
    expect(() => allpages.build({ dir: 'sideways' as never })).toThrow(WikiParamError);
    try {
      allpages.build({ dir: 'sideways' as never });
    } catch (e) {
      expect(e).toMatchObject({ code: 'badvalue', param: 'apdir', module: 'query+allpages' });
    }
  });

  it('a module without a generator flag gets no asGenerator even when typed with Gen=true', () => {
    const m = defineModule<object, 'meta', false>({ name: 'x', path: 'query+x', group: 'meta', prefix: 'x', parameters: [] });
    expect((m as unknown as Record<string, unknown>).asGenerator).toBeUndefined();
    expect(m.build().params.meta).toBe('x');
  });
});

describe('defineTypedModule and the validators a descriptor supplies', () => {
  const stamped: ModuleSpec = {
    name: 'stamped',
    path: 'query+stamped',
    group: 'list',
    prefix: 's',
    parameters: [{ name: 'start', type: 'timestamp' }],
  };
  const ruled: ModuleSpec = {
    name: 'ruled',
    path: 'query+ruled',
    group: 'list',
    prefix: 'r',
    parameters: [
      { name: 'a', type: 'string' },
      { name: 'b', type: 'string' },
    ],
    rules: [{ rule: 'only-one-of', params: ['a', 'b'], source: 'a test' }],
  };

  it('validates a non-core type with the validator the descriptor gives', () => {
    const m = defineTypedModule<{ start?: string }, 'list', false>({ ...stamped, types: { timestamp: timestampDef } });
    expect(m.build({ start: '2024-01-02T03:04:05Z' }).params.sstart).toBe('2024-01-02T03:04:05Z');
    expect(() => m.build({ start: 'yesterday-ish' })).toThrow(expect.objectContaining({ code: 'badtimestamp' }));
  });

  it('refuses to build a non-core type it has no validator for, rather than send it unchecked', () => {
    const m = defineTypedModule<{ start?: string }, 'list', false>(stamped);
    expect(() => m.build({ start: 'yesterday-ish' })).toThrow(TypeError);
    expect(() => m.build({ start: 'yesterday-ish' })).toThrow(/No validator for type "timestamp"/);
  });

  it('defineModule completes a hand-written descriptor with every validator and the rule checker', () => {
    const m = defineModule<{ start?: string }, 'list', false>(stamped);
    expect(m.spec).not.toBe(stamped);
    expect(() => m.build({ start: 'yesterday-ish' })).toThrow(expect.objectContaining({ code: 'badtimestamp' }));
    const r = defineModule<{ a?: string; b?: string }, 'list', false>(ruled);
    expect(r.spec.applyRules).toBe(applyRules);
    expect(() => r.build({ a: 'x', b: 'y' })).toThrow(expect.objectContaining({ code: 'invalidparammix' }));
    // A descriptor that needs nothing more is kept as it is.
    const plain = { ...ruled, rules: undefined };
    expect(defineModule(plain).spec).toBe(plain);
  });

  it('refuses rules it has no checker for', () => {
    const r = defineTypedModule<{ a?: string; b?: string }, 'list', false>(ruled);
    expect(() => r.build({ a: 'x', b: 'y' })).toThrow(/has rules but no applyRules/);
    const checked = defineTypedModule<{ a?: string; b?: string }, 'list', false>({ ...ruled, applyRules });
    expect(() => checked.build({ a: 'x', b: 'y' })).toThrow(expect.objectContaining({ code: 'invalidparammix' }));
  });

  it('refuses templated parameters and `info` conditions it has no reader for; defineModule supplies both', () => {
    const bare = { ...revisionsSpec, types: { ...defineModule(revisionsSpec).spec.types } };
    const m = defineTypedModule<{ slots?: string[]; 'contentformat-{slot}'?: Record<string, string> }, 'prop', true>(bare);
    // Thrown where the templated parameters are read: on the full path, which a templated value takes.
    expect(() => m.build({ slots: ['main'], 'contentformat-{slot}': { main: 'text/x-wiki' } })).toThrow(
      /has templated parameters but no `readTemplated`/,
    );
    const adr = defineTypedModule<{ user?: string; excludeuser?: string }, 'list', true>({
      ...alldeletedrevisionsSpec,
      types: { ...defineModule(alldeletedrevisionsSpec).spec.types },
    });
    expect(() => adr.build({ excludeuser: 'X' })).toThrow(/has `info` conditions but no `checkInfo`/);
    const full = defineModule(revisionsSpec).spec;
    expect(full.readTemplated).toBe(readTemplated);
    expect(full.checkInfo).toBe(checkInfoConditions);
    expect(defineModule(alldeletedrevisionsSpec).spec.checkInfo).toBe(checkInfoConditions);
  });
});
