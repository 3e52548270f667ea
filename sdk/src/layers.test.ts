/**
 * The SDK's layers, checked from the source against the table in `sdk/README.md` (the one place they are
 * written): each file imports only its own layer and those its row lists, the layers themselves go one
 * way, so do the handwritten folders, and no module imports itself through others. Type-only imports count too.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, sources, unitGraph } from '../../test/support/layers.js';

const SRC = dirname(fileURLToPath(import.meta.url));
const README = join(SRC, '../README.md');

/**
 * The README's layer table: each row whose first cell names a path under `src/`, with the paths its
 * "May import" cell lists (`nothing` for none). Paths are relative to `sdk/src/`; a folder ends in `/`.
 */
function layersOf(markdown: string): Map<string, string[]> {
  const layers = new Map<string, string[]>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const path = /^`src\/([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (path === undefined) continue;
    const mayImport = [...(cells[3] ?? '').matchAll(/`src\/([^`]+)`/g)].map((m) => m[1]!);
    layers.set(path, mayImport);
  }
  return layers;
}

/** hey-api's client runtime, copied as hey-api ships it: its one type-only cycle is upstream's. */
const HEY_API_RUNTIME = /^generated\/(client|core)\//;
const HEY_API_CYCLES = ['generated/client/types.gen.ts → generated/client/utils.gen.ts → generated/client/types.gen.ts'];

const LAYERS = layersOf(readFileSync(README, 'utf8'));
const files = sources(SRC);
const graph = importGraph(SRC, files);
const rel = (path: string) => relative(SRC, path);
/** The layer a file belongs to: the longest path in the table that is the file or a folder holding it. */
const layerOf = (path: string): string | undefined =>
  [...LAYERS.keys()]
    .filter((layer) => (layer.endsWith('/') ? rel(path).startsWith(layer) : rel(path) === layer))
    .sort((a, b) => b.length - a.length)[0];

/**
 * The handwritten folder (or file, at the top of `src/`) a file is in. Generated files have none: the generators
 * decide where they go, and the table's rows place them.
 */
const folderOf = (path: string): string | undefined => {
  const [top, ...rest] = rel(path).split('/');
  if (top === 'generated') return undefined;
  return join(SRC, rest.length > 0 ? `${top}/` : top!);
};

describe('SDK layers', () => {
  it('reads the README table and the imports it checks', () => {
    // The runtime reads the shipped rules table (data) and the shared shapes, nothing else.
    expect(LAYERS.get('wiki/')).toEqual(['wiki/types.ts', 'generated/wiki-rules.ts']);
    expect(LAYERS.get('generated/wiki-rules.ts')).toEqual(['wiki/types.ts']);
    expect(LAYERS.get('wiki/types.ts')).toEqual([]);
    expect(LAYERS.get('cli/')).toContain('facade/');
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(SRC, 'wiki/query.ts'))!.internal).toContain(join(SRC, 'wiki/fast-path.ts'));
    expect(layerOf(join(SRC, 'generated/wiki/allpages.ts'))).toBe('generated/wiki/');
    expect(layerOf(join(SRC, 'wiki/codegen/emit.ts'))).toBe('wiki/codegen/');
    expect(layerOf(join(SRC, 'wiki/query.ts'))).toBe('wiki/');
    expect(layerOf(join(SRC, 'wiki/types.ts'))).toBe('wiki/types.ts');
    expect(layerOf(join(SRC, 'generated/wiki-rules.ts'))).toBe('generated/wiki-rules.ts');
  });

  it('has no import cycles', () => {
    const cycles = cyclesOf(SRC, graph);
    expect(cycles.filter((c) => !HEY_API_RUNTIME.test(c))).toEqual([]);
    expect(cycles.filter((c) => HEY_API_RUNTIME.test(c))).toEqual(HEY_API_CYCLES);
  });

  // A file's own row can put it below what its folder imports; the folders must still go one way.
  it('has no cycles between the handwritten folders', () => {
    const folders = unitGraph(graph, folderOf);
    expect(folders.get(join(SRC, 'facade/'))!.internal).toContain(join(SRC, 'client.ts'));
    expect(cyclesOf(SRC, folders)).toEqual([]);
  });

  it('puts every source file in a layer of the table', () => {
    expect(files.filter((f) => layerOf(f) === undefined).map(rel)).toEqual([]);
    for (const [layer, allowed] of LAYERS) {
      for (const to of allowed) expect(LAYERS.has(to), `${layer} may import ${to}, which is not a layer`).toBe(true);
    }
  });

  it('keeps each layer to what its row allows', () => {
    const wrong: string[] = [];
    for (const [file, { internal }] of graph) {
      const from = layerOf(file)!;
      for (const target of internal) {
        const to = layerOf(target)!;
        if (to !== from && !LAYERS.get(from)?.includes(to)) wrong.push(`${rel(file)} imports ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('goes one way: no layer reaches itself through the layers it may import', () => {
    const reaches = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of LAYERS.get(from) ?? []) if (!seen.has(to)) reaches(to, seen.add(to));
      return seen;
    };
    expect([...LAYERS.keys()].filter((layer) => reaches(layer).has(layer))).toEqual([]);
  });
});
