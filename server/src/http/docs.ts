import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Hono } from 'hono';
import type { AppEnv } from './env.js';
import { problem } from './problem.js';

/** Where `npm run docs` (and `npm start`, when missing) writes the HTTP reference. */
export const DOCS_DIR = resolve('docs/api/http');

const FILES: Record<string, { file: string; type: string }> = {
  '/docs/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/docs/reference.css': { file: 'reference.css', type: 'text/css; charset=utf-8' },
};

/**
 * The HTTP reference at `/docs/` (public, static, no script): read from disk on each request, so a
 * rebuild shows without a restart. `/docs` redirects to `/docs/` so the page's relative links resolve.
 */
export function mountDocs(app: Hono<AppEnv>, dir = DOCS_DIR): void {
  app.get('/docs', (c) => c.redirect('/docs/', 301));
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, async (c) => {
      let body: string;
      try {
        body = await readFile(join(dir, file), 'utf8');
      } catch {
        return problem(c, 404, 'not_found', { detail: 'The HTTP reference is not built: run `npm run docs`.' });
      }
      return c.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache' });
    });
  }
}
