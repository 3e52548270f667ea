/**
 * The hand-written extension probes (`extension-probes.ts`, read from the extensions' PHP, not from
 * rules.json) against the live MediaWiki 1.39 with Debian's bundled extensions: each runs through the
 * builders — modules made at run time from that wiki's own paraminfo with `defineModule(spec, { rules:
 * moduleRules })` — and through api.php, compared on the first error's code. Prints the agreement per
 * extension and category; asserts that no request the wiki accepts is refused, and the agreement goal
 * (≥ 80 % for extension modules).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleRules } from '../../../sdk/src/generated/wiki-rules.js';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import { SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleGroup, ModuleSpec, SiteContext } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { EXTENSION_PROBES, type ExtensionProbe, MISSING_PAGE_PROBES } from './extension-probes.js';

/** The query modules the five extensions add (paraminfo's `source`), as the wiki lists them. */
const EXTENSION_MODULES = ['abusefilters', 'abuselog', 'extracts', 'gadgetcategories', 'gadgets', 'oath', 'pageimages'];
/** The test extension's own module (support/mediawiki.ts), probed by tokens.test.ts. */
const TEST_MODULES = ['consiliumtokenecho'];

describe.skipIf(!mediawiki.available)(
  'extension probes from the PHP: builders vs the live MediaWiki 1.39 with extensions',
  () => {
    let api: string;
    let specs: Map<string, ModuleSpec>;
    let sources: Map<string, string>;
    let site: SiteContext;
    const post = poster(() => api);

    beforeAll(async () => {
      api = (await startMediaWiki({ extensions: true })).api;
      const info = await post({
        action: 'paraminfo',
        modules: 'query+*',
        helpformat: 'none',
        format: 'json',
        formatversion: '2',
      });
      // Without rules: defineModule() matches the SDK's table, as a user's run-time builder does.
      specs = new Map(specsFrom(info, { modules: {} }).map((s) => [s.name, s]));
      const modules = (info as { paraminfo: { modules: { name: string; source: string }[] } }).paraminfo.modules;
      sources = new Map(modules.map((m) => [m.name, m.source]));
      site = siteContextFromSiteinfo(
        await post({ action: 'query', meta: 'siteinfo', siprop: SITEINFO_PROPS, format: 'json', formatversion: '2' }),
      );
    }, 180_000);

    const wire = (p: ExtensionProbe): Record<string, string> => {
      const out: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
      if (p.titles) out.titles = p.titles.join('|');
      if (p.pageids) out.pageids = p.pageids.join('|');
      for (const u of p.uses) {
        const spec = specs.get(u.module)!;
        if (u.generator) out.generator = u.module;
        else out[spec.group] = out[spec.group] ? `${out[spec.group]}|${u.module}` : u.module;
        for (const [k, v] of Object.entries(u.params)) out[(u.generator ? 'g' : '') + spec.prefix + k] = v;
      }
      return out;
    };

    /** A verdict: the first error's code (or `ok`) and every warning's code and module, in the wiki's order. */
    const verdict = (error: string | undefined, warnings: readonly { code: string; module?: string }[]) =>
      `${error ?? 'ok'} [${warnings.map((w) => `${w.code}@${(w.module ?? '').replace(/^query\+/, '')}`).join(' ')}]`;

    const builder = (p: ExtensionProbe): string => {
      const input: Record<string, unknown> = {};
      if (p.titles) input.titles = p.titles;
      if (p.pageids) input.pageids = p.pageids.map(Number);
      for (const u of p.uses) {
        const spec = specs.get(u.module)!;
        const module = defineModule<Record<string, unknown>, ModuleGroup, true>(spec, { rules: moduleRules });
        if (u.generator) input.generator = module.asGenerator(u.params);
        else input[spec.group] = [...((input[spec.group] as unknown[]) ?? []), module(u.params)];
      }
      try {
        return verdict(undefined, query(input as QueryInput, { site }).warnings);
      } catch (e) {
        if (e instanceof WikiParamError) return verdict(e.code, e.warnings);
        return `threw ${(e as Error).name}: ${(e as Error).message}`;
      }
    };

    const wikiVerdict = async (p: ExtensionProbe): Promise<string> => {
      const response = await post(wire(p));
      const errors = Array.isArray(response.errors) ? (response.errors as { code: string }[]) : [];
      const warnings = Array.isArray(response.warnings) ? (response.warnings as { code: string; module: string }[]) : [];
      return verdict(errors[0]?.code, warnings);
    };
    const accepts = (v: string) => v.startsWith('ok ');

    it('the wiki has the five extensions’ query modules, and every probe names one of its modules', () => {
      const fromExtensions = [...sources].filter(([, source]) => source !== 'MediaWiki').map(([name]) => name);
      expect(fromExtensions.sort()).toEqual([...EXTENSION_MODULES, ...TEST_MODULES].sort());
      for (const p of EXTENSION_PROBES) for (const u of p.uses) expect(specs.has(u.module), u.module).toBe(true);
      // Each module the extensions add is probed.
      const probed = new Set(EXTENSION_PROBES.flatMap((p) => p.uses.map((u) => u.module)));
      for (const m of EXTENSION_MODULES) expect(probed.has(m), m).toBe(true);
    });

    it('agrees per extension and category, and refuses nothing the wiki accepts', async () => {
      const rows: { p: ExtensionProbe; api: string; builder: string }[] = [];
      for (const p of EXTENSION_PROBES) rows.push({ p, api: await wikiVerdict(p), builder: builder(p) });
      const groups = [...new Set(rows.map((r) => `${r.p.extension} ${r.p.category}`))];
      const lines = groups.map((g) => {
        const of = rows.filter((r) => `${r.p.extension} ${r.p.category}` === g);
        const agreed = of.filter((r) => r.api === r.builder).length;
        return `  ${g}: ${agreed}/${of.length} (the wiki refuses ${of.filter((r) => !accepts(r.api)).length})`;
      });
      const agreed = rows.filter((r) => r.api === r.builder).length;
      const checks = rows.filter((r) => r.p.category !== 'state');
      const checksAgreed = checks.filter((r) => r.api === r.builder).length;
      console.log(
        `extension probes (${rows.length} requests): ${agreed}/${rows.length}; without those left to the wiki's state ${checksAgreed}/${checks.length}\n${lines.join('\n')}`,
      );
      for (const r of rows.filter((x) => x.api !== x.builder)) {
        console.log(`  ✗ [${r.p.extension} ${r.p.category}] ${r.p.label}: builder ${r.builder} api ${r.api}`);
      }
      // No false refusals: where the wiki accepts, so does the builder.
      expect(rows.filter((r) => accepts(r.api) && !accepts(r.builder)).map((r) => r.p.label)).toEqual([]);
      // Every check that needs no wiki state agrees; those that do are refusals the wiki makes, the builder not.
      expect(checks.filter((r) => r.api !== r.builder).map((r) => r.p.label)).toEqual([]);
      for (const r of rows.filter((x) => x.p.category === 'state')) {
        expect(accepts(r.api), r.p.label).toBe(false);
        expect(accepts(r.builder) || r.builder.startsWith('invalidtitle '), r.p.label).toBe(true);
      }
      expect(agreed / rows.length).toBeGreaterThanOrEqual(0.8);
    }, 300_000);

    it('refuses what the wiki accepts only when no page of the request exists (execute() returns first)', async () => {
      // The one known gap: a request whose pages are all missing. Listed, so a fix shows up here.
      for (const p of MISSING_PAGE_PROBES) {
        expect(accepts(await wikiVerdict(p)), p.label).toBe(true);
        expect(accepts(builder(p)), p.label).toBe(false);
      }
    });
  },
);
