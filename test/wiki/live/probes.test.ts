/**
 * The hand-written probes (`probes.ts`, read from the PHP, not from rules.json) against the live
 * MediaWiki 1.39: each runs through the builders — modules made at run time from the wiki's own
 * paraminfo with `defineModule(spec)`, which matches the SDK's rules table by default, as a user does — and through api.php, compared on the
 * first error's code. Prints the agreement per category; asserts that no request the wiki accepts is
 * refused, and the agreement goal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import { LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleGroup, ModuleSpec, ParamInfo, SiteContext } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { PROBES, type Probe } from './probes.js';

describe.skipIf(!mediawiki.available)('probes from the PHP: builders vs the live MediaWiki 1.39', () => {
  let api: string;
  let specs: Map<string, ModuleSpec>;
  let site: SiteContext;
  const post = poster(() => api);

  beforeAll(async () => {
    api = (await startMediaWiki()).api;
    const info = await post({ action: 'paraminfo', modules: 'query+*', helpformat: 'none', format: 'json', formatversion: '2' });
    // The descriptors as the wiki's paraminfo gives them, without rules: defineModule() matches the SDK's table.
    specs = new Map(specsFrom(info, { modules: {} }).map((s) => [s.name, s]));
    // As WikiClient loads it: with the language codes languageinfo knows.
    site = siteContextFromSiteinfo(
      await post({
        action: 'query',
        meta: 'siteinfo|languageinfo',
        siprop: SITEINFO_PROPS,
        ...LANGUAGEINFO_PARAMS,
        format: 'json',
        formatversion: '2',
      }),
    );
    expect(site.languages).toContain('en');
    expect(site.miserMode).toBe(false);
  }, 120_000);

  const wire = (p: Probe): Record<string, string> => {
    const out: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
    if (p.titles) out.titles = p.titles.join('|');
    if (p.continue !== undefined) out.continue = p.continue;
    if (p.redirects) out.redirects = '1';
    for (const u of p.uses) {
      const spec = specs.get(u.module)!;
      if (u.generator) out.generator = u.module;
      else out[spec.group] = out[spec.group] ? `${out[spec.group]}|${u.module}` : u.module;
      for (const [k, v] of Object.entries(u.params)) out[(u.generator ? 'g' : '') + spec.prefix + k] = v;
    }
    return out;
  };

  /** The builder's verdict: the first error's code (undefined when none) and the warnings' codes. */
  const builder = (p: Probe): { error?: string; warnings: string[] } => {
    const input: Record<string, unknown> = {};
    if (p.titles) input.titles = p.titles;
    if (p.continue !== undefined) input.continue = { continue: p.continue };
    if (p.redirects) input.redirects = true;
    for (const u of p.uses) {
      const spec = specs.get(u.module)!;
      const module = defineModule<Record<string, unknown>, ModuleGroup, true>(spec);
      if (u.generator) input.generator = module.asGenerator(u.params);
      else input[spec.group] = [...((input[spec.group] as unknown[]) ?? []), module(u.params)];
    }
    try {
      return { warnings: query(input as QueryInput, { site }).warnings.map((w) => w.code) };
    } catch (e) {
      if (e instanceof WikiParamError) return { error: e.code, warnings: e.warnings.map((w) => w.code) };
      return { error: `threw ${(e as Error).name}: ${(e as Error).message}`, warnings: [] };
    }
  };

  it("checks the query's own options against the wiki's main and query modules when given them (BuildOptions.main)", async () => {
    const info = (await post({
      action: 'paraminfo',
      modules: 'main|query',
      helpformat: 'none',
      format: 'json',
      formatversion: '2',
    })) as {
      paraminfo: { modules: { parameters: ParamInfo[] }[] };
    };
    const main = info.paraminfo.modules.flatMap((m) => m.parameters);
    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      ['smaxage=-1', { smaxage: -1 }, { smaxage: '-1' }],
      ['maxage=-1', { maxage: -1 }, { maxage: '-1' }],
      ['crossorigin', { crossorigin: true }, { crossorigin: '1' }],
      ['maxlag=x', { maxlag: 'x' }, { maxlag: 'x' }],
      ['exportschema=0.9', { exportschema: '0.9' }, { exportschema: '0.9' }],
    ];
    const codes = (ws: { code: string }[]) => ws.map((w) => w.code).sort();
    const verdict = (input: Record<string, unknown>, options: { main?: readonly ParamInfo[] }) => {
      try {
        return { warnings: codes(query({ meta: [], ...input } as QueryInput, { site, ...options }).warnings) };
      } catch (e) {
        if (!(e instanceof WikiParamError)) throw e;
        return { error: e.code, warnings: codes(e.warnings) };
      }
    };
    let bundledAgrees = 0;
    for (const [label, input, raw] of cases) {
      const r = await post({ action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext', ...raw });
      const errors = (r.errors as { code: string }[] | undefined) ?? [];
      const api = {
        ...(errors[0] ? { error: errors[0].code } : {}),
        warnings: codes((r.warnings as { code: string }[] | undefined) ?? []),
      };
      expect(verdict(input, { main }), label).toEqual(api);
      if (JSON.stringify(verdict(input, {})) === JSON.stringify(api)) bundledAgrees++;
    }
    // The bundled table is MediaWiki 1.46's: it differs from this 1.39 wiki on smaxage, maxage and crossorigin.
    expect(bundledAgrees).toBeLessThan(cases.length);
  });

  it('agrees per category, and refuses nothing the wiki accepts', async () => {
    for (const p of PROBES) for (const u of p.uses) expect(specs.has(u.module), u.module).toBe(true);
    // A verdict: the first error's code, and, for the probes that compare them, the warnings' codes in order.
    const rows: { p: Probe; api?: string; builder?: string }[] = [];
    const verdict = (p: Probe, error: string | undefined, warnings: string[]) =>
      p.warnings ? `${error ?? 'ok'} [${warnings.join(' ')}]` : error;
    for (const p of PROBES) {
      const response = await post(wire(p));
      const errors = Array.isArray(response.errors) ? (response.errors as { code: string }[]) : [];
      const warnings = Array.isArray(response.warnings) ? (response.warnings as { code: string }[]).map((w) => w.code) : [];
      const b = builder(p);
      rows.push({ p, api: verdict(p, errors[0]?.code, warnings), builder: verdict(p, b.error, b.warnings) });
    }
    const categories = [...new Set(PROBES.map((p) => p.category))];
    const lines = categories.map((c) => {
      const of = rows.filter((r) => r.p.category === c);
      const agreed = of.filter((r) => r.api === r.builder).length;
      const refused = of.filter((r) => r.api !== undefined && !r.api.startsWith('ok ')).length;
      return `  ${c}: ${agreed}/${of.length} (the wiki refuses ${refused})`;
    });
    const agreed = rows.filter((r) => r.api === r.builder).length;
    console.log(`probes (${rows.length} requests): ${agreed}/${rows.length}\n${lines.join('\n')}`);
    for (const r of rows.filter((x) => x.api !== x.builder)) {
      console.log(`  ✗ [${r.p.category}] ${r.p.label}: builder ${r.builder ?? 'ok'} api ${r.api ?? 'ok'}`);
    }
    // No false refusals: where the wiki accepts, so does the builder.
    const accepts = (v: string | undefined) => v === undefined || v.startsWith('ok ');
    expect(rows.filter((r) => accepts(r.api) && !accepts(r.builder)).map((r) => r.p.label)).toEqual([]);
    // The hard cases (generator with redirects, languageinfo's codes, the warnings before an error): all of them agree.
    const hard = rows.filter((r) => r.p.warnings || r.p.redirects || r.p.label.startsWith('allimages mime'));
    expect(hard.filter((r) => r.api !== r.builder).map((r) => `${r.p.label}: ${r.builder} vs ${r.api}`)).toEqual([]);
    expect(agreed / rows.length).toBeGreaterThanOrEqual(0.9);
  }, 300_000);
});
