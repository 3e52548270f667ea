/**
 * The recorded answers `sdk/src/wiki/rules.test.ts` reads (`test/fixtures/wiki/rule-verdicts.json`) are still what
 * the live wikis answer, under the site context recorded with them: a recording made stale by a change to the test
 * wikis, their pages or the probes fails here, and `record-verdicts.ts` makes it again.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SITEINFO_PROPS, siteContextFromSiteinfo } from '../../../sdk/src/wiki/site.js';
import type { ModuleSpec } from '../../../sdk/src/wiki/types.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';
import { VERDICTS_FILE, type VerdictRecording } from './record-verdicts.js';
import { apiVerdictOf, wireOf } from './requests.js';

describe.skipIf(!mediawiki.available)('the recorded verdicts against the live wikis', () => {
  it('every recorded request gets the recorded verdict, under the recorded site context', async () => {
    const recording = JSON.parse(readFileSync(VERDICTS_FILE, 'utf8')) as VerdictRecording;
    const stale: string[] = [];
    for (const wiki of ['core', 'extensions'] as const) {
      const { api } = await startMediaWiki({ extensions: wiki === 'extensions' });
      const post = poster(() => api);
      const info = await post({
        action: 'paraminfo',
        modules: 'query+*',
        helpformat: 'none',
        format: 'json',
        formatversion: '2',
      });
      const specs = new Map<string, ModuleSpec>(specsFrom(info, { modules: {} }).map((s) => [s.name, s]));
      const site = siteContextFromSiteinfo(
        await post({ action: 'query', meta: 'siteinfo', siprop: SITEINFO_PROPS, format: 'json', formatversion: '2' }),
      );
      expect(site.namespaces).toEqual(recording.sites[wiki].namespaces);
      for (const v of recording.verdicts.filter((x) => x.wiki === wiki)) {
        const now = apiVerdictOf(await post(wireOf(v.request, specs)), v.warnings);
        if (now !== v.verdict) stale.push(`${wiki} ${v.label}: recorded ${v.verdict}, now ${now}`);
      }
    }
    expect(stale).toEqual([]);
  }, 300_000);
});
