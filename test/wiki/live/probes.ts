/**
 * Probes of the modules' own checks, written by hand from MediaWiki 1.39's PHP (includes/api/ApiQuery*.php,
 * ApiContinuationManager.php) and from what the wiki answers — never from `catalogue/rules.json`, so a
 * rule the project lacks shows up as a disagreement. Each probe is one raw request: the modules with their
 * unprefixed raw values, and the top-level `continue` or titles it carries.
 */

export type ProbeCategory =
  | 'continue'
  | 'top-continue'
  | 'generator'
  | 'title-part'
  | 'show'
  | 'combination'
  | 'value'
  | 'title'
  | 'no-page'
  | 'warnings';

export interface ProbeUse {
  module: string;
  params: Record<string, string>;
  generator?: true;
}

export interface Probe {
  category: ProbeCategory;
  /** What the probe asks, from the PHP it reads. */
  label: string;
  uses: ProbeUse[];
  titles?: string[];
  /** The top-level `continue`. */
  continue?: string;
  /** The query's `redirects`. */
  redirects?: true;
  /** Compare the warnings too (their codes, in order), beside an error as well as without one. */
  warnings?: true;
}

const use = (module: string, params: Record<string, string> = {}): ProbeUse => ({ module, params });
const gen = (module: string, params: Record<string, string> = {}): ProbeUse => ({ module, params, generator: true });
const one = (
  category: ProbeCategory,
  label: string,
  module: string,
  params: Record<string, string>,
  titles?: string[],
): Probe => ({
  category,
  label,
  uses: [use(module, params)],
  ...(titles ? { titles } : {}),
});
const TS = '20240101000000';
const PAGE = ['Apple'];

/** `continue` values, valid and malformed, for each module that parses one (explode, then dieContinueUsageIf). */
const continues: Probe[] = [
  // [module, extra params, titles?, values]
  ...(
    [
      ['allcategories', {}, undefined, ['A', '', 'A|B']],
      ['allpages', {}, undefined, ['A', '', 'A|B']],
      ['allimages', {}, undefined, ['A', 'A|B']],
      ['allimages', { sort: 'timestamp' }, undefined, [`${TS}|A`, 'A']],
      ['alllinks', {}, undefined, ['Apple|1', 'garbage', '']],
      ['alllinks', { unique: '1' }, undefined, ['Apple', 'Apple|1']],
      ['allfileusages', {}, undefined, ['garbage', 'A|x']],
      ['allredirects', {}, undefined, ['A|1|2']],
      ['alltransclusions', {}, undefined, ['Infobox|3', 'Infobox']],
      ['allrevisions', {}, undefined, [`${TS}|5`, `${TS}|x`, `${TS}|05`, `${TS}|-5`, `${TS}|5|6`, `${TS}|99999999999999999999`]],
      [
        'backlinks',
        { title: 'Apple' },
        undefined,
        ['0|12', '0|x', '0|12|0', '0|12|0|Apple|0|3', '0|12|0|Apple|0|3|5|6', '0|12|0|Apple|y|3', '0|12|0|Apple|0|3|5|6|7'],
      ],
      ['embeddedin', { title: 'Template:Infobox' }, undefined, ['10|1', '10', ' 10|1']],
      ['imageusage', { title: 'File:A.png' }, undefined, ['6|1', '6|1.0']],
      ['blocks', {}, undefined, [`${TS}|5`, `${TS}|x`, `${TS}| 5`, `${TS}|5.5`, `${TS}|1e1`]],
      [
        'categorymembers',
        { title: 'Category:Fruit' },
        undefined,
        ['page|4150504c45|7', '', '0', 'page|4150504c45|7|x', 'page|4|7', 'page|41', 'subcat||1', 'page|zz|1'],
      ],
      ['categorymembers', { title: 'Category:Fruit', sort: 'timestamp' }, undefined, [`${TS}|7`, `${TS}|x`, `${TS}| 7 `, 'x']],
      ['logevents', {}, undefined, [`${TS}|1`, `${TS}|a`, `${TS}`]],
      ['protectedtitles', {}, undefined, [`${TS}|0|A`, `${TS}|x|A`, `${TS}|0`]],
      ['random', {}, undefined, ['0.5|0.25|3|1', '0.5|1.25|3|1', '0.5|0.25|x|1', '0.5|0.25|3|2', '0.5|0.25|3']],
      ['recentchanges', {}, undefined, [`${TS}|7`, `${TS}|7x`, `${TS}|`, `${TS}|0x1A`, `${TS}`]],
      ['pagepropnames', {}, undefined, ['x', '0', 'a|b']],
      ['pageswithprop', { propname: 'x' }, undefined, ['5', '0', '', 'a|b']],
      ['usercontribs', { user: 'Admin' }, undefined, [`${TS}|5`, `${TS}|x`, `${TS}`]],
      ['iwbacklinks', {}, undefined, ['a|b|1', 'a|b']],
      ['langbacklinks', {}, undefined, ['a|b|1', 'a|b']],
      ['categories', {}, PAGE, ['1|Fruit', '1']],
      ['images', {}, PAGE, ['1|A.png', '1']],
      ['links', {}, PAGE, ['1|0|Apple', '1|0']],
      ['templates', {}, PAGE, ['1|10|Infobox', '1|10']],
      ['langlinks', {}, PAGE, ['1|de', '1']],
      ['iwlinks', {}, PAGE, ['1|w|X', '1|w']],
      ['contributors', {}, PAGE, ['1|1', '1']],
      ['duplicatefiles', {}, ['File:A.png'], ['A.png|B.png', 'A.png']],
      ['duplicatefiles', {}, PAGE, ['A.png']],
      ['pageprops', {}, PAGE, ['5', '0', 'x', '1|2']],
    ] as [string, Record<string, string>, string[] | undefined, string[]][]
  ).flatMap(([module, extra, titles, values]) =>
    values.map((v) => one('continue', `${module} continue=${JSON.stringify(v)}`, module, { ...extra, continue: v }, titles)),
  ),
];

