/**
 * Builds the web UI into `dist/web/` with Vite, at `npm start` (its `prestart`), unless the last build came from the
 * same sources: a stamp file holds a hash of every input, so a start with nothing changed costs milliseconds.
 *
 * Built at start rather than committed: the bundle is output (hashed names change with every edit, and a committed
 * copy goes stale silently), and Vite is already a dependency. Built into a temporary folder and renamed into place,
 * so a server starting while this runs (tests start several) never serves half a build.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const WEB_OUT = join(root, 'dist/web');
const STAMP = '.build-stamp';

/** Every file the bundle depends on: the UI, the SDK sources it imports, and the locked dependency versions. */
function inputs(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.endsWith('.test.ts')) files.push(path);
    }
  };
  walk(join(root, 'web/src'));
  walk(join(root, 'sdk/src'));
  files.push(
    join(root, 'web/index.html'),
    join(root, 'web/vite.config.ts'),
    join(root, 'web/build.ts'),
    join(root, 'package-lock.json'),
  );
  return files.sort();
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of inputs()) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Builds unless `dist/web` already holds a build of the current sources; returns whether it built. */
export async function buildWeb(options: { force?: boolean } = {}): Promise<boolean> {
  const hash = sourceHash();
  const stampFile = join(WEB_OUT, STAMP);
  if (!options.force && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return false;
  const { build } = await import('vite');
  const temporary = `${WEB_OUT}.${process.pid}.tmp`;
  await build({
    configFile: join(root, 'web/vite.config.ts'),
    build: { outDir: temporary, emptyOutDir: true },
  });
  writeFileSync(join(temporary, STAMP), hash);
  const old = `${WEB_OUT}.${process.pid}.old`;
  if (existsSync(WEB_OUT)) renameSync(WEB_OUT, old);
  renameSync(temporary, WEB_OUT);
  rmSync(old, { recursive: true, force: true });
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const built = await buildWeb({ force: process.argv.includes('--force') });
  if (built) console.log(`web UI built into dist/web in ${Math.round(performance.now() - started)} ms`);
}
