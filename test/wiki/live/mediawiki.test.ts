/** The test wiki itself: installed from Debian's package, seeded, on loopback. */
import { describe, expect, it } from 'vitest';
import { FRUITS, HISTORY_PAGE, HISTORY_REVISIONS, mediawiki, REDIRECTS, startMediaWiki } from '../../support/mediawiki.js';

describe.skipIf(!mediawiki.available)('the test MediaWiki', () => {
  it('is MediaWiki 1.39 with the seeded pages, categories, redirects, templates and revisions', async () => {
    const wiki = await startMediaWiki();
    // biome-ignore lint/suspicious/noExplicitAny: the wiki's JSON, read by path
    const get = async (q: string) => (await fetch(`${wiki.api}?format=json&formatversion=2&${q}`)).json() as Promise<any>;
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
});
