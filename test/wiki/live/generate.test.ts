/** `consilium-wiki generate` against the live wiki: its paraminfo and a siteinfo snapshot beside it. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../sdk/src/wiki/codegen/cli.js';
import { query } from '../../../sdk/src/wiki/query.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';

describe.skipIf(!mediawiki.available)('consilium-wiki generate --siteinfo', () => {
  it('embeds the wiki’s site context beside its modules, from a URL', async () => {
    const wiki = await startMediaWiki();
    const out = mkdtempSync(join(tmpdir(), 'consilium-wiki-site-'));
    try {
      const lines: string[] = [];
      const io = { stdout: (t: string) => lines.push(t), stderr: (t: string) => lines.push(t) };
      const status = await main(['generate', '--catalogue', wiki.api, '--siteinfo', wiki.api, '--ext', 'ts', '--out', out], io);
      expect(status, lines.join('')).toBe(0);
      const text = readFileSync(join(out, 'site-context.ts'), 'utf8');
      expect(readFileSync(join(out, 'index.ts'), 'utf8')).toContain("export * from './site-context.js';");
      // meta=siteinfo's builder is still there, beside the snapshot.
      expect(readFileSync(join(out, 'siteinfo.ts'), 'utf8')).toContain('export const siteinfo');
      const json = text.slice(text.indexOf('= ') + 2, text.lastIndexOf(';'));
      const site = JSON.parse(json) as { namespaces: { id: number; name: string }[]; languages: string[]; miserMode: boolean };
      // languageinfo's codes, asked with the siteinfo: its unknown-code warning is checked offline too.
      expect(site.languages).toContain('en');
      expect(site.miserMode).toBe(false);
      const { languageinfo } = await import('../../../sdk/src/generated/wiki/languageinfo.js');
      expect(query({ meta: [languageinfo({ code: ['en', 'xx'] })] }, { site }).warnings.map((w) => w.code)).toEqual([
        'unrecognizedvalues',
      ]);
      expect(site.namespaces.map((n) => n.id)).toEqual([-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
      expect(site.namespaces.find((n) => n.id === 4)?.name).toBe('Consilium Test Wiki');
      // The snapshot validates as the wiki does.
      const { allpages } = await import('../../../sdk/src/generated/wiki/allpages.js');
      expect(() => query({ list: [allpages({ namespace: 100 })] }, { site })).toThrow(/apnamespace/);
      expect(query({ list: [allpages({ namespace: 4 })] }, { site }).params.apnamespace).toBe('4');
      // Run again: same bytes.
      expect(await main(['generate', '--catalogue', wiki.api, '--siteinfo', wiki.api, '--ext', 'ts', '--out', out], io)).toBe(0);
      expect(readFileSync(join(out, 'site-context.ts'), 'utf8')).toBe(text);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
