/**
 * `consilium-wiki generate --catalogue <api.php>` against the wiki with Debian's bundled extensions: the
 * extensions' query modules come out as builders, with the rules of the bundled table their paraminfo
 * matches, and those builders check as the wiki does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../sdk/src/wiki/codegen/cli.js';
import type { QueryInput, WikiParamError } from '../../../sdk/src/wiki/index.js';
import { query } from '../../../sdk/src/wiki/query.js';
import { mediawiki, startMediaWiki } from '../../support/mediawiki.js';

/** The five extensions' query modules, and the kinds of rules each gets (none: no checks of its own). */
const EXPECTED: Record<string, string[]> = {
  extracts: ['max-one-of', 'page-continue', 'page-warning', 'pattern'],
  pageimages: ['nonempty', 'page-continue', 'pattern'],
  abusefilters: ['exclusive-values'],
  abuselog: ['title', 'value-warning'],
  gadgets: [],
  gadgetcategories: [],
  oath: [],
};

describe.skipIf(!mediawiki.available)('consilium-wiki generate from the wiki with extensions', () => {
  const out = mkdtempSync(join(tmpdir(), 'consilium-wiki-ext-'));
  // The generated files import the runtime from this checkout, so the test can run them.
  const runtime = resolve(import.meta.dirname, '../../../sdk/src/wiki/index.js');
  let lines: string[] = [];
  let status: number;

  beforeAll(async () => {
    const wiki = await startMediaWiki({ extensions: true });
    lines = [];
    const io = { stdout: (t: string) => lines.push(t), stderr: (t: string) => lines.push(t) };
    status = await main(['generate', '--catalogue', wiki.api, '--runtime-import', runtime, '--ext', 'ts', '--out', out], io);
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('emits a builder for each extension module, with the rules its paraminfo matches', () => {
    expect(status, lines.join('')).toBe(0);
    for (const [name, kinds] of Object.entries(EXPECTED)) {
      const text = readFileSync(join(out, `${name}.ts`), 'utf8');
      const found = [...text.matchAll(/^\s+rule: '([a-z-]+)',$/gm)].map((m) => m[1]);
      expect([...new Set(found)].sort(), name).toEqual(kinds);
      if (kinds.length === 0) expect(text, name).not.toContain('applyRules');
      for (const kind of kinds) expect(text, `${name} ${kind}`).toMatch(/extensions\/[A-Za-z]+\//);
    }
    expect(readFileSync(join(out, 'index.ts'), 'utf8')).toContain("export * from './extracts.js';");
  });

  it('the generated builders check what the extensions check, and pass what they accept', async () => {
    const load = async <T>(name: string): Promise<T> => (await import(join(out, `${name}.ts`)))[name] as T;
    type Builder = (params: Record<string, unknown>) => unknown;
    const extracts = await load<Builder>('extracts');
    const pageimages = await load<Builder>('pageimages');
    const abusefilters = await load<Builder>('abusefilters');
    const abuselog = await load<Builder>('abuselog');
    const gadgets = await load<Builder>('gadgets');
    const code = (input: Record<string, unknown>): string | undefined => {
      try {
        query(input as QueryInput);
        return undefined;
      } catch (e) {
        return (e as WikiParamError).code;
      }
    };
    const titles = ['Apple'];
    expect(code({ titles, prop: [extracts({ chars: 100, sentences: 2 })] })).toBe('invalidparammix');
    expect(code({ titles, prop: [extracts({ chars: 100, plaintext: true })] })).toBeUndefined();
    expect(code({ titles, prop: [extracts({ continue: -1 })] })).toBe('badcontinue');
    expect(code({ prop: [pageimages({ prop: [] })] })).toBe('noprop');
    expect(code({ titles, prop: [pageimages({ continue: 0 })] })).toBe('badcontinue');
    expect(code({ titles, prop: [pageimages({ continue: 6, prop: ['name'] })] })).toBeUndefined();
    expect(code({ list: [abusefilters({ show: ['enabled', '!enabled'] })] })).toBe('show');
    expect(code({ list: [abusefilters({ show: ['enabled', '!deleted'] })] })).toBeUndefined();
    expect(code({ list: [abuselog({ title: 'a[b' })] })).toBe('invalidtitle');
    expect(code({ list: [abuselog({ title: 'Talk:Apple' })] })).toBeUndefined();
    expect(code({ list: [gadgets({ prop: [], ids: [] })] })).toBeUndefined();
  });
});
