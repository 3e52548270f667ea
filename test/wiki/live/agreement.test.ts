/**
 * The builders against the live MediaWiki 1.39 on the requests of a user test: each case is a typed
 * query and the raw request a user would send by hand (the same values, not the builder's output:
 * a value the builder cleans is sent dirty), compared on the first error's code and every warning
 * (code and module, duplicates kept). Complements the generated differential (`differential.test.ts`)
 * with the checks it cannot generate: page-set normalization, badutf8, warnings counted once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allpages } from '../../../sdk/src/generated/wiki/allpages.js';
import { categories } from '../../../sdk/src/generated/wiki/categories.js';
import { categorymembers } from '../../../sdk/src/generated/wiki/categorymembers.js';
import { images } from '../../../sdk/src/generated/wiki/images.js';
import { info } from '../../../sdk/src/generated/wiki/info.js';
import { links } from '../../../sdk/src/generated/wiki/links.js';
import { logevents } from '../../../sdk/src/generated/wiki/logevents.js';
import { recentchanges } from '../../../sdk/src/generated/wiki/recentchanges.js';
import { revisions } from '../../../sdk/src/generated/wiki/revisions.js';
import { templates } from '../../../sdk/src/generated/wiki/templates.js';
import { usercontribs } from '../../../sdk/src/generated/wiki/usercontribs.js';
import { encodeForm } from '../../../sdk/src/wiki/form.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import { WikiParamError, type WikiWarning } from '../../../sdk/src/wiki/types.js';
import { HISTORY_PAGE, mediawiki, startMediaWiki } from '../../support/mediawiki.js';

interface Verdict {
  error?: string;
  warnings: string[];
}

const page = HISTORY_PAGE;
const ts = '2020-01-01T00:00:00Z';
const lower = page[0]!.toLowerCase() + page.slice(1);

const CASES: [string, QueryInput, Record<string, string>][] = [
  [
    'rv startid+start',
    { titles: [page], prop: [revisions({ startid: 1, start: ts })] },
    { titles: page, prop: 'revisions', rvstartid: '1', rvstart: ts },
  ],
  [
    'rv endid+end',
    { titles: [page], prop: [revisions({ endid: 1, end: ts })] },
    { titles: page, prop: 'revisions', rvendid: '1', rvend: ts },
  ],
  [
    'rv user+excludeuser',
    { titles: [page], prop: [revisions({ user: 'A', excludeuser: 'B' })] },
    { titles: page, prop: 'revisions', rvuser: 'A', rvexcludeuser: 'B' },
  ],
  [
    'rv content without slots',
    { titles: [page], prop: [revisions({ prop: ['ids', 'content'] })] },
    { titles: page, prop: 'revisions', rvprop: 'ids|content' },
  ],
  [
    'rv content with slots',
    { titles: [page], prop: [revisions({ prop: ['content'], slots: ['main'] })] },
    { titles: page, prop: 'revisions', rvprop: 'content', rvslots: 'main' },
  ],
  [
    'rv content without slots, then startid+start',
    { titles: [page], prop: [revisions({ prop: ['content'], startid: 1, start: ts })] },
    { titles: page, prop: 'revisions', rvprop: 'content', rvstartid: '1', rvstart: ts },
  ],
  [
    'rv start "" (unclearnowtimestamp once)',
    { titles: [page], prop: [revisions({ start: '', limit: 2 })] },
    { titles: page, prop: 'revisions', rvstart: '', rvlimit: '2' },
  ],
  [
    'rv start "0"',
    { titles: [page], prop: [revisions({ start: '0', limit: 2 })] },
    { titles: page, prop: 'revisions', rvstart: '0', rvlimit: '2' },
  ],
  [
    'rv limit, one page under two spellings',
    { titles: [page, lower], prop: [revisions({ limit: 1 })] },
    { titles: `${page}|${lower}`, prop: 'revisions', rvlimit: '1' },
  ],
  [
    'rv limit, two pages',
    { titles: [page, 'Apple'], prop: [revisions({ limit: 1 })] },
    { titles: `${page}|Apple`, prop: 'revisions', rvlimit: '1' },
  ],
  [
    'rv startid+start without pages',
    { prop: [revisions({ startid: 1, start: ts, prop: ['content'] })] },
    { prop: 'revisions', rvstartid: '1', rvstart: ts, rvprop: 'content' },
  ],
  [
    'rv startid+start, pages from a generator',
    { generator: allpages.asGenerator({ limit: 1 }), prop: [revisions({ startid: 1, start: ts })] },
    { generator: 'allpages', gaplimit: '1', prop: 'revisions', rvstartid: '1', rvstart: ts },
  ],
  ['pl titles bad without pages', { prop: [links({ titles: ['A['] })] }, { prop: 'links', pltitles: 'A[' }],
  [
    'uc show top|!top',
    { list: [usercontribs({ user: ['Admin'], show: ['top', '!top'] })] },
    { list: 'usercontribs', ucuser: 'Admin', ucshow: 'top|!top' },
  ],
  [
    'uc show new|!new',
    { list: [usercontribs({ user: ['Admin'], show: ['new', '!new'] })] },
    { list: 'usercontribs', ucuser: 'Admin', ucshow: 'new|!new' },
  ],
  ['uc iprange notanip', { list: [usercontribs({ iprange: 'notanip' })] }, { list: 'usercontribs', uciprange: 'notanip' }],
  ['uc iprange /8', { list: [usercontribs({ iprange: '10.0.0.0/8' })] }, { list: 'usercontribs', uciprange: '10.0.0.0/8' }],
  ['uc iprange /16', { list: [usercontribs({ iprange: '10.0.0.0/16' })] }, { list: 'usercontribs', uciprange: '10.0.0.0/16' }],
  [
    'uc iprange IPv6 /16',
    { list: [usercontribs({ iprange: '2001:db8::/16' })] },
    { list: 'usercontribs', uciprange: '2001:db8::/16' },
  ],
  ['rc title bad', { list: [recentchanges({ title: 'A[b' })] }, { list: 'recentchanges', rctitle: 'A[b' }],
  ['le title bad', { list: [logevents({ title: 'A[' })] }, { list: 'logevents', letitle: 'A[' }],
  ['le prefix bad', { list: [logevents({ prefix: 'A<' })] }, { list: 'logevents', leprefix: 'A<' }],
  [
    'cm starthexsortkey zz',
    { list: [categorymembers({ title: 'Category:Fruit', starthexsortkey: 'zz' })] },
    { list: 'categorymembers', cmtitle: 'Category:Fruit', cmstarthexsortkey: 'zz' },
  ],
  [
    'cm endhexsortkey abc',
    { list: [categorymembers({ title: 'Category:Fruit', endhexsortkey: 'abc' })] },
    { list: 'categorymembers', cmtitle: 'Category:Fruit', cmendhexsortkey: 'abc' },
  ],
  [
    'pl titles bad',
    { titles: ['Apple'], prop: [links({ titles: ['A[', 'Banana'] })] },
    { titles: 'Apple', prop: 'links', pltitles: 'A[|Banana' },
  ],
  [
    'tl templates bad',
    { titles: ['Apple'], prop: [templates({ templates: ['x<y'] })] },
    { titles: 'Apple', prop: 'templates', tltemplates: 'x<y' },
  ],
  [
    'cl categories outside Category:',
    { titles: ['Apple'], prop: [categories({ categories: ['Fruit', 'Category:Fruit'] })] },
    { titles: 'Apple', prop: 'categories', clcategories: 'Fruit|Category:Fruit' },
  ],
  [
    'im images outside File:',
    { titles: ['Apple'], prop: [images({ images: ['X.png'] })] },
    { titles: 'Apple', prop: 'images', imimages: 'X.png' },
  ],
  ['titles not NFC', { titles: ['Cafe\u0301'], prop: [info()] }, { titles: 'Cafe\u0301', prop: 'info' }],
  ['titles with a C0 control', { titles: ['a\u0001b'], prop: [info()] }, { titles: 'a\u0001b', prop: 'info' }],
  ['rctitle not NFC', { list: [recentchanges({ title: 'Cafe\u0301' })] }, { list: 'recentchanges', rctitle: 'Cafe\u0301' }],
];

/** `code@module`, the module as the API names it (`revisions`, not `query+revisions`). */
const named = (w: { code: string; module?: string }) => `${w.code}@${(w.module ?? '').split('+').pop()}`;

function builderVerdict(input: QueryInput): Verdict {
  try {
    return { warnings: query(input).warnings.map(named) };
  } catch (e) {
    if (!(e instanceof WikiParamError)) throw e;
    return { error: e.code, warnings: e.warnings.map((w: WikiWarning) => named(w)) };
  }
}

describe.skipIf(!mediawiki.available)('the builders agree with the live MediaWiki 1.39 (user-test cases)', () => {
  let api: string;
  beforeAll(async () => {
    api = (await startMediaWiki()).api;
  }, 120_000);

  const apiVerdict = async (raw: Record<string, string>): Promise<Verdict> => {
    const params = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext', ...raw };
    const res = await fetch(api, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encodeForm(params),
    });
    const body = (await res.json()) as { errors?: { code: string }[]; warnings?: { code: string; module: string }[] };
    const verdict: Verdict = { warnings: (body.warnings ?? []).map(named) };
    if (body.errors?.[0]) verdict.error = body.errors[0].code;
    return verdict;
  };

  for (const [label, input, raw] of CASES) {
    it(label, async () => {
      expect(builderVerdict(input)).toEqual(await apiVerdict(raw));
    });
  }
});
