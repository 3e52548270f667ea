import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrown } from '../../../test/wiki/fixtures/build.js';
import { readCapture } from '../../../test/wiki/fixtures/captures.js';
import { specsFrom } from '../../../test/wiki/live/differential.js';
import type { VerdictRecording } from '../../../test/wiki/live/record-verdicts.js';
import { builderVerdictOf } from '../../../test/wiki/live/requests.js';
import { allfileusages } from '../generated/wiki/allfileusages.js';
import { allimages } from '../generated/wiki/allimages.js';
import { alllinks } from '../generated/wiki/alllinks.js';
import { allpages } from '../generated/wiki/allpages.js';
import { allredirects } from '../generated/wiki/allredirects.js';
import { allrevisions } from '../generated/wiki/allrevisions.js';
import { backlinks } from '../generated/wiki/backlinks.js';
import { blocks } from '../generated/wiki/blocks.js';
import { categories } from '../generated/wiki/categories.js';
import { categorymembers } from '../generated/wiki/categorymembers.js';
import { deletedrevisions } from '../generated/wiki/deletedrevisions.js';
import { filearchive } from '../generated/wiki/filearchive.js';
import { fileusage } from '../generated/wiki/fileusage.js';
import { images } from '../generated/wiki/images.js';
import { imageusage } from '../generated/wiki/imageusage.js';
import * as generated from '../generated/wiki/index.js';
import { languageinfo } from '../generated/wiki/languageinfo.js';
import { links } from '../generated/wiki/links.js';
import { linkshere } from '../generated/wiki/linkshere.js';
import { logevents } from '../generated/wiki/logevents.js';
import { pageprops } from '../generated/wiki/pageprops.js';
import { random } from '../generated/wiki/random.js';
import { recentchanges } from '../generated/wiki/recentchanges.js';
import { revisions } from '../generated/wiki/revisions.js';
import { templates } from '../generated/wiki/templates.js';
import { usercontribs } from '../generated/wiki/usercontribs.js';
import { moduleRules } from '../generated/wiki-rules.js';
import { defineModule } from './module.js';
import { buildQuery, type QueryInput, query } from './query.js';
import { applyRules, continueRule, isPlainTitle, type RuleTable, ruleApplier, rulesFor } from './rules.js';
import type { ModuleSpec, SiteContext, WikiWarning } from './types.js';
import { WikiParamError } from './types.js';

const table = JSON.parse(readFileSync(new URL('../../../catalogue/rules.json', import.meta.url), 'utf8')) as RuleTable;

describe('the rules against the live wikis’ recorded answers', () => {
  // What MediaWiki 1.39 answered to each probe (test/wiki/live/record-verdicts.ts, checked against the live wikis by
  // verdicts.test.ts), and the modules as its paraminfo describes them: built with the SDK's rules, each request must
  // get the wiki's verdict. A rule left out of the table, or one that checks otherwise, shows here without a wiki.
  const recording = JSON.parse(
    readFileSync(new URL('../../../test/fixtures/wiki/rule-verdicts.json', import.meta.url), 'utf8'),
  ) as VerdictRecording;
  const specs = new Map(
    specsFrom(readCapture('paraminfo-mw1.39-extensions-all.json.gz'), { modules: {} }).map((s) => [s.name, s]),
  );

  it('every request the probes make gets the verdict the wiki gave', () => {
    expect(recording.verdicts.length).toBeGreaterThan(300);
    const differ: string[] = [];
    for (const v of recording.verdicts) {
      const got = builderVerdictOf(v.request, specs, { site: recording.sites[v.wiki] }, v.warnings);
      if (got !== v.verdict) differ.push(`${v.wiki} ${v.label}: builder ${got}, wiki ${v.verdict}`);
    }
    expect(differ).toEqual([]);
  });

  it('the recording holds refusals and warnings of every module with rules the wikis have', () => {
    const refused = new Set(
      recording.verdicts.filter((v) => !v.verdict.startsWith('ok')).flatMap((v) => v.request.uses.map((u) => u.module)),
    );
    for (const name of [
      'backlinks',
      'recentchanges',
      'usercontribs',
      'revisions',
      'extracts',
      'pageimages',
      'abusefilters',
      'abuselog',
    ])
      expect(refused.has(name), name).toBe(true);
    expect(recording.verdicts.some((v) => /textextracts-limit@extracts/.test(v.verdict))).toBe(true);
    expect(recording.verdicts.some((v) => /abusefilter-log-invalid-filter@abuselog/.test(v.verdict))).toBe(true);
  });
});

describe('catalogue/rules.json', () => {
  it('names the MediaWiki source of every rule', () => {
    for (const [name, rules] of Object.entries(table.modules)) {
      for (const rule of rules)
        expect(rule.source, `${name}: ${rule.rule}`).toMatch(/^(Api\w+|extensions\/\w+\/[\w/]+)(\.php |::)/);
    }
  });

  it('keeps only the rules whose parameters and values a module has (other wikis, other versions)', () => {
    const spec = {
      name: 'recentchanges',
      parameters: [
        { name: 'continue', type: 'string' },
        { name: 'show', type: ['minor', '!minor'] },
      ],
    };
    expect(rulesFor(spec, table).map((r) => r.rule)).toEqual(['continue', 'exclusive-values']);
    expect(rulesFor(spec, table)[1]).toMatchObject({ pairs: [['minor', '!minor']] });
    const noShow = { name: 'recentchanges', parameters: [{ name: 'show', type: ['minor'] }] };
    expect(rulesFor(noShow, table)).toEqual([]);
    expect(rulesFor({ name: 'nosuchmodule', parameters: [] }, table)).toEqual([]);
  });
});