/** ApiContinuationManager: exactly one `||`; the named modules and, with `-`, the prop modules are not executed. */
const topContinue: Probe[] = [
  { category: 'top-continue', label: 'continue=x', uses: [use('allpages')], continue: 'x' },
  { category: 'top-continue', label: 'continue=a||b||c', uses: [use('allpages')], continue: 'a||b||c' },
  { category: 'top-continue', label: 'continue=-||', uses: [use('allpages')], continue: '-||' },
  {
    category: 'top-continue',
    label: 'continue=-|| skips nothing: apcontinue=A|B',
    uses: [use('allpages', { continue: 'A|B' })],
    continue: '-||',
  },
  {
    category: 'top-continue',
    label: 'continue=-||allpages skips apcontinue=A|B',
    uses: [use('allpages', { continue: 'A|B' })],
    continue: '-||allpages',
  },
  {
    category: 'top-continue',
    label: 'continue=-||allpages skips allpages, not recentchanges',
    uses: [use('allpages', { continue: 'A|B' }), use('recentchanges', { continue: 'x' })],
    continue: '-||allpages',
  },
  {
    category: 'top-continue',
    label: 'continue=-|| skips the prop modules',
    uses: [use('categories', { continue: '1' })],
    titles: PAGE,
    continue: '-||',
  },
  {
    category: 'top-continue',
    label: 'continue=-|| with a generator: the generator does not run',
    uses: [gen('allpages', { continue: 'A|B' })],
    continue: '-||',
  },
  {
    category: 'top-continue',
    label: 'continue=gapcontinue|| runs the generator',
    uses: [gen('allpages', { continue: 'A|B' })],
    continue: 'gapcontinue||',
  },
];

