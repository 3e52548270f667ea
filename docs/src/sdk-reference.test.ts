/**
 * The SDK reference as `npm run docs` builds it (typedoc with `docs/typedoc.json` and its plugin, read
 * as typedoc's JSON model): modules named by the paths a consumer imports, and each wiki builder's
 * parameters documented from the catalogue, with defaults, bounds and deprecations.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Part {
  text: string;
}
interface Reflection {
  name: string;
  kind: number;
  children?: Reflection[];
  comment?: { summary?: Part[]; blockTags?: { tag: string; content: Part[] }[] };
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INTERFACE = 256;
const catalogue = JSON.parse(readFileSync(join(ROOT, 'catalogue/paraminfo.json'), 'utf8')) as {
  paraminfo: { modules: { name: string; path: string }[] };
};

let out: string;
let modules: Reflection[];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'consilium-typedoc-'));
  await promisify(execFile)(
    join(ROOT, 'node_modules/.bin/typedoc'),
    ['--options', 'docs/typedoc.json', '--json', join(out, 'model.json'), '--out', join(out, 'html')],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  modules = (JSON.parse(readFileSync(join(out, 'model.json'), 'utf8')) as Reflection).children!;
}, 120_000);
afterAll(() => (out ? rmSync(out, { recursive: true, force: true }) : undefined));

const text = (parts: Part[] = []) => parts.map((p) => p.text).join('');
const tag = (r: Reflection, name: string) => r.comment?.blockTags?.find((t) => t.tag === name);
function paramsOf(module: string): Reflection[] {
  const found = modules.find((m) => m.name === `@consilium/sdk/wiki/modules/${module}`);
  expect(found, module).toBeDefined();
  return found!.children!.find((c) => c.kind === INTERFACE)!.children!;
}

describe('the SDK reference (typedoc)', () => {
  it('names each module by its import path: the client, the wiki runtime and one per catalogue module', () => {
    const wiki = catalogue.paraminfo.modules.filter((m) => m.path.startsWith('query+')).map((m) => m.name);
    expect(wiki).toHaveLength(69);
    expect(modules.map((m) => m.name).sort()).toEqual(
      ['@consilium/sdk', '@consilium/sdk/wiki', ...wiki.map((name) => `@consilium/sdk/wiki/modules/${name}`)].sort(),
    );
  });

  it('documents every parameter of a builder: its MediaWiki name and type, default and bounds', () => {
    const params = paramsOf('allpages');
    expect(params.map((p) => p.name)).toContain('limit');
    for (const p of params) expect(text(p.comment?.summary), p.name).toMatch(new RegExp(`^\`ap${p.name}\` \\(`));
    const limit = params.find((p) => p.name === 'limit')!;
    expect(text(limit.comment?.summary)).toContain('From 1 to 500 (5000 with apihighlimits)');
    expect(text(tag(limit, '@defaultValue')?.content)).toBe('`10`');
  });

  it('marks deprecated parameters, and only those', () => {
    const params = paramsOf('usercontribs');
    expect(params.filter((p) => tag(p, '@deprecated')).map((p) => p.name)).toEqual(['toponly']);
  });
});
