import { describe, expect, it } from 'vitest';
import { thrown } from '../../../test/wiki/fixtures/build.js';
import { allpages } from '../generated/wiki/allpages.js';
import { categorymembers } from '../generated/wiki/categorymembers.js';
import { query } from './query.js';
import { hasApiHighLimits, siteContextFromSiteinfo } from './site.js';

/** A trimmed `meta=siteinfo&siprop=general|namespaces|namespacealiases|interwikimap` answer (formatversion 2). */
const siteinfo = {
  batchcomplete: true,
  query: {
    general: { generator: 'MediaWiki 1.39.17' },
    namespaces: {
      '-2': { id: -2, case: 'first-letter', name: 'Media', canonical: 'Media' },
      '-1': { id: -1, case: 'first-letter', name: 'Special', canonical: 'Special' },
      '0': { id: 0, case: 'first-letter', name: '', content: true },
      '1': { id: 1, case: 'first-letter', name: 'Talk', canonical: 'Talk' },
      '10': { id: 10, case: 'first-letter', name: 'Template', canonical: 'Template' },
      '14': { id: 14, case: 'case-sensitive', name: 'Category', canonical: 'Category' },
    },
    namespacealiases: [{ id: 14, alias: 'Cat' }],
    interwikimap: [{ prefix: 'wikipedia', url: 'https://en.wikipedia.org/wiki/$1' }],
  },
};

describe('siteContextFromSiteinfo', () => {
  it('reads miser mode, and the codes of a complete languageinfo answer (not of one cut short by licontinue)', () => {
    const general = { ...siteinfo.query.general, misermode: true };
    const languageinfo = { de: { code: 'de' }, en: { code: 'en' } };
    expect(siteContextFromSiteinfo({ query: { ...siteinfo.query, general, languageinfo } })).toMatchObject({
      miserMode: true,
      languages: ['de', 'en'],
    });
    const cut = siteContextFromSiteinfo({ continue: { licontinue: 'fr', continue: '||' }, query: { languageinfo } });
    expect(cut.languages).toBeUndefined();
    const plain = siteContextFromSiteinfo(siteinfo);
    expect(plain.miserMode).toBeUndefined();
    expect(plain.languages).toBeUndefined();
  });

  it('reads namespaces (with aliases and case), interwiki prefixes, from formatversion 1 and 2', () => {
    const site = siteContextFromSiteinfo(siteinfo);
    expect(site.namespaces?.map((n) => n.id)).toEqual([-2, -1, 0, 1, 10, 14]);
    expect(site.namespaces?.find((n) => n.id === 14)).toEqual({
      id: 14,
      name: 'Category',
      canonical: 'Category',
      aliases: ['Cat'],
      case: 'case-sensitive',
    });
    expect(site.interwikiPrefixes).toEqual(['wikipedia']);
    const v1 = siteContextFromSiteinfo({ query: { namespaces: { '4': { id: 4, '*': 'Project' } } } });
    expect(v1.namespaces).toEqual([{ id: 4, name: 'Project' }]);
    expect(() => siteContextFromSiteinfo('nope')).toThrow(TypeError);
  });

  it('tells apihighlimits from userinfo rights', () => {
    expect(hasApiHighLimits({ query: { userinfo: { rights: ['read', 'apihighlimits'] } } })).toBe(true);
    expect(hasApiHighLimits({ query: { userinfo: { rights: ['read'] } } })).toBe(false);
    expect(hasApiHighLimits({})).toBe(false);
  });
});

describe('validation against a site context', () => {
  const site = siteContextFromSiteinfo(siteinfo);

  it('rejects a namespace the wiki does not have with badvalue, as the wiki does; without a site, any ≥ 0 passes', () => {
    expect(allpages.build({ namespace: 9999 }).params.apnamespace).toBe('9999');
    expect(thrown(() => allpages.build({ namespace: 9999 }, { site }))).toMatchObject({ code: 'badvalue', param: 'apnamespace' });
    expect(allpages.build({ namespace: 10 }, { site }).params.apnamespace).toBe('10');
  });

  it('drops an unknown value of a multi-valued namespace parameter with unrecognizedvalues', () => {
    const q = categorymembers.build({ title: 'Category:Fruit', namespace: [0, 9999, 14] }, { site });
    expect(q.params.cmnamespace).toBe('0|14');
    expect(q.warnings).toEqual([
      { code: 'unrecognizedvalues', param: 'cmnamespace', module: 'query+categorymembers', data: { values: ['9999'] } },
    ]);
    // `*` is every namespace of the wiki
    expect(categorymembers.build({ title: 'Category:Fruit', namespace: '*' }, { site }).params.cmnamespace).toBe('*');
    expect(query({ list: [categorymembers({ title: 'Category:Fruit', namespace: [0, 14] })] }, { site }).warnings).toEqual([]);
  });

  it('applies the multi-value caps of the user: 50, or 500 with apihighlimits', () => {
    const many = Array.from({ length: 51 }, (_, i) => (i % 2 ? 0 : 14));
    expect(
      thrown(() => categorymembers.build({ title: 'Category:X', namespace: many.map((_, i) => i) }, { site })),
    ).toMatchObject({
      code: 'toomanyvalues',
    });
    expect(thrown(() => query({ titles: many.map(String) }, { site }))).toMatchObject({ code: 'toomanyvalues', param: 'titles' });
    expect(query({ titles: many.map(String) }, { site, apihighlimits: true }).params.titles).toContain('|');
    expect(allpages.build({ limit: 'max' }, { site }).params.aplimit).toBe('500');
    expect(allpages.build({ limit: 'max' }, { site, apihighlimits: true }).params.aplimit).toBe('5000');
  });
});