/** A generator gives the prop modules pages: their run() checks apply. */
const generator: Probe[] = [
  {
    category: 'generator',
    label: 'allpages + linkshere show=redirect|!redirect',
    uses: [gen('allpages'), use('linkshere', { show: 'redirect|!redirect' })],
  },
  {
    category: 'generator',
    label: 'allpages + categories show=hidden|!hidden',
    uses: [gen('allpages'), use('categories', { show: 'hidden|!hidden' })],
  },
  { category: 'generator', label: 'allpages + links continue=1', uses: [gen('allpages'), use('links', { continue: '1' })] },
  {
    category: 'generator',
    label: 'allpages + revisions user+excludeuser',
    uses: [gen('allpages'), use('revisions', { user: 'A', excludeuser: 'B' })],
  },
  {
    category: 'generator',
    label: 'categorymembers gen continue=page|41|7|x',
    uses: [gen('categorymembers', { title: 'Category:Fruit', continue: 'page|41|7|x' })],
  },
  { category: 'generator', label: 'random gen continue=x', uses: [gen('random', { continue: 'x' })] },
  {
    category: 'generator',
    label: 'no pages: linkshere show=redirect|!redirect runs nothing',
    uses: [use('linkshere', { show: 'redirect|!redirect' })],
  },
];

/** titlePartToKey: Title::makeTitleSafe($ns, $part . 'x') in the module's namespace. */
const titleParts: Probe[] = (
  [
    ['allpages', { prefix: 'Talk:X' }],
    ['allpages', { prefix: 'Talk:X', namespace: '4' }],
    ['allpages', { from: 'a{b' }],
    ['allcategories', { prefix: 'Category:X' }],
    ['allcategories', { from: 'X#y' }],
    ['alllinks', { prefix: 'Talk:X' }],
    ['alllinks', { from: 'a[b' }],
    ['allredirects', { prefix: 'Talk:X' }],
    ['allredirects', { to: 'Talk:X', namespace: '1' }],
    ['allredirects', { to: 'X', namespace: '1' }],
    ['alltransclusions', { prefix: 'Talk:X' }],
    ['alltransclusions', { from: 'Infobox' }],
    ['allfileusages', { prefix: 'Talk:X' }],
    ['allfileusages', { from: 'a{b' }],
    ['allimages', { prefix: 'Talk:X' }],
    ['allimages', { to: 'X#y' }],
    ['allimages', { from: 'A.png' }],
    ['filearchive', { prefix: 'X#y' }],
  ] as [string, Record<string, string>][]
).map(([m, p]) => one('title-part', `${m} ${JSON.stringify(p)}`, m, p));

const shows: Probe[] = [
  one('show', 'fileusage show=redirect|!redirect', 'fileusage', { show: 'redirect|!redirect' }, ['File:A.png']),
  one('show', 'fileusage show=redirect|!redirect, no File: page', 'fileusage', { show: 'redirect|!redirect' }, PAGE),
  one('show', 'fileusage show=redirect|!redirect namespace=', 'fileusage', { show: 'redirect|!redirect', namespace: '' }, [
    'File:A.png',
  ]),
  one('show', 'linkshere show=redirect|!redirect', 'linkshere', { show: 'redirect|!redirect' }, PAGE),
  one('show', 'linkshere show=redirect|!redirect namespace=', 'linkshere', { show: 'redirect|!redirect', namespace: '' }, PAGE),
  one('show', 'redirects show=fragment|!fragment', 'redirects', { show: 'fragment|!fragment' }, PAGE),
  one('show', 'redirects show=fragment|!redirect', 'redirects', { show: 'fragment|!redirect' }, PAGE),
  one('show', 'transcludedin show=redirect|!redirect', 'transcludedin', { show: 'redirect|!redirect' }, ['Template:Infobox']),
  one('show', 'recentchanges show=minor|!minor', 'recentchanges', { show: 'minor|!minor' }),
  one('show', 'blocks show=ip|!ip', 'blocks', { show: 'ip|!ip' }),
];

const combinations: Probe[] = [
  one('combination', 'random filterredir+redirect', 'random', { filterredir: 'all', redirect: '1' }),
  one('combination', 'random redirect alone', 'random', { redirect: '1' }),
  one('combination', 'allimages filterbots=bots, sort=name', 'allimages', { filterbots: 'bots' }),
  one('combination', 'allimages filterbots=all, sort=name', 'allimages', { filterbots: 'all' }),
  one('combination', 'allimages filterbots=bots, sort=timestamp', 'allimages', { filterbots: 'bots', sort: 'timestamp' }),
  one('combination', 'alllinks unique+prop=ids', 'alllinks', { unique: '1', prop: 'ids|title' }),
  one('combination', 'alllinks unique+prop=title', 'alllinks', { unique: '1', prop: 'title' }),
  one('combination', 'allredirects unique+prop=fragment', 'allredirects', { unique: '1', prop: 'fragment' }),
  one('combination', 'allfileusages unique+prop=ids', 'allfileusages', { unique: '1', prop: 'ids' }),
];

