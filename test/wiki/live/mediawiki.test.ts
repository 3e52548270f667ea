/** The test wiki itself: installed from Debian's package, seeded, on loopback. */
import { describe, expect, it } from 'vitest';
import {
  EXTENSIONS,
  FRUITS,
  HISTORY_PAGE,
  HISTORY_REVISIONS,
  mediawiki,
  REDIRECTS,
  startMediaWiki,
} from '../../support/mediawiki.js';

const getter = (api: string) => async (q: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: the wiki's JSON, read by path
  (await fetch(`${api}?format=json&formatversion=2&${q}`)).json() as Promise<any>;

describe.skipIf(!mediawiki.available)('the test MediaWiki', () => {
  it('is MediaWiki 1.39 with the seeded pages, categories, redirects, templates and revisions', async () => {
    const wiki = await startMediaWiki();
    const get = getter(wiki.api);
    const site = await get('action=query&meta=siteinfo');
    expect(site.query.general.generator).toMatch(/^MediaWiki 1\.39\./);
    expect(site.query.general.server).toBe(wiki.server);
    const all = await get('action=query&list=allpages&aplimit=max');
    expect(all.query.allpages.map((p: { title: string }) => p.title)).toEqual(
      expect.arrayContaining(['Apple', 'Main Page', HISTORY_PAGE, ...FRUITS, ...REDIRECTS]),
    );
    const members = await get('action=query&list=categorymembers&cmtitle=Category:Fruit&cmlimit=max');
    expect(members.query.categorymembers).toHaveLength(FRUITS.length + 1);
    const redirects = await get('action=query&list=allredirects&arlimit=max&arunique=1');
    expect(redirects.query.allredirects).toEqual([{ ns: 0, title: 'Apple' }]);
    const transclusions = await get('action=query&prop=transcludedin&titles=Template:Infobox&tilimit=max');
    expect(transclusions.query.pages[0].transcludedin).toHaveLength(FRUITS.length + 1);
    const history = await get(`action=query&prop=revisions&titles=${HISTORY_PAGE}&rvlimit=max`);
    expect(history.query.pages[0].revisions).toHaveLength(HISTORY_REVISIONS);
  });

  it('has a second wiki with the bundled extensions, and the first keeps core only', async () => {
    const [core, ext] = await Promise.all([startMediaWiki(), startMediaWiki({ extensions: true })]);
    expect(ext.api).not.toBe(core.api);
    const modules = 'query+extracts|query+pageimages|query+abusefilters|query+gadgets|query+oath';
    const info = await getter(ext.api)(`action=paraminfo&modules=${encodeURIComponent(modules)}`);
    expect(info.paraminfo.modules.map((m: { path: string }) => m.path)).toEqual(modules.split('|'));
    const extensions = await getter(ext.api)('action=query&meta=siteinfo&siprop=extensions');
    // Names as the wiki spells them ("Abuse Filter"), compared without spaces.
    const loaded = extensions.query.extensions.map((e: { name: string }) => e.name.replace(/ /g, ''));
    expect(loaded).toEqual(expect.arrayContaining([...EXTENSIONS]));
    // AbuseFilter's own tables exist: its list answers rather than failing on a missing table.
    expect((await getter(ext.api)('action=query&list=abusefilters')).query.abusefilters).toEqual([]);
    const extracts = await getter(ext.api)('action=query&prop=extracts&explaintext=1&titles=Apple');
    expect(extracts.query.pages[0].extract).toMatch(/^An apple\./);
    const bare = await getter(core.api)(`action=paraminfo&modules=${encodeURIComponent(modules)}`);
    expect(bare.paraminfo.modules ?? []).toEqual([]); // none: the wiki omits the empty list
  });
});
