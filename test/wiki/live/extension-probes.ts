/**
 * Probes of the extension modules' own checks, written by hand from the PHP of Debian's bundled extensions
 * (/usr/share/mediawiki/extensions/<Name>/…: execute() and the ApiBase helpers it calls) and from what the
 * extension wiki answers — never from `catalogue/rules.json`, so a rule the project lacks shows up as a
 * disagreement. Each probe is one raw request (unprefixed values); `pages` are the titles it sends.
 *
 * Every page a probe names exists unless its label says otherwise (Apple is page 2, Fruit 01 page 6: the seed's
 * import order; the extension wiki's own File:Apple.jpg, Banana and MediaWiki:Common.css follow); the probes run
 * anonymously, so checks behind a permission (OATHAuth's, AbuseFilter's private filters and details) answer
 * `permissiondenied`. Checks that need the wiki's state (those permissions, which pages exist, their ids) are
 * left to the wiki: their probes are in the `state` category, where the wiki refuses and the builder need not.
 */

export type Extension = 'TextExtracts' | 'PageImages' | 'AbuseFilter' | 'Gadgets' | 'OATHAuth';
export type ExtensionProbeCategory = 'combination' | 'continue' | 'show' | 'title' | 'value' | 'accepted' | 'warnings' | 'state';

export interface ExtensionProbeUse {
  module: string;
  params: Record<string, string>;
  generator?: true;
}

export interface ExtensionProbe {
  extension: Extension;
  category: ExtensionProbeCategory;
  label: string;
  uses: ExtensionProbeUse[];
  titles?: string[];
  pageids?: string[];
}

const PAGE = ['Apple'];
const probe = (
  extension: Extension,
  category: ExtensionProbeCategory,
  module: string,
  params: Record<string, string>,
  pages: { titles?: string[]; pageids?: string[] } = {},
): ExtensionProbe => ({
  extension,
  category,
  label: `${module} ${JSON.stringify(params)}${pages.titles ? ` titles=${pages.titles.join('|')}` : ''}${pages.pageids ? ` pageids=${pages.pageids.join('|')}` : ''}`,
  uses: [{ module, params }],
  ...pages,
});

