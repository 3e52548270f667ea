/**
 * The web UI's layers, checked from the source: the shared pieces at the top of `src/` know nothing of the debate
 * view or the pages, `grounding/` and `debate/` import only the layers below them, and no module or folder imports
 * itself through others. Type-only imports count too.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, sources, unitGraph } from '../../test/support/layers.js';

const SRC = dirname(fileURLToPath(import.meta.url));

/** What each layer may import, besides itself and the SDK (`sdk/src/`, outside this folder). */
const LAYERS: Record<string, readonly string[]> = {
  shared: [],
  'grounding/': ['shared'],
  'debate/': ['shared', 'grounding/'],
  pages: ['shared', 'grounding/', 'debate/'],
};

/** The files at the top of `src/` that are pages or parts of one; the others there are shared pieces. */
const PAGES = new Set([
  'main.tsx',
  'App.tsx',
  'Ask.tsx',
  'History.tsx',
  'Login.tsx',
  'PanelRanking.tsx',
  'Password.tsx',
  'Providers.tsx',
  'SessionActions.tsx',
  'SessionPage.tsx',
  'Toasts.tsx',
  'Tokens.tsx',
  'Users.tsx',
]);

const files = sources(SRC);
const graph = importGraph(SRC, files);
const rel = (path: string) => relative(SRC, path);
const layerOf = (path: string): string => {
  const [top, ...rest] = rel(path).split('/');
  if (rest.length > 0) return `${top}/`;
  return PAGES.has(top!) ? 'pages' : 'shared';
};

describe('web layers', () => {
  it('reads the imports it checks, .tsx files included', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(graph.get(join(SRC, 'App.tsx'))!.internal).toContain(join(SRC, 'Ask.tsx'));
    expect(graph.get(join(SRC, 'debate/runner.ts'))!.internal).toContain(join(SRC, 'api.ts'));
    expect(layerOf(join(SRC, 'debate/SessionPanel.tsx'))).toBe('debate/');
    expect(layerOf(join(SRC, 'components.tsx'))).toBe('shared');
    expect(layerOf(join(SRC, 'Ask.tsx'))).toBe('pages');
  });

  it('knows every folder, and every page it names exists', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${e.name}/`);
    for (const folder of folders) expect(LAYERS[folder], `${folder} needs an entry in LAYERS`).toBeDefined();
    for (const page of PAGES) expect(files, `${page} is listed as a page`).toContain(join(SRC, page));
  });

  it('has no import cycles', () => {
    expect(cyclesOf(SRC, graph)).toEqual([]);
  });

  it('has no cycles between its layers', () => {
    const layers = unitGraph(graph, (file) => join(SRC, layerOf(file)));
    expect(layers.get(join(SRC, 'debate/'))!.internal).toContain(join(SRC, 'shared'));
    expect(cyclesOf(SRC, layers)).toEqual([]);
  });

  it('keeps each layer to what it may import', () => {
    const wrong: string[] = [];
    for (const [file, { internal }] of graph) {
      const from = layerOf(file);
      for (const target of internal) {
        const to = layerOf(target);
        if (to !== from && !LAYERS[from]!.includes(to)) wrong.push(`${rel(file)} imports ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