describe('module rules in query()', () => {
  it('mutually exclusive show values: the module code `show`', () => {
    expect(thrown(() => recentchanges.build({ show: ['minor', '!minor'] }))).toMatchObject({ code: 'show', param: 'rcshow' });
    expect(thrown(() => recentchanges.build({ show: ['autopatrolled', 'unpatrolled'] })).code).toBe('show');
    expect(recentchanges.build({ show: ['minor', '!bot'] }).params.rcshow).toBe('minor|!bot');
  });

  it('exactly one of a group: missingparam without any, invalidparammix with several', () => {
    expect(thrown(() => backlinks.build({}))).toMatchObject({ code: 'missingparam', param: 'bltitle' });
    expect(thrown(() => backlinks.build({ title: 'A', pageid: 1 }))).toMatchObject({
      code: 'invalidparammix',
      param: 'blpageid',
    });
    expect(backlinks.build({ pageid: 1 }).params.blpageid).toBe('1');
    expect(thrown(() => usercontribs.build({ user: ['A'], userprefix: 'B' })).code).toBe('invalidparammix');
  });

  it('continue formats: badcontinue, per mode where the module has several', () => {
    expect(thrown(() => allpages.build({ continue: 'A|B' }))).toMatchObject({ code: 'badcontinue', param: 'apcontinue' });
    expect(allpages.build({ continue: 'A' }).params.apcontinue).toBe('A');
    // sort=sortkey: if ($params['continue']) explode('|', …, 3): '' and '0' are skipped, a fourth part stays in the third.
    expect(categorymembers.build({ title: 'Category:X', continue: 'page|41|7|x' }).params.cmcontinue).toBe('page|41|7|x');
    expect(categorymembers.build({ title: 'Category:X', continue: '' }).params.cmcontinue).toBe('');
    expect(categorymembers.build({ title: 'Category:X', continue: '0' }).params.cmcontinue).toBe('0');
    expect(categorymembers.build({ title: 'Category:X', continue: 'page|41|7' }).params.cmcontinue).toBe('page|41|7');
    expect(thrown(() => categorymembers.build({ title: 'Category:X', continue: 'page|4|7' })).code).toBe('badcontinue');
    expect(thrown(() => categorymembers.build({ title: 'Category:X', continue: 'page|41' })).code).toBe('badcontinue');
    expect(categorymembers.build({ title: 'Category:X', sort: 'timestamp', continue: '20240101000000|7' }).params.cmsort).toBe(
      'timestamp',
    );
  });

  it('continue values: each part as the module reads it (ints, loose ints, patterns, counts)', () => {
    const bad = (f: () => unknown) => thrown(f).code;
    // allrevisions: strval((int)$cont[1]) !== $cont[1]
    expect(bad(() => allrevisions.build({ continue: '20240101000000|x' }))).toBe('badcontinue');
    expect(bad(() => allrevisions.build({ continue: '20240101000000|07' }))).toBe('badcontinue');
    expect(bad(() => allrevisions.build({ continue: '20240101000000|99999999999999999999' }))).toBe('badcontinue');
    expect(allrevisions.build({ continue: '20240101000000|-7' }).params.arvcontinue).toBe('20240101000000|-7');
    // recentchanges: (int)$cont[1] != $cont[1], PHP 8: numeric strings compare as numbers
    for (const ok of ['20240101000000|7', '20240101000000| 7', '20240101000000|7 ', '20240101000000|1e3', '20240101000000|7.0'])
      expect(recentchanges.build({ continue: ok }).params.rccontinue).toBe(ok);
    for (const no of ['20240101000000|', '20240101000000|7x', '20240101000000|7.5', '20240101000000|0x1A'])
      expect(bad(() => recentchanges.build({ continue: no }))).toBe('badcontinue');
    // alllinks family: 2 parts, 1 with unique
    expect(bad(() => allfileusages.build({ continue: 'garbage' }))).toBe('badcontinue');
    expect(allfileusages.build({ continue: 'A|1' }).params.afcontinue).toBe('A|1');
    expect(allfileusages.build({ unique: true, continue: 'A' }).params.afcontinue).toBe('A');
    expect(bad(() => allfileusages.build({ unique: true, continue: 'A|1' }))).toBe('badcontinue');
    // backlinks: 2, 6, 7 or 8 parts, every part but the title (4th) an integer
    expect(backlinks.build({ title: 'A', continue: '0|12' }).params.blcontinue).toBe('0|12');
    expect(backlinks.build({ title: 'A', continue: '0|12|0|Apple|0|3|5|6' }).params.blcontinue).toBe('0|12|0|Apple|0|3|5|6');
    expect(bad(() => backlinks.build({ title: 'A', continue: '0|12|0' }))).toBe('badcontinue');
    expect(bad(() => backlinks.build({ title: 'A', continue: '0|12|0|Apple|x|3' }))).toBe('badcontinue');
    // random: two 0.<digits>, an id, 0 or 1
    expect(random.build({ continue: '0.5|0.25|3|1' }).params.rncontinue).toBe('0.5|0.25|3|1');
    expect(bad(() => random.build({ continue: '0.5|1.25|3|1' }))).toBe('badcontinue');
    expect(bad(() => random.build({ continue: '0.5|0.25|3|2' }))).toBe('badcontinue');
    // pageprops: the whole value an integer, unless PHP-falsy
    expect(pageprops.build({ continue: '0' }).params.ppcontinue).toBe('0');
    expect(bad(() => pageprops.build({ continue: '1|2' }))).toBe('badcontinue');
  });

  it('title parts, show, combinations read from the PHP', () => {
    const bad = (f: () => unknown) => thrown(f).code;
    expect(bad(() => allredirects.build({ prefix: 'Talk:X' }))).toBe('invalidtitle');
    expect(allredirects.build({ prefix: 'Talk:X', namespace: 4 }).params.arprefix).toBe('Talk:X');
    expect(bad(() => allfileusages.build({ from: 'a{b' }))).toBe('invalidtitle');
    expect(allfileusages.build({ from: 'File:X' }).params.affrom).toBe('File:X'); // File:File:Xx is a title
    expect(bad(() => allimages.build({ to: 'a[b' }))).toBe('invalidtitle');
    expect(bad(() => filearchive.build({ prefix: 'X#y' }))).toBe('invalidtitle');
    expect(bad(() => alllinks.build({ unique: true, prop: ['ids'] }))).toBe('invalidparammix');
    expect(alllinks.build({ unique: true, prop: ['title'] }).params.alunique).toBe('1');
    expect(bad(() => allimages.build({ filterbots: 'bots' }))).toBe('invalidparammix');
    expect(allimages.build({ filterbots: 'all' }).params.aifilterbots).toBe('all');
    expect(bad(() => random.build({ filterredir: 'all', redirect: true }))).toBe('invalidparammix');
    expect(random.build({ redirect: true }).params.rnredirect).toBe('1');
    // fileusage checks show only for File: pages (its to_namespace), and not with funamespace given empty.
    const both = () => fileusage({ show: ['redirect', '!redirect'] });
    expect(bad(() => query({ titles: ['File:A.png'], prop: [both()] }))).toBe('show');
    expect(bad(() => query({ titles: ['Apple', 'File:A&#46;png'], prop: [both()] }))).toBe('show');
    expect(query({ titles: ['Apple'], prop: [both()] }).params.fushow).toBe('redirect|!redirect');
    expect(query({ pageids: [1], prop: [both()] }).params.fushow).toBe('redirect|!redirect');
    expect(query({ generator: allpages.asGenerator(), prop: [both()] }).params.fushow).toBe('redirect|!redirect');
    expect(query({ prop: [both()] }).params.fushow).toBe('redirect|!redirect');
    const emptyNs = fileusage({ show: ['redirect', '!redirect'], namespace: [] });
    expect(query({ titles: ['File:A.png'], prop: [emptyNs] }).params.fushow).toBe('redirect|!redirect');
  });

  it('titles that can never be pages (invalid, interwiki, Special:, Media:) give a prop module none: run() returns first', () => {
    const bad = (f: () => unknown) => thrown(f).code;
    const diffto = (titles: string[], extra: object = {}, site?: SiteContext) =>
      query({ titles, ...extra, prop: [revisions({ diffto: 'x' })] }, site ? { site } : undefined);
    for (const none of [['Special:Version'], ['Media:A.png'], ['a[b'], [''], ['Special:Version', 'a[b', 'Media:A.png']])
      expect(diffto(none).params.rvdiffto, none.join('|')).toBe('x');
    expect(bad(() => diffto(['Special:Version', 'Apple']))).toBe('diffto');
    // An interwiki title is no page, once the site context names the prefix.
    expect(diffto(['w:Apple'], {}, { interwikiPrefixes: ['w'] }).params.rvdiffto).toBe('x');
    expect(bad(() => diffto(['w:Apple']))).toBe('diffto');
    // A Special: page may redirect to a page when the query resolves redirects (Special:MyPage).
    expect(bad(() => diffto(['Special:MyPage'], { redirects: true }))).toBe('diffto');
    expect(diffto(['Media:A.png'], { redirects: true }).params.rvdiffto).toBe('x');
    // ApiQueryBacklinksprop counts the page set's special pages: linkshere checks show for them too.
    const show = (titles: string[]) => query({ titles, prop: [linkshere({ show: ['redirect', '!redirect'] })] });
    expect(bad(() => show(['Special:Version']))).toBe('show');
    expect(bad(() => show(['Media:A.png']))).toBe('show');
    expect(show(['a[b']).params.lhshow).toBe('redirect|!redirect');
  });

  it('value checks of run(): diffto, slots, block ip, user ids, sha1', () => {
    const bad = (f: () => unknown) => thrown(f).code;
    const pages = { titles: ['Apple'] };
    expect(bad(() => query({ ...pages, prop: [revisions({ diffto: 'x' })] }))).toBe('diffto');
    for (const ok of ['prev', 'next', 'cur', '12'])
      expect(query({ ...pages, prop: [revisions({ diffto: ok })] }).params.rvdiffto).toBe(ok);
    expect(query({ ...pages, prop: [revisions({ diffto: 'x', difftotext: 'y' })] }).params.rvdiffto).toBe('x');
    expect(query({ prop: [revisions({ diffto: 'x' })] }).params.rvdiffto).toBe('x'); // no pages: run() returns first
    expect(bad(() => query({ ...pages, prop: [revisions({ slots: ['main'], expandtemplates: true })] }))).toBe('invalidparammix');
    expect(bad(() => query({ ...pages, prop: [revisions({ slots: ['main'], prop: ['parsetree'] })] }))).toBe('invalidparammix');
    expect(bad(() => blocks.build({ ip: '10.0.0.0/8' }))).toBe('cidrtoobroad');
    expect(bad(() => blocks.build({ ip: 'x' }))).toBe('param_ip');
    expect(blocks.build({ ip: '10.0.0.1' }).params.bkip).toBe('10.0.0.1');
    expect(blocks.build({ ip: '2001:db8::/19' }).params.bkip).toBe('2001:db8::/19');
    expect(bad(() => usercontribs.build({ userids: [0] }))).toBe('invaliduserid');
    expect(bad(() => allimages.build({ sha1: 'x' }))).toBe('invalidsha1hash');
    expect(allimages.build({ sha1: 'ABCDEF0123456789ABCDEF0123456789ABCDEF01' }).params.aisha1).toBe(
      'ABCDEF0123456789ABCDEF0123456789ABCDEF01',
    );
    expect(bad(() => allimages.build({ sha1base36: 'x' }))).toBe('invalidsha1base36hash');
  });

  it('extension modules (as their getAllowedParams declare them) get their own checks when the wiki has them', () => {
    const multi = { multi: true, lowlimit: 50, highlimit: 500, limit: 50 } as const;
    const ext = <G extends 'prop' | 'list'>(name: string, prefix: string, group: G, parameters: ModuleSpec['parameters']) =>
      defineModule<Record<string, unknown>, G, false>(
        { name, path: `query+${name}`, group, prefix, parameters },
        { rules: moduleRules },
      );
    const extracts = ext('extracts', 'ex', 'prop', [
      { name: 'chars', type: 'integer' },
      { name: 'sentences', type: 'integer' },
      { name: 'continue', type: 'integer' },
    ]);
    const pageimages = ext('pageimages', 'pi', 'prop', [
      { name: 'prop', type: ['thumbnail', 'name', 'original'], default: 'thumbnail|name', ...multi },
      { name: 'continue', type: 'integer' },
    ]);
    const abusefilters = ext('abusefilters', 'abf', 'list', [
      { name: 'show', type: ['enabled', '!enabled', 'deleted', '!deleted', 'private', '!private'], ...multi },
    ]);
    const abuselog = ext('abuselog', 'afl', 'list', [{ name: 'title', type: 'string' }]);
    const bad = (f: () => unknown) => thrown(f).code;
    const pages = { titles: ['Apple'] };
    expect(bad(() => query({ ...pages, prop: [extracts({ chars: 10, sentences: 2 })] }))).toBe('invalidparammix');
    expect(query({ prop: [extracts({ chars: 10, sentences: 2 })] }).params.exchars).toBe('10');
    expect(bad(() => query({ ...pages, prop: [extracts({ continue: -1 })] }))).toBe('badcontinue');
    expect(query({ ...pages, prop: [extracts({ continue: 0 })] }).params.excontinue).toBe('0');
    expect(bad(() => query({ prop: [pageimages({ prop: [] })] }))).toBe('noprop');
    expect(query({ prop: [pageimages({ prop: ['name'] })] }).params.piprop).toBe('name');
    // continue: 0 is never a page id of the set (with pages; which ids it has is the wiki's).
    expect(bad(() => query({ ...pages, prop: [pageimages({ continue: 0 })] }))).toBe('badcontinue');
    expect(bad(() => query({ ...pages, prop: [pageimages({ continue: '-00' as never })] }))).toBe('badcontinue');
    expect(query({ prop: [pageimages({ continue: 0 })] }).params.picontinue).toBe('0');
    expect(query({ ...pages, prop: [pageimages({ continue: 6 })] }).params.picontinue).toBe('6');
    // Negative ids are missing File: pages': none without a File: title.
    expect(bad(() => query({ ...pages, prop: [pageimages({ continue: -1 })] }))).toBe('badcontinue');
    expect(query({ titles: ['File:X.png'], prop: [pageimages({ continue: -1 })] }).params.picontinue).toBe('-1');
    expect(bad(() => query({ list: [abusefilters({ show: ['enabled', '!enabled'] })] }))).toBe('show');
    expect(query({ list: [abusefilters({ show: ['enabled', '!deleted'] })] }).params.abfshow).toBe('enabled|!deleted');
    expect(bad(() => query({ list: [abuselog({ title: 'a[b' })] }))).toBe('invalidtitle');
    const site = { interwikiPrefixes: ['w'] };
    expect(query({ list: [abuselog({ title: 'w:Foo' })] }, { site }).params.afltitle).toBe('w:Foo');
  });

  it('leaction as ApiQueryLogEvents checks it: listed, or under a listed type/*, else unknown_leaction', () => {
    const bad = (f: () => unknown) => thrown(f).code;
    expect(logevents.spec.parameters.find((p) => p.name === 'action')?.type).toBe('string');
    expect(logevents.build({ action: 'block/block' }).params.leaction).toBe('block/block');
    expect(bad(() => logevents.build({ action: 'block' as never }))).toBe('unknown_leaction');
    expect(bad(() => logevents.build({ action: 'nosuch/thing' as never }))).toBe('unknown_leaction');
    const rule = logevents.spec.rules!.find((r) => r.rule === 'log-action') as { values: readonly string[] };
    const wildcard = rule.values.find((v) => v.endsWith('/*'));
    expect(wildcard).toBeDefined();
    if (wildcard) {
      const under = `${wildcard.slice(0, -1)}anything`;
      expect(logevents.build({ action: under as never }).params.leaction).toBe(under);
    }
  });

  it('titles: Title::newFromText decodes character references (iutitle=A&amp;B is a title outside File:)', () => {
    expect(thrown(() => imageusage.build({ title: 'A&amp;B' })).code).toBe('bad_image_title');
    expect(thrown(() => imageusage.build({ title: 'A&bogus;B' })).code).toBe('invalidtitle');
    expect(imageusage.build({ title: 'File:A&amp;B' }).params.iutitle).toBe('File:A&amp;B');
  });

  it('top-level continue: exactly one ||; the modules it names, and with - the generator and prop modules, do not run', () => {
    const bad = allpages({ continue: 'A|B' });
    expect(thrown(() => query({ list: [allpages()], continue: { continue: 'a||b||c' } })).code).toBe('badcontinue');
    expect(thrown(() => query({ list: [allpages()], continue: { continue: 'x' } })).code).toBe('badcontinue');
    expect(thrown(() => query({ list: [bad], continue: { continue: '-||' } })).code).toBe('badcontinue');
    expect(query({ list: [bad], continue: { continue: '-||allpages' } }).params.apcontinue).toBe('A|B');
    expect(thrown(() => query({ list: [bad], continue: { continue: '' } })).code).toBe('badcontinue');
    const badShow = linkshere({ show: ['redirect', '!redirect'] });
    expect(
      thrown(() => query({ generator: allpages.asGenerator(), prop: [badShow], continue: { continue: 'gapcontinue||' } })).code,
    ).toBe('show');
    expect(query({ generator: allpages.asGenerator(), prop: [badShow], continue: { continue: '-||' } }).params.lhshow).toBe(
      'redirect|!redirect',
    );
    expect(
      query({ generator: allpages.asGenerator({ continue: 'A|B' }), continue: { continue: '-||' } }).params.gapcontinue,
    ).toBe('A|B');
  });

  it('titles: invalidtitle for bad syntax, invalidcategory outside the Category namespace', () => {
    expect(thrown(() => backlinks.build({ title: 'a[b' }))).toMatchObject({ code: 'invalidtitle', param: 'bltitle' });
    expect(thrown(() => categorymembers.build({ title: 'Fruit' }))).toMatchObject({ code: 'invalidcategory', param: 'cmtitle' });
    expect(thrown(() => allpages.build({ from: 'a|b' })).code).toBe('invalidtitle');
    // titlePartToKey: a namespace prefix in the main namespace's part leaves the namespace
    expect(thrown(() => allpages.build({ prefix: 'Talk:X' })).code).toBe('invalidtitle');
    expect(allpages.build({ prefix: 'X', namespace: 1 }).params.apprefix).toBe('X');
    expect(thrown(() => allpages.build({ prefix: 'Talk:X', namespace: 1 })).code).toBe('invalidtitle');
  });

  it('revisions: startid/start, endid/end, user/excludeuser are exclusive (invalidparammix); so are deletedrevisions user/excludeuser', () => {
    const rv = (p: Parameters<typeof revisions>[0]) => thrown(() => query({ titles: ['History'], prop: [revisions(p)] }));
    expect(rv({ startid: 1, start: '2020-01-01T00:00:00Z' })).toMatchObject({
      code: 'invalidparammix',
      param: 'rvstart',
      message: 'The parameters "rvstartid" and "rvstart" can not be used together.',
    });
    expect(rv({ endid: 1, end: '2020-01-01T00:00:00Z' }).message).toBe(
      'The parameters "rvendid" and "rvend" can not be used together.',
    );
    expect(rv({ user: 'A', excludeuser: 'B' }).message).toBe(
      'The parameters "rvuser" and "rvexcludeuser" can not be used together.',
    );
    expect(query({ titles: ['History'], prop: [revisions({ startid: 1, end: '2020-01-01T00:00:00Z' })] }).params.rvstartid).toBe(
      '1',
    );
    expect(thrown(() => query({ titles: ['A'], prop: [deletedrevisions({ user: 'A', excludeuser: 'B' })] })).code).toBe(
      'invalidparammix',
    );
  });

  it('usercontribs: show top|!top, new|!new (and the patrol pairs) → show; iprange checked as the module does', () => {
    for (const pair of [
      ['top', '!top'],
      ['new', '!new'],
      ['minor', '!minor'],
      ['autopatrolled', '!patrolled'],
    ] as const) {
      expect(thrown(() => usercontribs.build({ user: ['A'], show: [...pair] }))).toMatchObject({
        code: 'show',
        param: 'ucshow',
        message: 'Incorrect parameter - mutually exclusive values may not be supplied.',
      });
    }
    expect(usercontribs.build({ user: ['A'], show: ['top', '!new'] }).params.ucshow).toBe('top|!new');
    const range = (iprange: string) => thrown(() => usercontribs.build({ iprange }));
    expect(range('notanip')).toMatchObject({
      code: 'invalidiprange',
      param: 'uciprange',
      message: 'Invalid CIDR range "notanip".',
    });
    // An address without a prefix is no range (IPUtils::parseCIDR).
    expect(range('10.0.0.1').code).toBe('invalidiprange');
    expect(range('10.0.0.0/8')).toMatchObject({
      code: 'cidrtoobroad',
      message: 'IPv4 CIDR ranges broader than /16 are not accepted.',
    });
    expect(range('2001:db8::/31')).toMatchObject({
      code: 'cidrtoobroad',
      message: 'IPv6 CIDR ranges broader than /32 are not accepted.',
    });
    expect(usercontribs.build({ iprange: '10.1.0.0/16' }).params.uciprange).toBe('10.1.0.0/16');
    expect(usercontribs.build({ iprange: '2001:db8::/32' }).params.uciprange).toBe('2001:db8::/32');
  });

  it('recentchanges rctitle, logevents letitle and leprefix: invalidtitle', () => {
    expect(thrown(() => recentchanges.build({ title: 'A[b' }))).toMatchObject({ code: 'invalidtitle', param: 'rctitle' });
    expect(thrown(() => recentchanges.build({ title: '' })).code).toBe('invalidtitle');
    expect(thrown(() => logevents.build({ title: 'A[' }))).toMatchObject({ code: 'invalidtitle', param: 'letitle' });
    expect(thrown(() => logevents.build({ prefix: 'A<' }))).toMatchObject({ code: 'invalidtitle', param: 'leprefix' });
    expect(recentchanges.build({ title: 'Talk:Apple' }).params.rctitle).toBe('Talk:Apple');
  });

  it('categorymembers hex sort keys: pairs of hex digits, else badvalue_<param> (sort=sortkey, no sortkey prefix)', () => {
    const cm = (p: Parameters<typeof categorymembers>[0]) => () => categorymembers.build({ title: 'Category:Fruit', ...p });
    expect(thrown(cm({ starthexsortkey: 'zz' }))).toMatchObject({
      code: 'badvalue_cmstarthexsortkey',
      param: 'cmstarthexsortkey',
      message: 'Invalid value for parameter "cmstarthexsortkey".',
    });
    expect(thrown(cm({ endhexsortkey: 'abc' })).code).toBe('badvalue_cmendhexsortkey');
    expect(cm({ starthexsortkey: 'AB01' })().params.cmstarthexsortkey).toBe('AB01');
    // The module reads them only for sort=sortkey, and a sortkey prefix wins.
    expect(cm({ sort: 'timestamp', starthexsortkey: 'zz' })().params.cmstarthexsortkey).toBe('zz');
    expect(cm({ starthexsortkey: 'zz', startsortkeyprefix: 'a' })().params.cmstarthexsortkey).toBe('zz');
  });

  // Both paths: the fast path hands the rules the caller's values, the full path the validated ones.
  const bothPaths = (input: QueryInput) => {
    const fast = query(input).warnings;
    expect(buildQuery(input, undefined, false).warnings).toEqual(fast);
    return fast;
  };

  it('links, templates, categories, images: a value that is no such title is skipped with a warning, once', () => {
    expect(bothPaths({ titles: ['Apple'], prop: [links({ titles: ['A[', 'B', 'A['] })] })).toEqual([
      { code: 'invalidtitle', param: 'pltitles', module: 'query+links', data: { value: 'A[' } },
    ]);
    expect(bothPaths({ titles: ['Apple'], prop: [templates({ templates: ['Template:X', 'x<y'] })] })).toEqual([
      { code: 'invalidtitle', param: 'tltemplates', module: 'query+templates', data: { value: 'x<y' } },
    ]);
    expect(bothPaths({ titles: ['Apple'], prop: [categories({ categories: ['Fruit', 'Category:X'] })] })).toEqual([
      { code: 'invalidcategory', param: 'clcategories', module: 'query+categories', data: { value: 'Fruit' } },
    ]);
    expect(bothPaths({ titles: ['Apple'], prop: [images({ images: ['X.png', 'File:X.png'] })] })).toEqual([
      { code: 'notfile', param: 'imimages', module: 'query+images', data: { value: 'X.png' } },
    ]);
    expect(bothPaths({ titles: ['Apple'], prop: [links({ titles: ['Talk:B'] })] })).toEqual([]);
  });

  it('revisions content without rvslots: the legacy-format deprecation, kept beside a later error', () => {
    const deprecation = {
      code: 'deprecation',
      param: 'rvslots',
      module: 'query+revisions',
      data: { feature: 'action=query&prop=revisions&!rvslots' },
    };
    const help = { code: 'deprecation-help', param: '', module: 'main' };
    expect(bothPaths({ titles: ['History'], prop: [revisions({ prop: ['ids', 'content'] })] })).toEqual([deprecation, help]);
    // rvdiffto (itself deprecated) fetches content too.
    expect(bothPaths({ titles: ['History'], prop: [revisions({ prop: ['size'], diffto: 'prev' })] })).toContainEqual(deprecation);
    expect(bothPaths({ titles: ['History'], prop: [revisions({ prop: ['content'], slots: ['main'] })] })).toEqual([]);
    expect(bothPaths({ titles: ['History'], prop: [revisions()] })).toEqual([]);
    // parseParameters runs before run()'s own checks: the warning comes back with the error.
    const e = thrown(() =>
      query({ titles: ['History'], prop: [revisions({ prop: ['content'], startid: 1, start: '2020-01-01T00:00:00Z' })] }),
    );
    expect(e.code).toBe('invalidparammix');
    expect(e.warnings).toEqual([deprecation, help]);
  });

  it("a prop module's rules apply only when it gets pages (its run() returns first on an empty page set)", () => {
    const rv = revisions({ startid: 1, start: '2020-01-01T00:00:00Z', prop: ['content'] });
    expect(query({ prop: [rv] }).warnings).toEqual([]);
    expect(query({ titles: [], prop: [rv] }).params.rvstartid).toBe('1');
    expect(query({ prop: [links({ titles: ['A['] })] }).warnings).toEqual([]);
    expect(query({ prop: [categories({ show: ['hidden', '!hidden'] })] }).params.clshow).toBe('hidden|!hidden');
    // Pages from titles, pageids, revids or a generator.
    expect(thrown(() => query({ pageids: [1], prop: [rv] })).code).toBe('invalidparammix');
    expect(thrown(() => query({ revids: [1], prop: [links({ titles: ['A['] }), rv] })).code).toBe('invalidparammix');
    expect(query({ generator: allpages.asGenerator({}), prop: [links({ titles: ['A['] })] }).warnings.map((w) => w.code)).toEqual(
      ['invalidtitle'],
    );
    // A prop module that is the generator itself still gets the query's pages.
    expect(query({ titles: ['Apple'], generator: links.asGenerator({ titles: ['A['] }) }).warnings.map((w) => w.param)).toEqual([
      'gpltitles',
    ]);
    expect(query({ generator: links.asGenerator({ titles: ['A['] }) }).warnings).toEqual([]);
  });

  it('generator=allpages|allimages with redirects: params / invalidparammix, before run(), not when the generator is done', () => {
    const code = (input: QueryInput) => thrown(() => query(input)).code;
    expect(code({ generator: allpages.asGenerator(), redirects: true })).toBe('params');
    expect(code({ generator: allimages.asGenerator(), redirects: true })).toBe('invalidparammix');
    // executeGenerator refuses before run() reads continue; the parameters themselves are read first.
    expect(code({ generator: allpages.asGenerator({ continue: 'A|B' }), redirects: true })).toBe('params');
    expect(code({ generator: allpages.asGenerator({ limit: 'x' as unknown as number }), redirects: true })).toBe('badinteger');
    // Not as a list, not without redirects, not another generator, not when `continue` says the generator is done.
    expect(query({ list: [allpages()], redirects: true }).params.redirects).toBe('1');
    expect(query({ generator: allpages.asGenerator(), redirects: false }).params.generator).toBe('allpages');
    expect(query({ generator: categorymembers.asGenerator({ title: 'Category:X' }), redirects: true }).params.redirects).toBe(
      '1',
    );
    expect(query({ generator: allpages.asGenerator(), redirects: true, continue: { continue: '-||' } }).params.redirects).toBe(
      '1',
    );
    expect(query({ generator: allpages.asGenerator(), redirects: true }, { rules: false }).params.redirects).toBe('1');
  });

  it('miser mode (siteinfo general.misermode): aimime and leprefix refused only when the site context says so', () => {
    const miser = { miserMode: true };
    expect(thrown(() => query({ list: [allimages({ mime: ['image/png'] })] }, { site: miser })).code).toBe('mimesearchdisabled');
    expect(thrown(() => query({ list: [logevents({ prefix: 'Apple' })] }, { site: miser })).code).toBe('prefixsearchdisabled');
    // A wiki not in miser mode, or one whose mode is unknown, accepts them: the wiki decides (and mime needs no sort).
    for (const site of [{ miserMode: false }, {}, undefined]) {
      expect(query({ list: [allimages({ mime: ['image/png'] })] }, { site }).params.aimime).toBe('image/png');
      expect(query({ list: [logevents({ prefix: 'Apple' })] }, { site }).params.leprefix).toBe('Apple');
    }
    // The sha1 checks come first.
    expect(thrown(() => query({ list: [allimages({ mime: ['image/png'], sha1: 'x' })] }, { site: miser })).code).toBe(
      'invalidsha1hash',
    );
  });

  it('languageinfo: codes the site context does not list warn unrecognizedvalues (each once), unless code is * alone', () => {
    const site = { languages: ['de', 'en', 'en-gb'] };
    const warned = (code: string[], s: object | undefined = site) =>
      query({ meta: [languageinfo({ code })] }, { site: s }).warnings.map((w) => [w.code, w.param, w.data]);
    expect(warned(['en', 'xx', 'EN', 'xx'])).toEqual([['unrecognizedvalues', 'licode', { values: ['xx', 'EN'] }]]);
    expect(warned(['*'])).toEqual([]);
    expect(warned(['*', 'en'])).toEqual([['unrecognizedvalues', 'licode', { values: ['*'] }]]);
    expect(warned(['de', 'en-gb'])).toEqual([]);
    // Without the codes (no languageinfo answer in the site context) the wiki decides.
    expect(warned(['xx'], {})).toEqual([]);
    expect(query({ meta: [languageinfo({ code: ['xx'] })] }).warnings).toEqual([]);
    // The default (*) warns nothing.
    expect(query({ meta: [languageinfo()] }, { site }).warnings).toEqual([]);
  });

  it('the generator runs first (ApiPageSet): its warnings precede, and its error wins over, the other modules’', () => {
    const e = thrown(() => query({ generator: allpages.asGenerator({ limit: 99999 }), list: [alllinks({ continue: 'x' })] }));
    expect(e.code).toBe('badcontinue');
    expect(e.warnings.map((w) => [w.code, w.param])).toEqual([['outofrange', 'gaplimit']]);
    expect(
      thrown(() => query({ generator: allpages.asGenerator({ continue: 'A|B' }), list: [usercontribs({ userids: [0] })] })).code,
    ).toBe('badcontinue');
    // Its parameters are read before the page set's sources, and are still sent after the other modules'.
    expect(
      thrown(() => query({ generator: allpages.asGenerator({ limit: 'x' as unknown as number }), titles: ['A'], pageids: [1] }))
        .code,
    ).toBe('badinteger');
    expect(thrown(() => query({ generator: allpages.asGenerator(), titles: ['A'], pageids: [1] })).code).toBe('multisource');
    const q = query({ generator: allpages.asGenerator({ limit: 5 }), prop: [revisions({ prop: ['ids'] })] });
    expect(Object.keys(q.params).slice(-2)).toEqual(['rvprop', 'gaplimit']);
    for (const fast of [true, false]) {
      expect(
        buildQuery(
          { generator: allpages.asGenerator({ limit: 5 }), prop: [revisions({ prop: ['ids'] })] },
          undefined,
          fast,
        ).toString(),
      ).toBe(q.toString());
    }
  });

  it('runs after the module validates, keeps earlier warnings, and can be switched off', () => {
    const e = thrown(() => query({ list: [allpages({ limit: 9999, continue: 'A|B' })] }));
    expect(e.code).toBe('badcontinue');
    expect(e.warnings.map((w) => w.code)).toEqual(['outofrange']);
    expect(query({ list: [backlinks({})] }, { rules: false }).params.list).toBe('backlinks');
  });
});

