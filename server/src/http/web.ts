/**
 * Serves the web UI's built files (`dist/web/`, made by `web/build.ts` at `npm start`): `index.html` at `/`, hashed
 * bundles under `/assets/`. Files are read once, at start, with a gzip copy for clients that accept it; the UI is a
 * few files, so memory is cheap and every request is a map lookup. Routes are hash-based (`/#/...`), so the API
 * keeps every other root path.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context, Env, Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebFile {
  body: Uint8Array;
  gzip?: Uint8Array;
  type: string;
  etag: string;
  /** Hashed names never change content, so they may be cached for good. */
  immutable: boolean;
}

/** Where the build lives: beside the bundle (`dist/server.mjs`) or, running from source, in the repository's `dist/`. */
function defaultWebRoot(): string | undefined {
  const candidates = [new URL('./web/', import.meta.url), new URL('../../../dist/web/', import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(join(path, 'index.html'))) return path;
  }
  return undefined;
}

function loadWebFiles(root: string): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        walk(path, `${prefix}${name}/`);
        continue;
      }
      const body = readFileSync(path);
      const type = TYPES[extname(name)] ?? 'application/octet-stream';
      const compressible = /text|javascript|json|svg/.test(type) && body.length > 512;
      files.set(`${prefix}${name}`, {
        body,
        ...(compressible && { gzip: gzipSync(body, { level: 9 }) }),
        type,
        etag: `"${body.length.toString(36)}-${hashOf(body)}"`,
        immutable: prefix.startsWith('/assets/'),
      });
    }
  };
  walk(root, '/');
  return files;
}

const hashOf = (body: Uint8Array) => {
  let h = 2166136261;
  for (const byte of body) h = Math.imul(h ^ byte, 16777619);
  return (h >>> 0).toString(36);
};

/**
 * Mounts `GET /` and `GET /assets/*` on `app`. Without a build (tests of the API alone run from source), `/` says how
 * to make one instead of answering 404.
 */
export function mountWeb<E extends Env>(app: Hono<E>, root: string | undefined = defaultWebRoot()): void {
  const files = root && existsSync(root) ? loadWebFiles(root) : new Map<string, WebFile>();
  const serve = (path: string) => (c: Context) => {
    const file = files.get(path);
    if (!file) return c.notFound();
    const headers: Record<string, string> = {
      'content-type': file.type,
      etag: file.etag,
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'accept-encoding',
    };
    if (c.req.header('if-none-match') === file.etag) return c.body(null, 304, headers);
    const gzip = file.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    if (gzip) headers['content-encoding'] = 'gzip';
    return c.body((gzip ? file.gzip! : file.body) as Uint8Array<ArrayBuffer>, 200, headers);
  };
  if (!files.has('/index.html')) {
    app.get('/', (c) =>
      c.text('The web UI is not built: run `npm start` (which builds it) or `npx tsx web/build.ts`.\n', 503, {
        'cache-control': 'no-store',
      }),
    );
    return;
  }
  app.get('/', serve('/index.html'));
  app.get('/assets/*', (c) => serve(c.req.path)(c));
}
