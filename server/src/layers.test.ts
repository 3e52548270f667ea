/**
 * The server's layers, checked from the source: the domain (config, providers, debate, sessions, accounts) knows
 * nothing of Hono or of `http/`, each folder imports only the folders below it, and no module imports
 * itself through others. Type-only imports count too: a cycle of types is still a tangle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** What each folder under `server/src/` may import, besides itself and the SDK's generated types. */
export const LAYERS: Record<string, readonly string[]> = {
  config: [],
  providers: ['config'],
  debate: ['config', 'providers'],
  accounts: ['config'],
  sessions: ['config', 'debate', 'accounts'],
  generated: [],
  http: ['config', 'providers', 'debate', 'accounts', 'sessions', 'generated'],
};

/** Packages only the HTTP layer may use. */
const HTTP_PACKAGES = /^(hono|@hono\/)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(pattern)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

const files = sources(SRC);
const rel = (path: string) => relative(SRC, path);
const folderOf = (path: string) => (rel(path).includes('/') ? rel(path).split('/')[0]! : '.');

const graph = new Map<string, { internal: string[]; packages: string[] }>();
for (const file of files) {
  const internal: string[] = [];
  const packages: string[] = [];
  for (const spec of importsOf(readFileSync(file, 'utf8'))) {
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (target.startsWith(SRC)) internal.push(target);
    } else packages.push(spec);
  }
  graph.set(file, { internal, packages });
}

describe('server layers', () => {
  it('reads the imports it checks', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(graph.get(join(SRC, 'http/app.ts'))!.internal).toContain(join(SRC, 'http/debate.ts'));
    expect(importsOf("import type { A } from './a.js';\nexport { b } from '../b.js';\nawait import('./c.js');")).toEqual([
      './a.js',
      '../b.js',
      './c.js',
    ]);
  });

  it('has no import cycles', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map(rel).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file)?.internal ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps the domain free of Hono and of the HTTP layer, each folder importing only those below it', () => {
    const wrong: string[] = [];
    for (const [file, { internal, packages }] of graph) {
      const folder = folderOf(file);
      const allowed = LAYERS[folder];
      if (!allowed) continue; // main.ts and the command-line entry points compose everything
      for (const target of internal) {
        const to = folderOf(target);
        if (to !== folder && !allowed.includes(to)) wrong.push(`${rel(file)} imports ${rel(target)}`);
      }
      if (folder !== 'http' && folder !== 'generated') {
        for (const spec of packages) if (HTTP_PACKAGES.test(spec)) wrong.push(`${rel(file)} imports ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('knows every folder', () => {
    const folders = new Set(files.map(folderOf));
    folders.delete('.');
    expect([...folders].sort()).toEqual(
      Object.keys(LAYERS)
        .filter((f) => folders.has(f))
        .sort(),
    );
    for (const f of folders) expect(LAYERS[f], `${f}/ needs an entry in LAYERS`).toBeDefined();
  });
});
