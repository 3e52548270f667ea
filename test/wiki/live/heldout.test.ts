/**
 * The held-out agreement for the extension modules (`heldout.ts`: requests drawn at random from their
 * paraminfo, not from the rules): each through the builders — modules made at run time from the extension
 * wiki's paraminfo with `defineModule()`, as a user's are — and through api.php, compared on the first error
 * and every warning (code and module, in order). A module that cannot run for an anonymous client at all (its
 * request without parameters fails: a right) is scored apart. Asserts no false refusal and the goal, ≥ 80 %.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allpages } from '../../../sdk/src/generated/wiki/allpages.js';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import { LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { BuildOptions, ModuleGroup, ModuleSpec, ParamInfo, SiteContext } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { CORE_PAGE_SETS, type HeldOutCase, heldOutCases } from './heldout.js';

const MODULES = ['abusefilters', 'abuselog', 'extracts', 'gadgetcategories', 'gadgets', 'oath', 'pageimages'];
const PER_MODULE = 40;

/** The codes ParamValidator (through ApiBase::extractRequestParams) refuses a value with. */
const PARAM_CODES = new Set([
  'badinteger',
  'badvalue',
  'toomanyvalues',
  'missingparam',
  'badtimestamp',
  'baduser',
  'badnamespace',
  'badfloat',
  'badexpiry',
  'outofrange',
  'badutf8',
  'unknown_action',
]);

const verdict = (error: string | undefined, warnings: readonly { code: string; module?: string }[]) =>
  `${error ?? 'ok'} [${warnings.map((w) => `${w.code}@${(w.module ?? '').replace(/^query\+/, '')}`).join(' ')}]`;
const accepts = (v: string) => v.startsWith('ok ');

describe.skipIf(!mediawiki.available)('held-out extension requests: builders vs the live MediaWiki 1.39', () => {
  let api: string;
  let specs: ModuleSpec[];
  let site: SiteContext;
  const post = poster(() => api);

  beforeAll(async () => {
    api = (await startMediaWiki({ extensions: true })).api;
    const info = await post({ action: 'paraminfo', modules: 'query+*', helpformat: 'none', format: 'json', formatversion: '2' });
    specs = specsFrom(info, { modules: {} }).filter((s) => MODULES.includes(s.name));
    site = siteContextFromSiteinfo(
      await post({ action: 'query', meta: 'siteinfo', siprop: SITEINFO_PROPS, format: 'json', formatversion: '2' }),
    );
  }, 180_000);

  const wiki = async (spec: ModuleSpec, c: HeldOutCase): Promise<string> => {
    const raw: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
    raw[spec.group] = spec.name;
    if (c.titles) raw.titles = c.titles.join('|');
    if (c.pageids) raw.pageids = c.pageids.join('|');
    if (c.generatorLimit) Object.assign(raw, { generator: 'allpages', gaplimit: c.generatorLimit });
    for (const [k, v] of Object.entries(c.params)) raw[spec.prefix + k] = v;
    for (const [k, v] of Object.entries(c.lists ?? {})) raw[`${spec.prefix}${k}[]`] = v;
    Object.assign(raw, c.main);
    const response = await post(raw);
    const errors = (response.errors as { code: string }[] | undefined) ?? [];
    return verdict(errors[0]?.code, (response.warnings as { code: string; module: string }[] | undefined) ?? []);
  };

  const builder = (spec: ModuleSpec, c: HeldOutCase, options: BuildOptions = {}): string => {
    const module = defineModule<Record<string, unknown>, ModuleGroup, false>(spec);
    const lists = Object.fromEntries(Object.entries(c.lists ?? {}).map(([k, v]) => [k, [v]]));
    const input: Record<string, unknown> = { [spec.group]: [module({ ...c.params, ...lists })], ...c.main };
    if (c.titles) input.titles = c.titles;
    if (c.pageids) input.pageids = c.pageids.map(Number);
    if (c.generatorLimit) input.generator = allpages.asGenerator({ limit: Number(c.generatorLimit) });
    try {
      return verdict(undefined, query(input as QueryInput, { site, ...options }).warnings);
    } catch (e) {
      if (e instanceof WikiParamError) return verdict(e.code, e.warnings);
      return `threw ${(e as Error).message}`;
    }
  };

  it('agrees on ≥ 80 % of the held-out requests, and refuses none the wiki accepts', async () => {
    expect(specs.map((s) => s.name).sort()).toEqual(MODULES);
    const cantRun = new Set<string>();
    for (const spec of specs) {
      const base = await wiki(spec, { module: spec.name, params: {}, titles: ['Apple'], label: 'baseline' });
      if (!accepts(base)) cantRun.add(spec.name);
    }
    const rows: { c: HeldOutCase; api: string; builder: string; apart: boolean }[] = [];
    for (const spec of specs) {
      for (const c of heldOutCases([spec], PER_MODULE)) {
        rows.push({ c, api: await wiki(spec, c), builder: builder(spec, c), apart: cantRun.has(spec.name) });
      }
    }
    const scored = rows.filter((r) => !r.apart);
    const agreed = scored.filter((r) => r.api === r.builder);
    const per = MODULES.map((m) => {
      const of = rows.filter((r) => r.c.module === m);
      return `  ${m}: ${of.filter((r) => r.api === r.builder).length}/${of.length}${cantRun.has(m) ? ' (cannot run anonymously: scored apart)' : ''}`;
    });
    console.log(
      `held-out extension requests: ${agreed.length}/${scored.length} (${((100 * agreed.length) / scored.length).toFixed(1)} %)\n${per.join('\n')}`,
    );
    for (const r of scored.filter((x) => x.api !== x.builder).slice(0, Number(process.env.DIFF_SHOW ?? 30))) {
      console.log(`  ✗ ${r.c.label}: builder ${r.builder} api ${r.api}`);
    }
    expect(rows.filter((r) => accepts(r.api) && !accepts(r.builder)).map((r) => `${r.c.label}: ${r.builder}`)).toEqual([]);
    expect(scored.length).toBeGreaterThan(150);
    expect(agreed.length / scored.length).toBeGreaterThanOrEqual(0.8);
  }, 300_000);
});

