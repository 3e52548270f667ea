import { describe, expect, it } from 'vitest';
import { build, thrown } from '../../../test/wiki/fixtures/build.js';
import { alldeletedrevisionsSpec, deletedrevsSpec, infoSpec, revisionsSpec } from '../../../test/wiki/fixtures/query-specs.js';
import { revisions } from '../generated/wiki/revisions.js';
import { checkInfoConditions } from './info.js';
import { query } from './query.js';
import type { SiteContext } from './types.js';

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

  it('singlepageonly counts distinct pages, normalized as the wiki does (first letter per site, underscores)', () => {
    const rv = { titles: ['History'], prop: [revisions({ limit: 1 })] };
    expect(query({ ...rv, titles: ['History', 'history', 'History_'] }).params.titles).toBe('History|history|History_');
    expect(query({ pageids: [7, 7], prop: [revisions({ limit: 1 })] }).params.pageids).toBe('7');
    // Invalid and special titles are never good pages: only one page is left.
    expect(query({ ...rv, titles: ['History', 'A[b', 'Special:Random'] }).params.rvlimit).toBe('1');
    expect(thrown(() => query({ ...rv, titles: ['History', 'Talk:History'] }))).toMatchObject({
      code: 'invalidparammix',
      data: { condition: 'singlepageonly', pages: 2 },
    });
    // A case-sensitive wiki (Wiktionary) has two pages there.
    const site: SiteContext = { namespaces: [{ id: 0, name: '', case: 'case-sensitive' }] };
    expect(thrown(() => query({ ...rv, titles: ['History', 'history'] }, { site })).code).toBe('invalidparammix');
    expect(query({ ...rv, titles: ['History', 'History'] }, { site }).params.rvlimit).toBe('1');
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
