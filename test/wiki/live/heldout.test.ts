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
import { SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleGroup, ModuleSpec, SiteContext } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { type HeldOutCase, heldOutCases } from './heldout.js';

const MODULES = ['abusefilters', 'abuselog', 'extracts', 'gadgetcategories', 'gadgets', 'oath', 'pageimages'];
const PER_MODULE = 40;

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

  const verdict = (error: string | undefined, warnings: readonly { code: string; module?: string }[]) =>
    `${error ?? 'ok'} [${warnings.map((w) => `${w.code}@${(w.module ?? '').replace(/^query\+/, '')}`).join(' ')}]`;
  const accepts = (v: string) => v.startsWith('ok ');

  const wiki = async (spec: ModuleSpec, c: HeldOutCase): Promise<string> => {
    const raw: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
    raw[spec.group] = spec.name;
    if (c.titles) raw.titles = c.titles.join('|');
    if (c.pageids) raw.pageids = c.pageids.join('|');
    if (c.generatorLimit) Object.assign(raw, { generator: 'allpages', gaplimit: c.generatorLimit });
    for (const [k, v] of Object.entries(c.params)) raw[spec.prefix + k] = v;
    const response = await post(raw);
    const errors = (response.errors as { code: string }[] | undefined) ?? [];
    return verdict(errors[0]?.code, (response.warnings as { code: string; module: string }[] | undefined) ?? []);
  };

  const builder = (spec: ModuleSpec, c: HeldOutCase): string => {
    const module = defineModule<Record<string, unknown>, ModuleGroup, false>(spec);
    const input: Record<string, unknown> = { [spec.group]: [module(c.params)] };
    if (c.titles) input.titles = c.titles;
    if (c.pageids) input.pageids = c.pageids.map(Number);
    if (c.generatorLimit) input.generator = allpages.asGenerator({ limit: Number(c.generatorLimit) });
    try {
      return verdict(undefined, query(input as QueryInput, { site }).warnings);
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