describe.skipIf(!mediawiki.available)('held-out core requests: builders vs the live MediaWiki 1.39', () => {
  it('agree on ≥ 99.5 % of parameter validation (main options and lists for single values among it), none refused falsely', async () => {
    const { api } = await startMediaWiki();
    const post = poster(() => api);
    const info = await post({ action: 'paraminfo', modules: 'query+*', helpformat: 'none', format: 'json', formatversion: '2' });
    const mainInfo = (await post({
      action: 'paraminfo',
      modules: 'main|query',
      helpformat: 'none',
      format: 'json',
      formatversion: '2',
    })) as { paraminfo: { modules: { parameters: ParamInfo[] }[] } };
    const main = mainInfo.paraminfo.modules.flatMap((m) => m.parameters);
    // As WikiClient loads it: with the language codes languageinfo knows.
    const site = siteContextFromSiteinfo(
      await post({
        action: 'query',
        meta: 'siteinfo|languageinfo',
        siprop: SITEINFO_PROPS,
        ...LANGUAGEINFO_PARAMS,
        format: 'json',
        formatversion: '2',
      }),
    );
    const specs = specsFrom(info, { modules: {} });
    const verdictOf = (response: Record<string, unknown>) =>
      verdict(
        ((response.errors as { code: string }[] | undefined) ?? [])[0]?.code,
        (response.warnings as { code: string; module: string }[] | undefined) ?? [],
      );
    const ask = async (spec: ModuleSpec, c: HeldOutCase) => {
      const raw: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
      raw[spec.group] = spec.name;
      if (c.titles) raw.titles = c.titles.join('|');
      if (c.pageids) raw.pageids = c.pageids.join('|');
      if (c.generatorLimit) Object.assign(raw, { generator: 'allpages', gaplimit: c.generatorLimit });
      for (const [k, v] of Object.entries(c.params)) raw[spec.prefix + k] = v;
      for (const [k, v] of Object.entries(c.lists ?? {})) raw[`${spec.prefix}${k}[]`] = v;
      Object.assign(raw, c.main);
      return verdictOf(await post(raw));
    };
    const build = (spec: ModuleSpec, c: HeldOutCase) => {
      const module = defineModule<Record<string, unknown>, ModuleGroup, false>(spec);
      const lists = Object.fromEntries(Object.entries(c.lists ?? {}).map(([k, v]) => [k, [v]]));
      const options = Object.fromEntries(Object.entries(c.main ?? {}).map(([k, v]) => [k, v === '1' ? true : v]));
      const input: Record<string, unknown> = { [spec.group]: [module({ ...c.params, ...lists })], ...options };
      if (c.titles) input.titles = c.titles;
      if (c.pageids) input.pageids = c.pageids.map(Number);
      if (c.generatorLimit) input.generator = allpages.asGenerator({ limit: Number(c.generatorLimit) });
      try {
        return verdict(undefined, query(input as QueryInput, { site, main }).warnings);
      } catch (e) {
        if (e instanceof WikiParamError) return verdict(e.code, e.warnings);
        return `threw ${(e as Error).message}`;
      }
    };
    const cantRun = new Set<string>();
    for (const spec of specs)
      if (!accepts(await ask(spec, { module: spec.name, params: {}, titles: ['Apple'], label: '' }))) cantRun.add(spec.name);
    const rows: { c: HeldOutCase; api: string; builder: string }[] = [];
    const cases = heldOutCases(
      specs.filter((s) => !cantRun.has(s.name)),
      12,
      139,
      { mainAndLists: true, pageSets: CORE_PAGE_SETS },
    );
    const bySpec = new Map(specs.map((s) => [s.name, s]));
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const spec = bySpec.get(c.module)!;
        rows.push({ c, api: await ask(spec, c), builder: build(spec, c) });
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    const agreed = rows.filter((r) => r.api === r.builder).length;
    // Parameter validation: the requests the wiki accepts or refuses with ParamValidator's own codes (what
    // extractRequestParams throws); the rest are the modules' own checks and the client's rights.
    const isParam = (v: string) => accepts(v) || PARAM_CODES.has(v.split(' ')[0]!);
    const param = rows.filter((r) => isParam(r.api));
    const paramAgreed = param.filter((r) => r.api === r.builder).length;
    const pct = (a: number, n: number) => ((100 * a) / n).toFixed(2);
    console.log(
      `held-out core requests (${specs.length - cantRun.size} modules; apart: ${[...cantRun].join(', ')}): ${agreed}/${rows.length} (${pct(agreed, rows.length)} %)\n` +
        `  parameter validation: ${paramAgreed}/${param.length} (${pct(paramAgreed, param.length)} %)\n` +
        `  the modules' own checks and rights: ${agreed - paramAgreed}/${rows.length - param.length}`,
    );
    for (const r of rows.filter((x) => x.api !== x.builder).slice(0, Number(process.env.DIFF_SHOW ?? 30))) {
      console.log(`  ✗ ${r.c.label}: builder ${r.builder} api ${r.api}`);
    }
    expect(rows.filter((r) => accepts(r.api) && !accepts(r.builder)).map((r) => `${r.c.label}: ${r.builder}`)).toEqual([]);
    expect(param.length).toBeGreaterThan(400);
    expect(paramAgreed / param.length).toBeGreaterThanOrEqual(0.995);
  }, 600_000);
});
