import { describe, expect, it } from 'vitest';
import { allpages, allpagesSpec, deletedrevs, revisions } from '../../../test/wiki/fixtures/query-specs.js';
import { defineModule } from './module.js';
import { WikiParamError } from './types.js';

describe('defineModule', () => {
  it('is callable and returns a frozen use carrying the spec, group and parameters', () => {
    const use = allpages({ from: 'B', limit: 5 });
    expect(use).toEqual({ kind: 'module', group: 'list', spec: allpagesSpec, params: { from: 'B', limit: 5 } });
    expect(Object.isFrozen(use)).toBe(true);
    expect(allpages().params).toEqual({});
    expect(allpages.spec).toBe(allpagesSpec);
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
