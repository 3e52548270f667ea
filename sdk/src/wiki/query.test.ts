import { describe, expect, it } from 'vitest';
import { thrown } from '../../../test/wiki/fixtures/build.js';
import {
  allpages,
  categorymembers,
  clashAp,
  clashContinue,
  clashGap,
  clashName,
  clashUselang,
  deletedrevs,
  info,
  iwlinks,
  links,
  revisions,
  siteinfo,
  tokens,
} from '../../../test/wiki/fixtures/query-specs.js';
import { defineModule } from './module.js';
import { encodedLength, POST_THRESHOLD_BYTES, query } from './query.js';
import type { ParamInfo } from './types.js';

describe('query()', () => {
  it('composes list, prop and meta modules with the fixed format parameters', () => {
    const q = query({
      list: [allpages({ from: 'B', limit: 2 }), categorymembers({ title: 'Category:X' })],
      prop: [info({ prop: ['url'] })],
      meta: [siteinfo({ prop: ['general', 'namespaces'] }), tokens({ type: ['csrf'] })],
      titles: ['Main Page'],
    });
    expect(q.params).toEqual({
      action: 'query',
      format: 'json',
      formatversion: '2',
      errorformat: 'plaintext',
      prop: 'info',
      list: 'allpages|categorymembers',
      meta: 'siteinfo|tokens',
      titles: 'Main Page',
      inprop: 'url',
      apfrom: 'B',
      aplimit: '2',
      cmtitle: 'Category:X',
      siprop: 'general|namespaces',
      type: 'csrf',
    });
    expect(q.method).toBe('GET');
    expect(q.warnings).toEqual([]);
    expect(q.toURLSearchParams().toString()).toContain('list=allpages%7Ccategorymembers');
    expect(Object.isFrozen(q.params)).toBe(true);
  });

  it('makes its params once, when first read; they and the encoded form agree, and JSON carries them', () => {
    const q = query({ list: [allpages({ from: 'B', limit: 2 })], titles: ['Main Page'] });
    expect(() => {
      (q as { method: string }).method = 'POST';
    }).toThrow(TypeError);
    expect(q.params).toBe(q.params);
    expect(q.toString()).toBe(new URLSearchParams(q.params).toString());
    expect(JSON.parse(JSON.stringify(q))).toEqual({
      params: { ...q.params },
      warnings: [],
      method: 'GET',
      continuation: [],
    });
  });

  it('takes one generator with g-prefixed parameters', () => {
    const q = query({ generator: allpages.asGenerator({ from: 'B', limit: 'max' }), prop: [revisions({ prop: ['ids'] })] });
    expect(q.params).toMatchObject({ generator: 'allpages', gapfrom: 'B', gaplimit: '500', prop: 'revisions', rvprop: 'ids' });
    expect(q.params.apfrom).toBeUndefined();
    // the same module as list and as generator: ap and gap do not collide
    const both = query({ list: [allpages({ from: 'A' })], generator: allpages.asGenerator({ from: 'B' }) });
    expect(both.params).toMatchObject({ list: 'allpages', apfrom: 'A', generator: 'allpages', gapfrom: 'B' });
  });

  it('rejects a module that is not a generator, or is used in the wrong group, at run time too', () => {
    const fake = { kind: 'generator', group: 'list', spec: { ...deletedrevs.spec }, params: {} } as const;
    expect(thrown(() => query({ generator: fake })).code).toBe('badvalue');
    expect(thrown(() => query({ list: [info() as never] })).code).toBe('badvalue');
  });

  it('detects prefix collisions: same prefix, a generator g+prefix, and parameter names that meet', () => {
    expect(thrown(() => query({ list: [allpages(), clashAp()] }))).toMatchObject({
      code: 'prefixcollision',
      data: { prefix: 'ap', modules: ['list=allpages', 'list=clashap'] },
    });
    expect(thrown(() => query({ list: [clashGap()], generator: allpages.asGenerator() }))).toMatchObject({
      code: 'prefixcollision',
      data: { prefix: 'gap' },
    });
    expect(thrown(() => query({ list: [allpages(), clashName()] }))).toMatchObject({
      code: 'prefixcollision',
      param: 'apfrom',
    });
    expect(thrown(() => query({ list: [allpages(), allpages()] })).code).toBe('prefixcollision');
    expect(thrown(() => query({ meta: [clashContinue()] }))).toMatchObject({ code: 'prefixcollision', param: 'continue' });
  });

  it('lets a module parameter share a name with a query/main option unless their values differ', () => {
    // prop=iwlinks's deprecated url is spelled iwurl, like the query module's iwurl (MediaWiki reads one key)
    const q = query({ titles: ['A'], prop: [iwlinks({ url: true })], iwurl: true });
    expect(q.params.iwurl).toBe('1');
    expect(q.warnings).toMatchObject([
      {
        code: 'deprecation',
        libraryCode: 'param-deprecated',
        param: 'iwurl',
        data: { feature: 'action=query&prop=iwlinks&iwurl' },
      },
      { code: 'deprecation-help', module: 'main' },
    ]);
    expect(query({ meta: [clashUselang({ lang: 'de' })], uselang: 'de' }).params.uselang).toBe('de');
    expect(thrown(() => query({ meta: [clashUselang({ lang: 'fr' })], uselang: 'de' }))).toMatchObject({
      code: 'prefixcollision',
      param: 'uselang',
    });
  });

  it('validates titles/pageids/revids with the page-set caps (50, 500 with apihighlimits)', () => {
    const titles = Array.from({ length: 51 }, (_, i) => `Page ${i}`);
    expect(thrown(() => query({ titles }))).toMatchObject({ code: 'toomanyvalues', param: 'titles' });
    expect(query({ titles }, { apihighlimits: true }).params.titles).toBe(titles.join('|'));
    expect(query({ pageids: [1, 2, 2] }).params.pageids).toBe('1|2');
    expect(thrown(() => query({ revids: Array.from({ length: 501 }, (_, i) => i + 1) }, { apihighlimits: true })).code).toBe(
      'toomanyvalues',
    );
  });

  it('allows one page source only (multisource), and warns on revids with redirects', () => {
    expect(thrown(() => query({ titles: ['A'], pageids: [1] }))).toMatchObject({ code: 'multisource', param: 'pageids' });
    expect(query({ revids: [5], redirects: true }).warnings.map((w) => w.code)).toEqual(['redirectsandrevids']);
  });

  it('feeds the page set to info conditions', () => {
    expect(thrown(() => query({ titles: ['A', 'B'], prop: [revisions({ limit: 5 })] })).code).toBe('invalidparammix');
    expect(thrown(() => query({ revids: [1], prop: [revisions({ limit: 5 })] })).code).toBe('invalidparammix');
    expect(query({ titles: ['A'], list: [deletedrevs({ start: '2024-01-01T00:00:00Z' })] }).params.drstart).toBe(
      '2024-01-01T00:00:00Z',
    );
    expect(thrown(() => query({ list: [deletedrevs({ start: '2024-01-01T00:00:00Z' })] })).code).toBe('badparams');
    // a generator supplies pages to the other modules, not to itself
    expect(
      query({ generator: links.asGenerator(), titles: ['A'], prop: [revisions({ limit: 5 })] }).warnings.map((w) => w.code),
    ).toEqual([]);
  });

  it('says nothing when a deprecated module is selected, as MediaWiki 1.39 does (list=deletedrevs)', () => {
    expect(query({ list: [deletedrevs()] }).warnings).toEqual([]);
    expect(query({ list: [deletedrevs()] }, { strict: true }).params.list).toBe('deletedrevs');
  });

  it('returns the warnings raised before an error with it, as the API does', () => {
    const e = thrown(() =>
      query({ prop: [iwlinks({ url: true })], list: [allpages({ limit: -5 as never, namespace: 'x' as never })] }),
    );
    expect(e).toMatchObject({ code: 'badvalue', param: 'apnamespace' });
    // Every parameter is read before the first failure is thrown: aplimit's outofrange, after apnamespace, comes too.
    expect(e.warnings.map((w) => w.code)).toEqual(['deprecation', 'deprecation-help', 'outofrange']);
  });

  it('sends continue as given and remembers which keys it came from', () => {
    const q = query({ list: [allpages()], continue: { apcontinue: 'C', continue: '-||' } });
    expect(q.params).toMatchObject({ apcontinue: 'C', continue: '-||' });
    expect(q.continuation).toEqual(['apcontinue', 'continue']);
  });

  it('errorformat defaults to plaintext and takes any of MediaWiki formats; main options validate', () => {
    expect(query({ errorformat: 'raw' }).params.errorformat).toBe('raw');
    expect(thrown(() => query({ errorformat: 'yaml' as never })).code).toBe('badvalue');
    const q = query({ maxlag: 5, assert: 'user', curtimestamp: true, redirects: false, uselang: 'de' });
    expect(q.params).toMatchObject({ maxlag: '5', assert: 'user', curtimestamp: '1', uselang: 'de' });
    expect(q.params.redirects).toBeUndefined();
  });

  it('warns unrecognizedparams for unknown top-level keys; strict makes any warning an error', () => {
    const q = query({ list: [allpages()], bogus: 1 } as never);
    expect(q.warnings).toMatchObject([{ code: 'unrecognizedparams', param: 'bogus' }]);
    expect(q.params).not.toHaveProperty('bogus');
    expect(thrown(() => query({ list: [allpages({ limit: 9999 })] }, { strict: true }))).toMatchObject({
      code: 'outofrange',
      param: 'aplimit',
    });
  });

  it(`switches to POST when the query string exceeds ${POST_THRESHOLD_BYTES} bytes`, () => {
    const long = Array.from({ length: 500 }, (_, i) => `A rather long page title number ${i}`);
    const q = query({ titles: long }, { apihighlimits: true });
    expect(encodedLength(q.params)).toBeGreaterThan(POST_THRESHOLD_BYTES);
    expect(q.method).toBe('POST');
    expect(query({ titles: long.slice(0, 10) }).method).toBe('GET');
  });
});

