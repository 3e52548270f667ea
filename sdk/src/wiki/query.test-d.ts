import { describe, expectTypeOf, it } from 'vitest';
import {
  type AllpagesParams,
  allpages,
  deletedrevs,
  info,
  needstitle,
  revisions,
  siteinfo,
  tokens,
} from '../../../test/wiki/fixtures/query-specs.js';
import { type BuiltQuery, query } from './query.js';
import type { GeneratorUse, ModuleUse } from './types.js';

describe('query() is typed by module group', () => {
  it('accepts modules in their own group', () => {
    expectTypeOf(query({ list: [allpages()], prop: [info()], meta: [siteinfo(), tokens()] })).toEqualTypeOf<BuiltQuery>();
    expectTypeOf(allpages({ limit: 'max' })).toEqualTypeOf<ModuleUse<'list', AllpagesParams>>();
  });

  it('rejects a prop module in list, a list module in prop, and a meta module in either', () => {
    // @ts-expect-error info is a prop module
    query({ list: [info()] });
    // @ts-expect-error allpages is a list module
    query({ prop: [allpages()] });
    // @ts-expect-error siteinfo is a meta module
    query({ list: [siteinfo()] });
    // @ts-expect-error revisions is a prop module
    query({ meta: [revisions()] });
  });

  it('takes a generator only from asGenerator, and asGenerator only exists on generator modules', () => {
    query({ generator: allpages.asGenerator({ from: 'B' }) });
    query({ generator: revisions.asGenerator() });
    expectTypeOf(allpages.asGenerator()).toMatchTypeOf<GeneratorUse>();
    // @ts-expect-error a plain use is not a generator use
    query({ generator: allpages() });
    // @ts-expect-error deletedrevs is not a generator
    deletedrevs.asGenerator();
    // @ts-expect-error info is not a generator
    info.asGenerator();
  });

  it('checks parameters: names, enum values, limit, required ones', () => {
    allpages({ dir: 'descending', limit: 'max', namespace: 4 });
    // @ts-expect-error not an allowed value
    allpages({ dir: 'sideways' });
    // @ts-expect-error limit is a number or 'max'
    allpages({ limit: 'all' });
    // @ts-expect-error unknown parameter
    allpages({ nope: 1 });
    revisions({ slots: ['main'], 'contentformat-{slot}': { main: 'text/x-wiki' } });
    // @ts-expect-error not a content format
    revisions({ 'contentformat-{slot}': { main: 'text/nope' } });
    needstitle({ title: 'X' });
    // @ts-expect-error title is required
    needstitle();
    // @ts-expect-error titles are strings
    query({ titles: [1] });
  });

  it('build() takes the module parameters and options', () => {
    expectTypeOf(allpages.build({ limit: 5 }, { apihighlimits: true })).toEqualTypeOf<BuiltQuery>();
    expectTypeOf(needstitle.build({ title: 'X' })).toEqualTypeOf<BuiltQuery>();
    // @ts-expect-error title is required
    needstitle.build();
  });
});
