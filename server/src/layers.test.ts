/**
 * The server's layers, checked from the source: the domain (config, providers, debate, sessions, accounts) knows
 * nothing of Hono, of `http/` or of `store/`, each folder imports only the folders below it, and no module imports
 * itself through others. Type-only imports count too: a cycle of types is still a tangle.
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, importsOf, sources } from '../../test/support/layers.js';

const SRC = dirname(fileURLToPath(import.meta.url));

/** What each folder under `server/src/` may import, besides itself and the SDK's generated types. */
export const LAYERS: Record<string, readonly string[]> = {
  config: [],
  providers: ['config'],
  debate: ['config', 'providers'],
  // A debate's grounding in a wiki: implements the engine's `GroundingHook` over the SDK's wiki client.
  grounding: ['config', 'debate'],
  accounts: ['config'],
  limits: ['config'],
  sessions: ['config', 'debate'],
  // What open requests rely on (credentials, shares), matched against what accounts and sessions say ended.
  access: ['accounts', 'sessions'],
  // The database: implements the session, account and limit stores (their interfaces live with their domains).
  store: ['config', 'debate', 'accounts', 'sessions', 'limits', 'access'],
  // A run's life: started, recorded, detached, handed over; what HTTP (and any other surface) starts runs through.
  runs: ['config', 'debate', 'grounding', 'sessions'],
  generated: [],
  // The MCP server: tools and resources over runs and the history, its transport web-standard (no Hono).
  mcp: ['config', 'debate', 'grounding', 'sessions', 'runs', 'generated'],
  http: ['config', 'providers', 'debate', 'grounding', 'accounts', 'sessions', 'limits', 'access', 'runs', 'generated', 'mcp'],
};

/** Packages only the HTTP layer may use. */
const HTTP_PACKAGES = /^(hono|@hono\/)/;

const files = sources(SRC);
const rel = (path: string) => relative(SRC, path);
const folderOf = (path: string) => (rel(path).includes('/') ? rel(path).split('/')[0]! : '.');

const graph = importGraph(SRC, files);

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
    expect(cyclesOf(SRC, graph)).toEqual([]);
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