/** run()'s value checks, read from each module's PHP. */
const valueChecks: Probe[] = [
  one('value', 'revisions diffto=x', 'revisions', { diffto: 'x' }, PAGE),
  one('value', 'revisions diffto=prev', 'revisions', { diffto: 'prev' }, PAGE),
  one('value', 'revisions diffto=cur', 'revisions', { diffto: 'cur' }, PAGE),
  one('value', 'revisions diffto=-1', 'revisions', { diffto: '-1' }, PAGE),
  one('value', 'revisions diffto=x difftotext=y', 'revisions', { diffto: 'x', difftotext: 'y' }, PAGE),
  one('value', 'allrevisions diffto=x', 'allrevisions', { diffto: 'x' }),
  one(
    'value',
    'revisions slots=main contentformat=text/x-wiki',
    'revisions',
    { slots: 'main', contentformat: 'text/x-wiki' },
    PAGE,
  ),
  one('value', 'revisions slots=main expandtemplates', 'revisions', { slots: 'main', expandtemplates: '1' }, PAGE),
  one('value', 'revisions slots=main prop=parsetree', 'revisions', { slots: 'main', prop: 'parsetree' }, PAGE),
  one('value', 'revisions slots=main prop=content', 'revisions', { slots: 'main', prop: 'content' }, PAGE),
  one('value', 'allrevisions slots=main parse', 'allrevisions', { slots: 'main', prop: 'content', parse: '1' }),
  one('value', 'blocks ip=10.0.0.0/8', 'blocks', { ip: '10.0.0.0/8' }),
  one('value', 'blocks ip=10.0.0.0/16', 'blocks', { ip: '10.0.0.0/16' }),
  one('value', 'blocks ip=10.0.0.1', 'blocks', { ip: '10.0.0.1' }),
  one('value', 'blocks ip=2001:db8::/16', 'blocks', { ip: '2001:db8::/16' }),
  one('value', 'blocks ip=2001:db8::/19', 'blocks', { ip: '2001:db8::/19' }),
  one('value', 'blocks ip=x', 'blocks', { ip: 'x' }),
  one('value', 'usercontribs user=', 'usercontribs', { user: '' }),
  one('value', 'usercontribs userids=0', 'usercontribs', { userids: '0' }),
  one('value', 'usercontribs userids=', 'usercontribs', { userids: '' }),
  one('value', 'usercontribs userids=1', 'usercontribs', { userids: '1' }),
  one('value', 'usercontribs iprange=10.0.0.0/8', 'usercontribs', { iprange: '10.0.0.0/8' }),
  one('value', 'allimages sha1=x', 'allimages', { sha1: 'x' }),
  one('value', 'allimages sha1=40 hex, upper case', 'allimages', { sha1: 'ABCDEF0123456789ABCDEF0123456789ABCDEF01' }),
  one('value', 'allimages sha1base36=x', 'allimages', { sha1base36: 'x' }),
  one('value', 'allimages sha1base36=31 chars', 'allimages', { sha1base36: 'abcdefghijklmnopqrstuvwxyz01234' }),
  one('value', 'allimages sha1=x sha1base36=31 chars', 'allimages', { sha1: 'x', sha1base36: 'abcdefghijklmnopqrstuvwxyz01234' }),
  one('value', 'allmessages enableparser title=a[b', 'allmessages', { enableparser: '1', title: 'a[b' }),
  one('value', 'allmessages title=a[b without enableparser', 'allmessages', { title: 'a[b' }),
  one('value', 'logevents action=delete/delete', 'logevents', { action: 'delete/delete' }),
  one('value', 'logevents action=delete', 'logevents', { action: 'delete' }),
  one('value', 'logevents action=nosuch/thing', 'logevents', { action: 'nosuch/thing' }),
  one('value', 'logevents action=block/nosuch', 'logevents', { action: 'block/nosuch' }),
];

