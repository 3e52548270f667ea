/**
 * Bundles the server into `dist/server.mjs`, what `npm start` runs: one file that Node loads in a
 * fraction of the time tsx needs to transform hundreds of TypeScript and dependency modules (the
 * cold start goal is under 500 ms). Native and optional database drivers stay external.
 *
 * Written to a temporary file and renamed, so a process starting from the old bundle while this
 * runs (tests start several servers at once) never reads half a file.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildHttpReference, HTTP_REFERENCE_DIR } from '../docs/src/build-http.js';
import { buildWeb } from '../web/build.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Writes the bundle; returns its path. */
export async function bundleServer(out = `${root}dist/server.mjs`): Promise<string> {
  const result = await build({
    entryPoints: [`${root}server/src/main.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['sqlite3', 'pg', 'pg-native'],
    // Bundled CommonJS dependencies still call `require`, which an ES module lacks.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
  });
  mkdirSync(dirname(out), { recursive: true });
  const temporary = `${out}.${process.pid}.tmp`;
  writeFileSync(temporary, result.outputFiles[0]!.contents);
  renameSync(temporary, out);
  return out;
}

// `npm start`'s `prestart`: the bundle, the web UI and the HTTP reference side by side (esbuild runs in a process
// of its own, Vite partly on threads of its own, while the reference renders here).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const building = Promise.all([bundleServer(), buildWeb()]);
  // The server serves the HTTP reference at /docs/; built once if `npm run docs` has not. The SDK reference takes
  // typedoc tens of seconds: the server builds it in the background once it serves.
  if (!existsSync(`${HTTP_REFERENCE_DIR}/index.html`) || !existsSync(`${HTTP_REFERENCE_DIR}/search.js`)) buildHttpReference();
  const [, web] = await building;
  if (web) console.log(`web UI built into dist/web in ${Math.round(performance.now() - started)} ms`);
}