describe('query() with the target wiki’s own main and query parameters (BuildOptions.main)', () => {
  // As a MediaWiki 1.39 describes them: smaxage without a minimum, no crossorigin.
  const main: ParamInfo[] = [
    { name: 'smaxage', type: 'integer', default: 0 },
    { name: 'errorformat', type: ['bc', 'html', 'none', 'plaintext', 'raw', 'wikitext'], default: 'bc' },
    { name: 'titles', type: 'string', multi: true, lowlimit: 50, highlimit: 500, limit: 50 },
    { name: 'action', type: ['query'], default: 'help' },
  ];

  it('validates the query’s options as that wiki does; the bundled table stays the default', () => {
    expect(query({ smaxage: -1 }).warnings.map((w) => w.code)).toEqual(['outofrange']);
    expect(query({ smaxage: -1 }, { main }).warnings).toEqual([]);
    expect(query({ smaxage: -1 }, { main }).params.smaxage).toBe('-1');
    expect(query({ crossorigin: true }).warnings).toEqual([]);
    expect(query({ crossorigin: true }, { main }).warnings.map((w) => [w.code, w.param])).toEqual([
      ['unrecognizedparams', 'crossorigin'],
    ]);
    expect(query({ titles: ['Apple'], list: [allpages({ limit: 5 })] }, { main }).params).toMatchObject({
      titles: 'Apple',
      list: 'allpages',
      aplimit: '5',
      errorformat: 'plaintext',
    });
    expect(thrown(() => query({ smaxage: 'x' as unknown as number }, { main })).code).toBe('badinteger');
  });
});