/** Title::newFromText decodes character references (Sanitizer::decodeCharReferencesAndNormalize). */
const titles: Probe[] = [
  one('title', 'imageusage title=A&amp;B', 'imageusage', { title: 'A&amp;B' }),
  one('title', 'imageusage title=File:A&amp;B', 'imageusage', { title: 'File:A&amp;B' }),
  one('title', 'backlinks title=A&#91;B', 'backlinks', { title: 'A&#91;B' }),
  one('title', 'backlinks title=A&bogus;B', 'backlinks', { title: 'A&bogus;B' }),
  one('title', 'categorymembers title=Category&#58;Fruit', 'categorymembers', { title: 'Category&#58;Fruit' }),
];

/** ApiPageSet::executeInternal runs the generator; allpages and allimages refuse `redirects` in executeGenerator. */
const generatorRedirects: Probe[] = [
  { category: 'generator', label: 'generator=allpages&redirects', uses: [gen('allpages')], redirects: true },
  { category: 'generator', label: 'generator=allimages&redirects', uses: [gen('allimages')], redirects: true },
  {
    category: 'generator',
    label: 'generator=allpages&redirects&gapcontinue=A|B: executeGenerator refuses before run() reads continue',
    uses: [gen('allpages', { continue: 'A|B' })],
    redirects: true,
  },
  {
    category: 'generator',
    label: 'generator=allpages&redirects&gaplimit=x: the parameters are read first',
    uses: [gen('allpages', { limit: 'x' })],
    redirects: true,
  },
  {
    category: 'generator',
    label: 'generator=allpages&redirects&continue=-||: the generator does not run',
    uses: [gen('allpages')],
    redirects: true,
    continue: '-||',
  },
  {
    category: 'generator',
    label: 'generator=categorymembers&redirects: accepted',
    uses: [gen('categorymembers', { title: 'Category:Fruit' })],
    redirects: true,
  },
  {
    category: 'generator',
    label: 'list=allpages&redirects: only the generator refuses',
    uses: [use('allpages')],
    redirects: true,
  },
  {
    category: 'generator',
    label: 'generator=allpages&redirects with prop=revisions',
    uses: [gen('allpages'), use('revisions', { prop: 'ids' })],
    redirects: true,
  },
];

/** ApiQueryAllImages::run(): `mime` needs no sort; only a $wgMiserMode wiki refuses it (this one is not). */
const mimes: Probe[] = [
  one('combination', 'allimages mime=image/png (sort=name)', 'allimages', { mime: 'image/png' }),
  one('combination', 'allimages mime=image/png sort=timestamp', 'allimages', { mime: 'image/png', sort: 'timestamp' }),
  one('combination', 'allimages mime=', 'allimages', { mime: '' }),
  one('combination', 'allimages mime=x sort=timestamp dir=older', 'allimages', { mime: 'x', sort: 'timestamp', dir: 'older' }),
  one('combination', 'logevents prefix=Apple (not miser mode)', 'logevents', { prefix: 'Apple' }),
  one('combination', 'allimages user+filterbots=bots sort=timestamp', 'allimages', {
    user: 'Admin',
    filterbots: 'bots',
    sort: 'timestamp',
  }),
  one('combination', 'allimages user+filterbots=all sort=timestamp', 'allimages', {
    user: 'Admin',
    filterbots: 'all',
    sort: 'timestamp',
  }),
  one('combination', 'allimages user+filterbots=nobots sort=timestamp continue=x', 'allimages', {
    user: 'Admin',
    filterbots: 'nobots',
    sort: 'timestamp',
    continue: 'x',
  }),
];

/** ApiQueryLanguageinfo::execute(): codes the wiki does not know warn unrecognizedvalues, unless code is * alone. */
const languages: Probe[] = (
  [
    { code: 'en|xx' },
    { code: '*' },
    { code: '*|en' },
    { code: 'en' },
    { code: 'de|fr|en-gb' },
    { code: 'x-bogus|en|x-bogus' },
    { code: 'EN' },
    { code: 'en', prop: 'name|autonym' },
  ] as Record<string, string>[]
).map((p) => ({ ...one('value', `languageinfo ${JSON.stringify(p)}`, 'languageinfo', p), warnings: true as const }));