describe('isPlainTitle', () => {
  // The regex it replaces on the hot path: the two must agree everywhere.
  const PLAIN_TITLE = /^[A-Za-z0-9][A-Za-z0-9 ,'()_-]{0,200}$/;
  it('agrees with the plain-title regex', () => {
    const chars = fc.constantFrom(..."Az09 ,'()_-:#.|\n\u00e9".split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 210 })), (s) => {
        expect(isPlainTitle(s)).toBe(PLAIN_TITLE.test(s));
      }),
      { numRuns: 2000 },
    );
    for (const s of ['', 'a', ' a', 'a ', 'a'.repeat(201), 'a'.repeat(202), 'Foo (bar)', 'a\n', '-a', 'a-']) {
      expect(isPlainTitle(s)).toBe(PLAIN_TITLE.test(s));
    }
  });
});

describe('ruleApplier', () => {
  const outcome = (f: () => void): string => {
    try {
      f();
      return 'ok';
    } catch (e) {
      if (e instanceof WikiParamError) return `${e.code} ${e.param} ${e.libraryCode}`;
      throw e;
    }
  };

  it('refuses a kind of rule it has no check for, rather than skip it, even when the request would not meet it', () => {
    const spec = allpages.spec;
    const only = ruleApplier({ continue: continueRule });
    expect(() => only(spec, spec.rules!, { from: 'A' }, 'ap', undefined, [], true)).toThrow(
      /has a "generator-redirects" rule but no check/,
    );
    const rules = [{ rule: 'title-part', params: ['from'], source: 'x' }] as const;
    expect(() => only(spec, rules, {}, 'ap', undefined, [], true)).toThrow(/has a "title-part" rule but no check/);
  });

  it('calls a check only when one of its parameters is given; compiles each rules array once, for any number of modules', () => {
    const calls: string[] = [];
    const counting = ruleApplier({
      continue: (rule, ...rest) => {
        calls.push(rule.param);
        continueRule(rule, ...rest);
      },
      'only-one-of': () => {
        calls.push('only-one-of');
      },
    });
    const a = [{ rule: 'continue', param: 'continue', parts: 1, source: 'x' }] as const;
    const b = [
      { rule: 'continue', param: 'cont', parts: 2, source: 'x' },
      { rule: 'only-one-of', params: ['x', 'y'], source: 'x' },
    ] as const;
    const spec = allpages.spec;
    counting(spec, a, { from: 'A' }, 'ap', undefined, [], false);
    // only-one-of acts on absence: always called.
    counting(spec, b, {}, 'ap', undefined, [], false);
    expect(calls).toEqual(['only-one-of']);
    counting(spec, a, { continue: 'A' }, 'ap', undefined, [], false);
    expect(() => counting(spec, b, { cont: 'A' }, 'ap', undefined, [], false)).toThrow(WikiParamError);
    expect(() => counting(spec, a, { continue: 'A|B' }, 'ap', undefined, [], false)).toThrow(WikiParamError);
    expect(calls).toEqual(['only-one-of', 'continue', 'cont', 'continue']);
  });

  it("each generated module's applier gives applyRules' verdict on any parameters (property, every module with rules)", () => {
    const specs = Object.values(generated)
      .map((m) => (m as { spec?: ModuleSpec }).spec)
      .filter((s): s is ModuleSpec => s?.rules !== undefined && s.rules.length > 0);
    expect(specs.length).toBeGreaterThan(15);
    // Values that pass and fail each kind of rule: plain and odd titles, `|`-parted continuations,
    // enum values (so `when` and `requires … equals` conditions meet), numbers, booleans, lists.
    const scalar = fc.oneof(
      fc.constantFrom('Foo', 'A|B', 'A|B|C', 'Talk:Foo', 'Foo#bar', 'a/b', '<x>', '', 'File:X.png', 'Category:Y', 'x:y'),
      fc.integer({ min: -2, max: 20 }),
      fc.boolean(),
    );
    let cases = 0;
    for (const spec of specs) {
      expect(spec.applyRules).not.toBe(applyRules);
      const value = (p: ModuleSpec['parameters'][number]) =>
        Array.isArray(p.type)
          ? p.multi
            ? fc.subarray([...p.type])
            : fc.constantFrom(...p.type)
          : p.multi
            ? fc.array(scalar, { maxLength: 3 })
            : scalar;
      const params = fc.record(Object.fromEntries(spec.parameters.map((p) => [p.name, value(p)])), { requiredKeys: [] });
      fc.assert(
        fc.property(params, fc.boolean(), fc.boolean(), (given, generator, pages) => {
          cases++;
          const prefix = generator ? `g${spec.prefix}` : spec.prefix;
          const ownWarnings: WikiWarning[] = [];
          const allWarnings: WikiWarning[] = [];
          const own = outcome(() => spec.applyRules!(spec, spec.rules!, given, prefix, undefined, ownWarnings, pages));
          expect(own, spec.name).toBe(outcome(() => applyRules(spec, spec.rules!, given, prefix, undefined, allWarnings, pages)));
          expect(ownWarnings, spec.name).toEqual(allWarnings);
        }),
        { numRuns: 300 },
      );
    }
    expect(cases).toBe(specs.length * 300);
  });
});
