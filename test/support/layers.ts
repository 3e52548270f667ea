/**
 * The import graph of a source folder, read from the text, for the layers tests of `server/`, `sdk/` and
 * `web/`: which files import which (type-only imports included) and which import cycles there are,
 * between files and between the folders that hold them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every module specifier a file imports or re-exports, statically or dynamically. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(pattern)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

/** The `.ts` and `.tsx` files under `dir`, tests excluded. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

export type ImportGraph = Map<string, { internal: string[]; packages: string[] }>;

/** Each file's imports: `internal` the files under `root` (absolute paths), `packages` the rest by name. */
export function importGraph(root: string, files: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const internal: string[] = [];
    const packages: string[] = [];
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const ts = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        const target = existsSync(ts) || !existsSync(`${ts}x`) ? ts : `${ts}x`;
        if (target.startsWith(root)) internal.push(target);
      } else packages.push(spec);
    }
    graph.set(file, { internal, packages });
  }
  return graph;
}

/** Every cycle a depth-first walk meets, each as `a.ts → b.ts → a.ts` relative to `root`. */
export function cyclesOf(root: string, graph: ImportGraph): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(root, f)).join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file)?.internal ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

/**
 * The graph between units of files (folders, say): each file replaced by `unitOf(file)` (an absolute path, so
 * `cyclesOf` names it; `undefined` leaves the file out), imports within a unit dropped.
 */
export function unitGraph(graph: ImportGraph, unitOf: (file: string) => string | undefined): ImportGraph {
  const units: ImportGraph = new Map();
  for (const [file, { internal }] of graph) {
    const from = unitOf(file);
    if (from === undefined) continue;
    const entry = units.get(from) ?? { internal: [], packages: [] };
    for (const target of internal) {
      const to = unitOf(target);
      if (to !== undefined && to !== from && !entry.internal.includes(to)) entry.internal.push(to);
    }
    units.set(from, entry);
  }
  return units;
}