/**
 * The warnings raised before an error come back beside it: ApiQuery runs the generator (through
 * ApiPageSet) before the prop, list and meta modules, each module's parameters before its own checks;
 * ApiMain reports unrecognized parameters only after the module ran.
 */
const warningsBeforeErrors: Probe[] = [
  {
    category: 'warnings',
    label: 'generator warning (gaplimit out of range), then a list error',
    uses: [gen('allpages', { limit: '99999' }), use('allcategories', { continue: 'A|B' })],
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'generator error before a list error',
    uses: [gen('allpages', { continue: 'A|B' }), use('usercontribs', { user: '' })],
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'generator error before a prop error',
    uses: [gen('allpages', { continue: 'A|B' }), use('links', { continue: '1' })],
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'a prop module deprecation, then a list error',
    uses: [use('revisions', { prop: 'content' }), use('allcategories', { continue: 'A|B' })],
    titles: PAGE,
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'languageinfo warning, then an allmessages error',
    uses: [use('languageinfo', { code: 'xx' }), use('allmessages', { enableparser: '1', title: 'a[b' })],
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'a list warning (outofrange), then a meta error',
    uses: [use('allpages', { limit: '99999' }), use('allmessages', { enableparser: '1', title: 'a[b' })],
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'the generator runs before the page set is read: its error before multisource',
    uses: [gen('allpages', { limit: 'x' })],
    titles: PAGE,
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'prop module title warnings (pltitles), then a list error',
    uses: [use('links', { titles: 'a[b|Apple' }), use('allcategories', { continue: 'A|B' })],
    titles: PAGE,
    warnings: true,
  },
  {
    category: 'warnings',
    label: 'a generator warning and the warnings of the modules after it, no error',
    uses: [gen('allpages', { limit: '99999' }), use('languageinfo', { code: 'xx' })],
    warnings: true,
  },
];

/**
 * Titles that can never be pages (Special:, Media:, invalid, interwiki): ApiPageSet keeps them apart, so a prop
 * module returns before its checks; the backlinks-like ones (ApiQueryBacklinksprop) count special pages too.
 */
const noPage: Probe[] = [
  one('no-page', 'revisions diffto=x, titles=Special:Version', 'revisions', { diffto: 'x' }, ['Special:Version']),
  one('no-page', 'revisions diffto=x, titles=Media:A.png', 'revisions', { diffto: 'x' }, ['Media:A.png']),
  one('no-page', 'revisions diffto=x, titles=a[b', 'revisions', { diffto: 'x' }, ['a[b']),
  one('no-page', 'revisions diffto=x, titles=Special:Version|a[b|Apple', 'revisions', { diffto: 'x' }, [
    'Special:Version',
    'a[b',
    'Apple',
  ]),
  one('no-page', 'categories continue=1, titles=Special:Version', 'categories', { continue: '1' }, ['Special:Version']),
  one('no-page', 'links continue=1, titles=a[b', 'links', { continue: '1' }, ['a[b']),
  one('no-page', 'langlinks title=X (no lang), titles=Media:A.png', 'langlinks', { title: 'X' }, ['Media:A.png']),
  one('no-page', 'linkshere show=redirect|!redirect, titles=Special:Version', 'linkshere', { show: 'redirect|!redirect' }, [
    'Special:Version',
  ]),
  one('no-page', 'redirects show=fragment|!fragment, titles=a[b', 'redirects', { show: 'fragment|!fragment' }, ['a[b']),
  one('no-page', 'transcludedin show=redirect|!redirect, titles=Media:A.png', 'transcludedin', { show: 'redirect|!redirect' }, [
    'Media:A.png',
  ]),
];

export const PROBES: readonly Probe[] = [
  ...continues,
  ...topContinue,
  ...generator,
  ...titleParts,
  ...shows,
  ...combinations,
  ...valueChecks,
  ...titles,
  ...noPage,
  ...generatorRedirects,
  ...mimes,
  ...languages,
  ...warningsBeforeErrors,
];
