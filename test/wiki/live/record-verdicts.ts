/**
 * Records what the live wikis answer to the probes (`probes.ts` on the core wiki, `extension-probes.ts` on the
 * extension wiki; those left to the wiki's state are not recorded) into `test/fixtures/wiki/rule-verdicts.json`,
 * with the site context each was asked under: `sdk/src/wiki/rules.test.ts` checks the rules against these
 * answers without a wiki, and `verdicts.test.ts` checks that the wikis still give them.
 *
 *   npx tsx test/wiki/live/record-verdicts.ts
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleSpec, SiteContext } from '../../../sdk/src/wiki/types.js';
import { startMediaWiki, type WikiChoice } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { EXTENSION_PROBES } from './extension-probes.js';
import { PROBES } from './probes.js';
import { apiVerdictOf, type RawRequest, wireOf } from './requests.js';

export const VERDICTS_FILE = fileURLToPath(new URL('../../fixtures/wiki/rule-verdicts.json', import.meta.url));

export interface RecordedVerdict {
  wiki: 'core' | 'extensions';
  label: string;
  request: RawRequest;
  /** Whether the verdict holds the warnings (every extension probe's; the core probes' that compare them). */
  warnings: boolean;
  /** The wiki's answer, as `requests.ts` writes a verdict. */
  verdict: string;
}

export interface VerdictRecording {
  $comment: string;
  mediawiki: string;
  sites: Record<RecordedVerdict['wiki'], SiteContext>;
  verdicts: RecordedVerdict[];
}

async function wikiOf(choice: WikiChoice) {
  const { api } = await startMediaWiki(choice);
  const post = poster(() => api);
  const info = await post({ action: 'paraminfo', modules: 'query+*', helpformat: 'none', format: 'json', formatversion: '2' });
  const specs = new Map<string, ModuleSpec>(specsFrom(info, { modules: {} }).map((s) => [s.name, s]));
  const siteinfo = await post({
    action: 'query',
    meta: choice.extensions ? 'siteinfo' : 'siteinfo|languageinfo',
    siprop: SITEINFO_PROPS,
    ...(choice.extensions ? {} : LANGUAGEINFO_PARAMS),
    format: 'json',
    formatversion: '2',
  });
  const generator = ((siteinfo.query as { general: { generator: string } }).general.generator ?? '').replace(/^MediaWiki /, '');
  return { post, specs, site: siteContextFromSiteinfo(siteinfo), generator };
}

export async function recordVerdicts(): Promise<VerdictRecording> {
  const core = await wikiOf({});
  const ext = await wikiOf({ extensions: true });
  const verdicts: RecordedVerdict[] = [];
  for (const p of PROBES) {
    const warnings = p.warnings === true;
    verdicts.push({
      wiki: 'core',
      label: p.label,
      request: p,
      warnings,
      verdict: apiVerdictOf(await core.post(wireOf(p, core.specs)), warnings),
    });
  }
  for (const p of EXTENSION_PROBES.filter((x) => x.category !== 'state')) {
    const request: RawRequest = {
      uses: p.uses,
      ...(p.titles ? { titles: p.titles } : {}),
      ...(p.pageids ? { pageids: p.pageids } : {}),
    };
    verdicts.push({
      wiki: 'extensions',
      label: p.label,
      request,
      warnings: true,
      verdict: apiVerdictOf(await ext.post(wireOf(request, ext.specs)), true),
    });
  }
  return {
    $comment:
      "What the live MediaWiki answers to each probe of test/wiki/live/probes.ts (core wiki) and extension-probes.ts (extension wiki), recorded by test/wiki/live/record-verdicts.ts; read by sdk/src/wiki/rules.test.ts, checked against the live wikis by test/wiki/live/verdicts.test.ts. A verdict is the first error's code or 'ok', then, where 'warnings' is true, each warning as code@module in the wiki's order.",
    mediawiki: core.generator,
    sites: { core: core.site, extensions: ext.site },
    verdicts,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const recording = await recordVerdicts();
  writeFileSync(VERDICTS_FILE, `${JSON.stringify(recording, null, 1)}\n`);
  console.log(`recorded ${recording.verdicts.length} verdicts of MediaWiki ${recording.mediawiki} into ${VERDICTS_FILE}`);
  // The wikis this process installed (outside vitest: a scratch directory of its own) are stopped and removed.
  const dir = join(tmpdir(), `consilium-mw-${process.pid}`);
  for (const file of [join(dir, 'server.json'), join(dir, 'extensions', 'server.json')]) {
    if (existsSync(file)) process.kill(-(JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid, 'SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
}
