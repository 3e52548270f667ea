/**
 * The builders against a live MediaWiki 1.39: requests generated from the wiki's own paraminfo, each
 * run through `query()` and through api.php, compared on the first error's code and the warning
 * codes. Prints the agreement per kind; the goals are asserted (≥ 99.5% on parameter validation,
 * ≥ 90% on the core modules' own request-only checks). State-dependent modules are scored apart.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RuleTable } from '../../../sdk/src/wiki/rules.js';
import { SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleSpec, SiteContext } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import {
  agree,
  apiParams,
  apiVerdict,
  builderVerdict,
  type Case,
  casesFor,
  type Outcome,
  poster,
  score,
  specsFrom,
} from './differential.js';

const table = JSON.parse(readFileSync(new URL('../../../catalogue/rules.json', import.meta.url), 'utf8')) as RuleTable;
/** Bounds CI time: at most this many cases per module (each is one request to the wiki). */
const MAX_PER_MODULE = 60;
const CONCURRENCY = 4;

describe.skipIf(!mediawiki.available)('differential: builders vs the live MediaWiki 1.39', () => {
  let api: string;
  let specs: ModuleSpec[];
  let site: SiteContext;

  const post = poster(() => api);

  beforeAll(async () => {
    api = (await startMediaWiki()).api;
    const info = await post({ action: 'paraminfo', modules: 'query+*', helpformat: 'none', format: 'json', formatversion: '2' });
    specs = specsFrom(info, table);
    site = siteContextFromSiteinfo(
      await post({ action: 'query', meta: 'siteinfo', siprop: SITEINFO_PROPS, format: 'json', formatversion: '2' }),
    );
  }, 120_000);

  it('agrees with the API on parameter validation (≥ 99.5%) and module rules (≥ 90%)', async () => {
    expect(specs.length).toBeGreaterThan(60);
    const outcomes: Outcome[] = [];
    const baselineWarnings = new Map<string, string[]>();
    const stateModules = new Set<string>();

    // Baselines first: what a module says on a valid request, and whether it can run at all.
    for (const spec of specs) {
      const [base] = casesFor(spec, 1);
      const response = await post(apiParams(spec, base!));
      const verdict = apiVerdict(response, []);
      if (verdict.error) stateModules.add(spec.name);
      baselineWarnings.set(spec.name, verdict.warnings);
    }

    const queue: { spec: ModuleSpec; c: Case }[] = [];
    for (const spec of specs) {
      for (const c of casesFor(spec, MAX_PER_MODULE)) {
        queue.push({ spec, c: stateModules.has(spec.name) ? { ...c, kind: 'state' } : c });
      }
    }
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const { spec, c } = queue[next++]!;
        const response = await post(apiParams(spec, c));
        const apiSide = apiVerdict(response, c.label === 'baseline' ? [] : (baselineWarnings.get(spec.name) ?? []));
        const builder = builderVerdict(spec, c, site);
        const baseApi = c.label === 'baseline' ? apiVerdict(response, baselineWarnings.get(spec.name) ?? []) : apiSide;
        // The wiki failing internally (an exception, not a validation answer) is its bug: labelled, scored apart.
        const kind = baseApi.error?.startsWith('internal_api_error') && c.kind !== 'state' ? 'server-error' : c.kind;
        outcomes.push({ case: { ...c, kind }, builder, api: baseApi, agree: agree(builder, baseApi) });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const s = score(outcomes);
    const line = (k: keyof typeof s) => `${k}: ${s[k].agreed}/${s[k].total} (${s[k].percent.toFixed(2)}%)`;
    console.log(
      `differential (${specs.length} modules, ${outcomes.length} requests; state-dependent modules: ${[...stateModules].join(', ') || 'none'})\n` +
        `  ${line('param')}\n  ${line('rule')}\n  ${line('state')} (scored apart)\n  ${line('server-error')} (scored apart)`,
    );
    const disagreements = outcomes.filter((o) => !o.agree && (o.case.kind === 'param' || o.case.kind === 'rule'));
    for (const o of disagreements.slice(0, Number(process.env.DIFF_SHOW ?? 40))) {
      console.log(
        `  ✗ [${o.case.kind}] ${o.case.module}${o.case.generator ? ' (generator)' : ''} ${o.case.label}: builder ${JSON.stringify(o.builder)} api ${JSON.stringify(o.api)}`,
      );
    }
    expect(s.param.total).toBeGreaterThan(500);
    expect(s.rule.total).toBeGreaterThan(30);
    expect(s.param.percent).toBeGreaterThanOrEqual(99.5);
    expect(s.rule.percent).toBeGreaterThanOrEqual(90);
  }, 600_000);
});
