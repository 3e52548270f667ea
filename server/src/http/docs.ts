import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';
import { sdkReferenceState } from '../../../docs/src/sdk-build.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

/**
 * Where `npm run docs` (and `npm start`, when missing) writes the HTTP reference, found from this module's own
 * place rather than the working directory (the server may be started from anywhere): beside the bundle
 * (`dist/server.mjs` → `docs/api/http/`) or, running from source, three folders up from `server/src/http/`.
 * Checked on each request, so a reference built after the start is served. The SDK reference is its sibling
 * (`docs/api/sdk/`).
 */
export function defaultDocsDir(): string {
  const candidates = [new URL('../docs/api/http/', import.meta.url), new URL('../../../docs/api/http/', import.meta.url)];
  const paths = candidates.map((url) => fileURLToPath(url));
  return paths.find((path) => existsSync(join(path, 'index.html'))) ?? paths[0]!;
}

const FILES: Record<string, { file: string; type: string }> = {
  '/docs/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/docs/reference.css': { file: 'reference.css', type: 'text/css; charset=utf-8' },
  '/docs/search.js': { file: 'search.js', type: 'text/javascript; charset=utf-8' },
};

/** What typedoc writes, by extension; any other file under `/docs/sdk/` is not served. */
const SDK_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Seconds before a page of the reference is asked for again while it is being built (typedoc takes tens of seconds). */
const BUILDING_RETRY_S = 10;

/** While the reference is being built: its index says so and comes back by itself; any other file is a problem. */
function building(c: Context<AppEnv>, index: boolean) {
  c.header('retry-after', String(BUILDING_RETRY_S));
  c.header('cache-control', 'no-store');
  const detail = 'The SDK reference is being built (the first start builds it in the background); try again in a minute.';
  if (!index) return problem(c, 503, 'not_ready', { detail });
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
      `<meta http-equiv="refresh" content="${BUILDING_RETRY_S}"><title>SDK reference: being built</title></head>` +
      `<body><h1>The SDK reference is being built</h1><p>${detail} This page reloads itself.</p>` +
      '<p>Meanwhile: the <a href="/docs/">HTTP reference</a>.</p></body></html>',
    503,
  );
}

/**
 * The HTTP reference at `/docs/` (public, static; one same-origin script, its search box) and the SDK reference
 * (typedoc's output) at `/docs/sdk/`: read from disk on each request, so a rebuild shows without a restart. `/docs`
 * and `/docs/sdk` redirect to their folder so the pages' relative links resolve.
 */
export function mountDocs(app: Hono<AppEnv>, dir: string | (() => string) = defaultDocsDir): void {
  const httpDir = () => (typeof dir === 'string' ? dir : dir());
  app.get('/docs', (c) => c.redirect('/docs/', 301));
  app.get('/docs/sdk', (c) => c.redirect('/docs/sdk/', 301));
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, async (c) => {
      let body: string;
      try {
        body = await readFile(join(httpDir(), file), 'utf8');
      } catch {
        return problem(c, 404, 'not_found', { detail: 'The HTTP reference is not built: run `npm run docs`.' });
      }
      return c.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache' });
    });
  }
  app.get('/docs/sdk/*', async (c) => {
    const root = join(httpDir(), '..', 'sdk');
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path.slice('/docs/sdk/'.length)) || 'index.html';
    } catch {
      return problem(c, 404, 'not_found');
    }
    if (relative.endsWith('/')) relative += 'index.html';
    // Only files inside the reference's folder: no `..`, no absolute path, no NUL.
    const file = normalize(join(root, relative));
    const type = SDK_TYPES[extname(file)];
    if (!file.startsWith(root + sep) || relative.includes('\0') || type === undefined) return problem(c, 404, 'not_found');
    const state = sdkReferenceState(root);
    if (state === 'building') return building(c, relative === 'index.html');
    let body: Buffer;
    try {
      if (state === 'missing') throw new Error('not built');
      body = await readFile(file);
    } catch {
      return problem(
        c,
        404,
        'not_found',
        state === 'built' ? {} : { detail: 'The SDK reference is not built: run `npm run docs`.' },
      );
    }
    return c.body(new Uint8Array(body), 200, { 'content-type': type, 'cache-control': 'no-cache' });
  });
}
