import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

/**
 * Where `npm run docs` (and `npm start`, when missing) writes the HTTP reference, found from this module's own
 * place rather than the working directory (the server may be started from anywhere): beside the bundle
 * (`dist/server.mjs` → `docs/api/http/`) or, running from source, three folders up from `server/src/http/`.
 * Checked on each request, so a reference built after the start is served.
 */
export function defaultDocsDir(): string {
  const candidates = [new URL('../docs/api/http/', import.meta.url), new URL('../../../docs/api/http/', import.meta.url)];
  const paths = candidates.map((url) => fileURLToPath(url));
  return paths.find((path) => existsSync(join(path, 'index.html'))) ?? paths[0]!;
}

const FILES: Record<string, { file: string; type: string }> = {
  '/docs/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/docs/reference.css': { file: 'reference.css', type: 'text/css; charset=utf-8' },
};

/**
 * The HTTP reference at `/docs/` (public, static, no script): read from disk on each request, so a
 * rebuild shows without a restart. `/docs` redirects to `/docs/` so the page's relative links resolve.
 */
export function mountDocs(app: Hono<AppEnv>, dir: string | (() => string) = defaultDocsDir): void {
  app.get('/docs', (c) => c.redirect('/docs/', 301));
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, async (c) => {
      let body: string;
      try {
        body = await readFile(join(typeof dir === 'string' ? dir : dir(), file), 'utf8');
      } catch {
        return problem(c, 404, 'not_found', { detail: 'The HTTP reference is not built: run `npm run docs`.' });
      }
      return c.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache' });
    });
  }
}
