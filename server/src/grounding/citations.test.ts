import { describe, expect, it } from 'vitest';
import { checkCitation, findCitations, type ReadPage } from './citations.js';

const page = (n: number, title: string, text: string): ReadPage => ({
  n,
  title,
  pageId: n,
  revisionId: 10 + n,
  url: `http://wiki/index.php?oldid=${10 + n}`,
  text,
  sha256: '',
  retrievedBy: 'search',
});
const pages = [
  page(1, 'Deploy policy', 'Deploys happen on Tuesdays.\nRoll back  within 15 minutes.'),
  page(2, 'On call', 'Pager.'),
];
const where = { round: 1, slot: 2 as const };

describe('findCitations', () => {
  it('finds numbers, titles and quotations before a reference, once each, in order', () => {
    expect(
      findCitations('As [2] says, "roll back within 15 minutes" [1]; see [[Deploy policy]] and a [link](http://x) [3].'),
    ).toEqual([{ ref: '2' }, { ref: '1', quote: 'roll back within 15 minutes' }, { ref: 'Deploy policy' }, { ref: '3' }]);
    expect(findCitations('{"a": "as \\"Deploys happen on Tuesdays.\\" [1]"}')).toEqual([
      { ref: '1', quote: 'Deploys happen on Tuesdays.' },
    ]);
    expect(findCitations('“Deploys happen on Tuesdays” [[Deploy_policy]]')).toEqual([
      { ref: 'Deploy_policy', quote: 'Deploys happen on Tuesdays' },
    ]);
  });
});

describe('checkCitation', () => {
  it('verifies a retrieved page, by number or title, and a quotation that is in its text', () => {
    expect(checkCitation({ ref: '1', quote: 'Roll back within 15 minutes' }, pages, where)).toMatchObject({
      verified: true,
      source: 1,
    });
    expect(checkCitation({ ref: 'deploy_policy' }, pages, where)).toMatchObject({ verified: true, source: 1 });
  });

  it('flags a page not retrieved and a quotation not in the text, naming no source', () => {
    const missing = checkCitation({ ref: '7' }, pages, where);
    expect(missing).toEqual({ round: 1, slot: 2, ref: '7', verified: false, reason: 'not_retrieved' });
    expect(checkCitation({ ref: 'Secret plans' }, pages, where).reason).toBe('not_retrieved');
    const invented = checkCitation({ ref: '1', quote: 'Deploys happen on Fridays' }, pages, where);
    expect(invented).toMatchObject({ verified: false, reason: 'quote_not_found' });
    expect(invented.source).toBeUndefined();
  });

  it('checks a quotation against the cited page only, never another retrieved page', () => {
    // "Pager." is on page 2: cited as page 1 (by number or by title) it is not found.
    expect(checkCitation({ ref: '2', quote: 'Pager.' }, pages, where)).toMatchObject({ verified: true, source: 2 });
    for (const ref of ['1', 'Deploy policy']) {
      const elsewhere = checkCitation({ ref, quote: 'Pager.' }, pages, where);
      expect(elsewhere).toMatchObject({ verified: false, reason: 'quote_not_found' });
      expect(elsewhere.source).toBeUndefined();
    }
  });

  it('collapses whitespace when comparing a quotation, never removes it: words run together are not the words', () => {
    // A line break and a double space in the page, one space (or a tab) in the quotation: the same words.
    expect(checkCitation({ ref: '1', quote: 'on Tuesdays. Roll back\twithin' }, pages, where).verified).toBe(true);
    // The same letters with a space left out, or put where the page has none, are not what the page says.
    for (const quote of ['Deploys happen onTuesdays', 'Rollback within 15 minutes', 'Roll back with in 15 minutes']) {
      expect(checkCitation({ ref: '1', quote }, pages, where), quote).toMatchObject({
        verified: false,
        reason: 'quote_not_found',
      });
    }
  });
});