/** ApiQueryExtracts::execute(): returns at once without good titles; requireMaxOneParameter(chars, sentences); continue. */
const textExtracts: ExtensionProbe[] = [
  probe('TextExtracts', 'combination', 'extracts', { chars: '100', sentences: '2' }, { titles: PAGE }),
  probe('TextExtracts', 'combination', 'extracts', { chars: '100', sentences: '2', plaintext: '1' }, { titles: PAGE }),
  probe('TextExtracts', 'combination', 'extracts', { chars: '100' }, { titles: PAGE }),
  // ParamValidator raises 0 to exchars' minimum (a warning) before requireMaxOneParameter sees it.
  probe('TextExtracts', 'combination', 'extracts', { chars: '0', sentences: '2' }, { titles: PAGE }),
  probe('TextExtracts', 'combination', 'extracts', { sentences: '2' }, { titles: PAGE }),
  probe('TextExtracts', 'combination', 'extracts', { chars: '100', sentences: '2' }),
  {
    extension: 'TextExtracts',
    category: 'combination',
    label: 'generator=allpages + extracts chars+sentences',
    uses: [
      { module: 'allpages', params: { limit: '2' }, generator: true },
      { module: 'extracts', params: { chars: '100', sentences: '2' } },
    ],
  },
  // intval($continue) < 0 || > count($titles) → dieContinueUsageIf; the value is an integer (ParamValidator) first.
  probe('TextExtracts', 'continue', 'extracts', { continue: '-1' }, { titles: PAGE }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '0' }, { titles: PAGE }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '1' }, { titles: PAGE }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '1' }, { titles: ['Apple', 'Fruit 01'] }),
  probe('TextExtracts', 'continue', 'extracts', { continue: 'x' }, { titles: PAGE }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '-1' }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '-0' }, { titles: PAGE }),
  // Beyond the number of titles that may be pages: refused whichever of them exist.
  probe('TextExtracts', 'continue', 'extracts', { continue: '2' }, { titles: PAGE }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '2' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'continue', 'extracts', { continue: '3', intro: '1' }, { titles: ['Apple', 'Banana', 'apple'] }),
  // Beyond the pages that exist, within the titles given: the wiki's.
  probe('TextExtracts', 'state', 'extracts', { continue: '2', intro: '1' }, { titles: ['Apple', 'No such page'] }),
  probe('TextExtracts', 'value', 'extracts', { chars: '0' }, { titles: PAGE }),
  probe('TextExtracts', 'value', 'extracts', { chars: '5000', limit: 'max' }, { titles: PAGE }),
  probe('TextExtracts', 'value', 'extracts', { sentences: '11', plaintext: '1' }, { titles: PAGE }),
  probe('TextExtracts', 'value', 'extracts', { limit: '21' }, { titles: ['Apple', 'Fruit 01'] }),
  probe('TextExtracts', 'value', 'extracts', { sectionformat: 'x' }, { titles: PAGE }),
  probe('TextExtracts', 'value', 'extracts', { sectionformat: 'raw', intro: '1', plaintext: '1' }, { titles: PAGE }),
  probe('TextExtracts', 'value', 'extracts', { chars: 'x' }, { titles: PAGE }),
  // Whole extracts of several pages: the limit lowered to 1 (textextracts-limit), each read page's own warnings.
  probe('TextExtracts', 'warnings', 'extracts', {}, { titles: ['Apple', 'Fruit 01'] }),
  probe('TextExtracts', 'warnings', 'extracts', { sentences: '2' }, { titles: ['Apple', 'Fruit 01'] }),
  probe('TextExtracts', 'warnings', 'extracts', { sentences: '2', plaintext: '1' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { limit: '25' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { limit: '25', sentences: '1' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { limit: '1' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { intro: '1' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { intro: '1', plaintext: '1' }, { titles: ['Apple', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', {}, { pageids: ['2', '6'] }),
  probe('TextExtracts', 'warnings', 'extracts', { plaintext: '1' }, { titles: ['File:Apple.jpg'] }),
  probe('TextExtracts', 'warnings', 'extracts', { intro: '1' }, { titles: ['File:Apple.jpg', 'Banana'] }),
  probe('TextExtracts', 'warnings', 'extracts', { sentences: '3' }, { titles: ['File:Apple.jpg'] }),
  probe('TextExtracts', 'warnings', 'extracts', { chars: '50', plaintext: '1', sectionformat: 'wiki' }, { titles: ['Banana'] }),
  {
    extension: 'TextExtracts',
    category: 'warnings',
    label: 'generator=allpages gaplimit=3 + extracts',
    uses: [
      { module: 'allpages', params: { limit: '3' }, generator: true },
      { module: 'extracts', params: {} },
    ],
  },
];

/** ApiQueryPageImages::execute(): prop empty → noprop (before the pages); continue must be a page id of the set, not the first. */
const pageImages: ExtensionProbe[] = [
  probe('PageImages', 'value', 'pageimages', { prop: '' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { prop: '' }),
  // ParamValidator drops an unrecognized '' (a warning) before execute() reads the values.
  probe('PageImages', 'value', 'pageimages', { prop: 'name|' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { prop: '|' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { prop: 'original' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { prop: 'x' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { thumbsize: 'x' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { limit: 'max', license: 'any', langcode: 'de' }, { titles: PAGE }),
  probe('PageImages', 'value', 'pageimages', { license: 'x' }, { titles: PAGE }),
  // array_search(intval(continue), page ids) falsy: 0 is never a page id; the first page's id is offset 0.
  probe('PageImages', 'continue', 'pageimages', { continue: '0' }, { titles: PAGE }),
  probe('PageImages', 'continue', 'pageimages', { continue: '00' }, { titles: PAGE }),
  probe('PageImages', 'continue', 'pageimages', { continue: '0' }),
  probe('PageImages', 'continue', 'pageimages', { continue: '0' }, { titles: ['File:Nothing here.png'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: 'x' }, { titles: PAGE }),
  probe('PageImages', 'continue', 'pageimages', { continue: '6' }, { pageids: ['2', '6'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: '5' }),
  // With page IDs alone: the lowest is read first (offset 0), one not given is not in the set.
  probe('PageImages', 'continue', 'pageimages', { continue: '2' }, { pageids: ['2', '6'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: '2' }, { pageids: ['6', '2'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: '3' }, { pageids: ['2', '6'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: '6' }, { pageids: ['6', '2'] }),
  // Negative ids are missing File: pages': none without a File: title.
  probe('PageImages', 'continue', 'pageimages', { continue: '-1' }, { titles: ['Apple', 'Banana'] }),
  // With titles, which id each page has is the wiki's.
  probe('PageImages', 'state', 'pageimages', { continue: '7' }, { titles: ['Apple', 'Banana'] }),
  {
    extension: 'PageImages',
    category: 'continue',
    label: 'generator=allpages + pageimages continue=0',
    uses: [
      { module: 'allpages', params: { limit: '2' }, generator: true },
      { module: 'pageimages', params: { continue: '0' } },
    ],
  },
];

/** QueryAbuseFilters::execute() (show exclusivity) and QueryAbuseLog::execute() (title, filter names). */
const abuseFilter: ExtensionProbe[] = [
  probe('AbuseFilter', 'show', 'abusefilters', { show: 'enabled|!enabled' }),
  probe('AbuseFilter', 'show', 'abusefilters', { show: 'deleted|!deleted' }),
  probe('AbuseFilter', 'show', 'abusefilters', { show: 'private|!private' }),
  probe('AbuseFilter', 'show', 'abusefilters', { show: 'enabled|!deleted|private' }),
  probe('AbuseFilter', 'show', 'abusefilters', { show: '!enabled|!deleted|!private' }),
  probe('AbuseFilter', 'show', 'abusefilters', { show: 'enabled|!enabled', startid: '5', endid: '1' }),
  probe('AbuseFilter', 'value', 'abusefilters', { startid: '5', endid: '1', dir: 'newer' }),
  probe('AbuseFilter', 'value', 'abusefilters', { prop: 'pattern|hits|private|lasteditor', limit: 'max' }),
  probe('AbuseFilter', 'value', 'abusefilters', { startid: 'x' }),
  // Title::newFromText($params['title']) === null → apierror-invalidtitle; an interwiki or fragment-only title is a title.
  probe('AbuseFilter', 'title', 'abuselog', { title: 'a[b' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: '' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'Apple' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'Talk:Apple' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: '#frag' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'A&amp;B' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'A&#91;B' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'Special:Nothing' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: 'Talk:' }),
  probe('AbuseFilter', 'title', 'abuselog', { title: '../x' }),
  // splitGlobalName: an invalid name only warns; the user is never checked.
  probe('AbuseFilter', 'value', 'abuselog', { filter: 'x' }),
  probe('AbuseFilter', 'value', 'abuselog', { filter: '1|1.5| 2' }),
  probe('AbuseFilter', 'value', 'abuselog', { user: 'a[b' }),
  probe('AbuseFilter', 'value', 'abuselog', { user: '10.0.0.1', start: '2024-01-01T00:00:00Z', end: '2020-01-01T00:00:00Z' }),
  probe('AbuseFilter', 'value', 'abuselog', { logid: 'x' }),
  // A filter that is not a filter name, or (for a client who cannot see private filters) not found: one warning.
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: 'x' }),
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: '1' }),
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: 'x|1.5|-3' }),
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: '' }),
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: 'x', title: 'a[b' }),
  probe('AbuseFilter', 'warnings', 'abuselog', { filter: 'nope', limit: '600' }),
  // Behind a permission: a global filter is "hidden" without a central database; details need abusefilter-log-detail.
  probe('AbuseFilter', 'state', 'abuselog', { filter: 'global-2' }),
  probe('AbuseFilter', 'state', 'abuselog', { prop: 'details', title: 'a[b' }),
];

/** ApiQueryGadgets / ApiQueryGadgetCategories::execute(): no checks of their own. */
const gadgets: ExtensionProbe[] = [
  probe('Gadgets', 'accepted', 'gadgets', {}),
  probe('Gadgets', 'accepted', 'gadgets', { prop: '' }),
  probe('Gadgets', 'accepted', 'gadgets', {
    prop: 'id|desc|metadata',
    categories: 'x|y',
    ids: 'a',
    allowedonly: '1',
    enabledonly: '1',
  }),
  probe('Gadgets', 'accepted', 'gadgets', { ids: '' }),
  probe('Gadgets', 'value', 'gadgets', { prop: 'x' }),
  probe('Gadgets', 'accepted', 'gadgetcategories', {}),
  probe('Gadgets', 'accepted', 'gadgetcategories', { prop: 'members|name|title', names: 'x' }),
  probe('Gadgets', 'accepted', 'gadgetcategories', { prop: '', names: '' }),
  probe('Gadgets', 'value', 'gadgetcategories', { prop: 'x' }),
];

/** ApiQueryOATH::execute(): extractRequestParams() (ParamValidator), then the rights check, then the rest. */
const oathAuth: ExtensionProbe[] = [
  probe('OATHAuth', 'value', 'oath', { user: 'a[b' }),
  probe('OATHAuth', 'value', 'oath', { user: 'Admin|Other' }),
  probe('OATHAuth', 'state', 'oath', {}),
  probe('OATHAuth', 'state', 'oath', { user: 'Admin', reason: '' }),
  probe('OATHAuth', 'state', 'oath', { user: '10.0.0.1' }),
];

/**
 * Requests the wiki accepts only because none of their pages exists (execute() returns before its checks):
 * the builders, which cannot know, refuse them as for pages that exist, like the core prop modules' rules.
 */
export const MISSING_PAGE_PROBES: readonly ExtensionProbe[] = [
  probe('TextExtracts', 'combination', 'extracts', { chars: '100', sentences: '2' }, { titles: ['No such page'] }),
  probe('PageImages', 'continue', 'pageimages', { continue: '0' }, { titles: ['No such page'] }),
];

export const EXTENSION_PROBES: readonly ExtensionProbe[] = [
  ...textExtracts,
  ...pageImages,
  ...abuseFilter,
  ...gadgets,
  ...oathAuth,
];