describe('query() and the module’s own requirements (paraminfo’s mustbeposted, tokentype)', () => {
  const spec = (mustbeposted: boolean) =>
    defineModule<{ user?: string; token?: string }, 'list', false>(
      {
        name: 'checkuser',
        path: 'query+checkuser',
        group: 'list',
        prefix: 'cu',
        ...(mustbeposted ? { mustbeposted: true } : {}),
        parameters: [
          { name: 'user', type: 'string' },
          { name: 'token', type: 'string', required: true, tokentype: 'csrf' },
        ],
      },
      { rules: false },
    );

  it('a module that must be posted makes the query a POST, however short', () => {
    expect(query({ list: [spec(true)({ token: 't' })] }).method).toBe('POST');
    expect(query({ list: [spec(false)({ token: 't' })] }).method).toBe('GET');
    expect(query({ list: [spec(false)({ token: 't' })], meta: [] }).method).toBe('GET');
  });

  it('a token parameter left unset takes BuildOptions.tokens’ token of its type, and the query says where', () => {
    const q = query({ list: [spec(true)({ user: 'A' })] }, { tokens: { csrf: 'abc+\\', patrol: 'p' } });
    expect(q.params.cutoken).toBe('abc+\\');
    expect(q.tokens).toEqual([{ param: 'cutoken', type: 'csrf' }]);
    // One the caller gave is kept, and not listed.
    const mine = query({ list: [spec(true)({ token: 'mine' })] }, { tokens: { csrf: 'abc+\\' } });
    expect(mine.params.cutoken).toBe('mine');
    expect(mine.tokens).toBeUndefined();
    // Without a token of its type the parameter is missing, as the wiki says.
    expect(thrown(() => query({ list: [spec(true)({})] }, { tokens: { patrol: 'p' } })).code).toBe('missingparam');
  });
});
