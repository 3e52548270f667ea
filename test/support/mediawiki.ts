/**
 * A real MediaWiki for tests: Debian's `mediawiki` package (1.39), installed as a throwaway wiki on
 * SQLite with its own `maintenance/install.php`, seeded (pages, categories, redirects, templates,
 * several revisions) and served on loopback by PHP's built-in server. No outbound traffic:
 * InstantCommons and pingback are off.
 *
 * One wiki per test run: `mediawiki-global.ts` (vitest globalSetup) hands every test file the same
 * scratch directory; the first file that calls {@link startMediaWiki} installs and serves the wiki
 * there under a lock, the others reuse it; the globalSetup's teardown stops the server (`mediawiki-global.ts`). Nothing
 * happens in runs that never ask for the wiki.
 *
 * A second wiki, `startMediaWiki({ extensions: true })`, loads Debian's bundled {@link EXTENSIONS} and lives in a
 * directory of its own, so the first keeps the core-only paraminfo the differential suites read.
 *
 * Without MediaWiki importing this module throws, so its tests fail: `npm test`'s pretest (`setup.sh`) has
 * installed it or stopped. They skip, with the reason printed, only when `CONSILIUM_SKIP_SERVICES` names mediawiki.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { missingService, skipReason, skipsService } from './services.js';

const run = promisify(execFile);

export const MW_INSTALL_PATH = process.env.MW_INSTALL_PATH ?? '/usr/share/mediawiki';

export type MediaWikiAvailability = { available: true } | { available: false; reason: string };

function availability(): MediaWikiAvailability {
  if (skipsService('mediawiki')) return { available: false, reason: skipReason('mediawiki') };
  const missing: string[] = [];
  if (!existsSync(join(MW_INSTALL_PATH, 'maintenance/install.php'))) missing.push(`MediaWiki (${MW_INSTALL_PATH})`);
  let modules = '';
  try {
    modules = execFileSync('php', ['-m'], { encoding: 'utf8' });
  } catch {
    missing.push('php');
  }
  for (const m of ['pdo_sqlite', 'intl', 'mbstring', 'xml']) {
    if (modules && !new RegExp(`^${m}$`, 'mi').test(modules)) missing.push(`php-${m}`);
  }
  if (missing.length === 0) return { available: true };
  throw missingService('mediawiki', missing.join(', '), 'MW_INSTALL_PATH');
}

/** Decided when the test file loads, so `describe.skipIf(!mediawiki.available)` can use it. */
export const mediawiki: MediaWikiAvailability = availability();
if (!mediawiki.available) console.warn(`[mediawiki tests skipped] ${mediawiki.reason}`);

/** The seeded pages: title → wikitext. Tests check merged results against these. */
export const FRUITS = Array.from({ length: 12 }, (_, i) => `Fruit ${String(i + 1).padStart(2, '0')}`);
export const REDIRECTS = ['Redirect 1', 'Redirect 2', 'Redirect 3'];
const SEED_PAGES: Readonly<Record<string, string>> = Object.freeze({
  Apple: 'An apple. [[Category:Fruit]] [[Category:Red things]] {{Infobox|name=Apple}}',
  'Template:Infobox': '<div class="infobox">{{{name}}}</div>',
  'Category:Fruit': 'Things that grow on plants.',
  'Talk:Apple': 'Talk about apples.',
  ...Object.fromEntries(FRUITS.map((t) => [t, `${t}. {{Infobox|name=${t}}} [[Apple]] [[Category:Fruit]]`])),
  ...Object.fromEntries(REDIRECTS.map((t) => [t, '#REDIRECT [[Apple]]'])),
});
/**
 * Pages only the extension wiki has, imported after the shared seed (whose page ids stay as they are): a File:
 * description page (TextExtracts and PageImages treat File: pages apart), a page of several sentences and
 * sections (extracts), and a stylesheet (a content model TextExtracts does not read).
 */
export const EXTENSION_PAGES: Readonly<Record<string, string>> = Object.freeze({
  'File:Apple.jpg': 'A photograph of an apple. [[Category:Fruit]]',
  Banana:
    'Bananas are long. They are yellow. Monkeys like them.\n\n== History ==\nBananas were first grown long ago.\n\n== Uses ==\nBananas are eaten raw.',
  'MediaWiki:Common.css': 'body { color: black; }',
});
/** A page with {@link HISTORY_REVISIONS} revisions, for revision continuation. */
export const HISTORY_PAGE = 'History';
export const HISTORY_REVISIONS = 7;

/** The bundled extensions the second wiki loads (each adds API modules of its own). */
export const EXTENSIONS = ['TextExtracts', 'PageImages', 'AbuseFilter', 'Gadgets', 'OATHAuth'] as const;

/**
 * A test-only extension the second wiki loads too (`mediawiki-extension/ConsiliumTest/`): `list=consiliumtokenecho`,
 * which MediaWiki refuses by GET and without a CSRF token, as CheckUser's modules do (no bundled extension has one).
 */
export const TEST_EXTENSION_MODULE = 'consiliumtokenecho';
const TEST_EXTENSION = fileURLToPath(new URL('./mediawiki-extension/ConsiliumTest/extension.json', import.meta.url));

export interface WikiChoice {
  /** The wiki with Debian's bundled {@link EXTENSIONS} loaded, instead of the core-only one. */
  extensions?: boolean;
}

export interface TestMediaWiki {
  /** `http://127.0.0.1:<port>/api.php`. */
  readonly api: string;
  readonly server: string;
  /** The admin account (sysop: has apihighlimits). */
  readonly admin: { user: string; password: string };
}

/** The run's scratch directory (from the globalSetup), or one of this process's own outside vitest. */
async function runDir(): Promise<string> {
  try {
    const { inject } = await import('vitest');
    const dir = inject('mediawikiDir');
    if (dir) return dir;
  } catch {
    // not under vitest
  }
  const dir = join(tmpdir(), `consilium-mw-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Each wiki's own directory: the run's for the core wiki, a sub-directory for the extension wiki. */
async function wikiDir(choice: WikiChoice): Promise<string> {
  const dir = await runDir();
  if (!choice.extensions) return dir;
  const ext = join(dir, 'extensions');
  mkdirSync(ext, { recursive: true });
  return ext;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mkdir is atomic: the first caller holds the lock; a stale lock (a dead holder) is taken over after a while. */
async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(dir, 'lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 120_000) throw new Error(`MediaWiki: lock ${lock} held for over 2 minutes`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function php(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<string> {
  if (input === undefined) {
    const { stdout } = await run('php', args, { env, maxBuffer: 16 << 20 });
    return stdout;
  }
  return new Promise((resolve, reject) => {
    const child = spawn('php', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`php ${args[0]} exited ${code}: ${err}${out}`))));
    child.stdin.end(input);
  });
}

async function install(dir: string, port: number, choice: WikiChoice): Promise<void> {
  const server = `http://127.0.0.1:${port}`;
  const wiki = join(dir, 'wiki');
  for (const sub of ['db', 'conf', 'images', 'cache', 'seed']) mkdirSync(join(wiki, sub), { recursive: true });
  const admin = { user: 'Admin', password: 'consilium-test-admin-pw' };
  writeFileSync(join(wiki, 'pass'), admin.password);
  const maintenance = (script: string) => join(MW_INSTALL_PATH, 'maintenance', script);
  await php(
    [
      maintenance('install.php'),
      '--dbtype=sqlite',
      `--dbpath=${join(wiki, 'db')}`,
      '--dbname=consilium',
      `--server=${server}`,
      '--scriptpath=',
      `--confpath=${join(wiki, 'conf')}`,
      `--passfile=${join(wiki, 'pass')}`,
      '--lang=en',
      'Consilium Test Wiki',
      admin.user,
    ],
    { ...process.env },
  );
  const settings = join(wiki, 'conf', 'LocalSettings.php');
  writeFileSync(
    settings,
    `${readFileSync(settings, 'utf8')}
# Added by test/support/mediawiki.ts: no outbound traffic, writable directories of its own.
$wgUseInstantCommons = false;
$wgPingback = false;
$wgUploadDirectory = ${JSON.stringify(join(wiki, 'images'))};
$wgCacheDirectory = ${JSON.stringify(join(wiki, 'cache'))};
$wgJobRunRate = 0;
$wgShowExceptionDetails = true;
${choice.extensions ? `wfLoadExtensions( ${JSON.stringify(EXTENSIONS)} );\nwfLoadExtension( 'ConsiliumTest', ${JSON.stringify(TEST_EXTENSION)} );\n` : ''}`,
  );
  const env = { ...process.env, MW_CONFIG_FILE: settings };
  // The extensions' own tables (AbuseFilter's, OATHAuth's).
  if (choice.extensions) await php([maintenance('update.php'), '--quick'], env);
  const files = Object.entries(SEED_PAGES).map(([title, text], i) => {
    // importTextFiles.php takes the title from the file name (without its extension).
    const sub = join(wiki, 'seed', String(i));
    mkdirSync(sub);
    const file = join(sub, `${title}.txt`);
    writeFileSync(file, text);
    return file;
  });
  await php([maintenance('importTextFiles.php'), '--rc', '--user=Admin', ...files], env);
  if (choice.extensions) {
    const extra = Object.entries(EXTENSION_PAGES).map(([title, text], i) => {
      const sub = join(wiki, 'seed', `x${i}`);
      mkdirSync(sub);
      const file = join(sub, `${title}.txt`);
      writeFileSync(file, text);
      return file;
    });
    await php([maintenance('importTextFiles.php'), '--rc', '--user=Admin', ...extra], env);
  }
  for (let n = 1; n <= HISTORY_REVISIONS; n++) {
    await php([maintenance('edit.php'), '--user=Admin', `--summary=revision ${n}`, HISTORY_PAGE], env, `Revision ${n}.`);
  }
  await php([maintenance('runJobs.php'), '--quiet'], env);
  writeFileSync(join(dir, 'installed.json'), JSON.stringify({ settings, admin }));
}

async function serve(dir: string, port: number): Promise<void> {
  const { settings } = JSON.parse(readFileSync(join(dir, 'installed.json'), 'utf8')) as { settings: string };
  const child = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', MW_INSTALL_PATH], {
    // Workers: test files may query it at once.
    env: { ...process.env, MW_CONFIG_FILE: settings, PHP_CLI_SERVER_WORKERS: '4' },
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
  writeFileSync(join(dir, 'server.json'), JSON.stringify({ pid: child.pid, port }));
  const url = `http://127.0.0.1:${port}/api.php?action=query&meta=siteinfo&format=json`;
  const started = Date.now();
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 30_000) throw new Error(`MediaWiki: php -S on port ${port} did not answer within 30 s`);
    await sleep(50);
  }
}

/** The run's wiki (or its extension wiki): installed and served on first use, reused afterwards. */
export async function startMediaWiki(choice: WikiChoice = {}): Promise<TestMediaWiki> {
  if (!mediawiki.available) throw new Error(mediawiki.reason);
  const dir = await wikiDir(choice);
  return withLock(dir, async () => {
    if (!existsSync(join(dir, 'server.json'))) {
      const port = await freePort();
      if (!existsSync(join(dir, 'installed.json'))) await install(dir, port, choice);
      await serve(dir, port);
    }
    const { port } = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { port: number };
    const { admin } = JSON.parse(readFileSync(join(dir, 'installed.json'), 'utf8')) as TestMediaWiki;
    const server = `http://127.0.0.1:${port}`;
    return { server, api: `${server}/api.php`, admin };
  });
}

/**
 * Adds (or updates) pages on the run's wiki, for a test that needs content of its own, with the installed settings, under the wiki's lock. The pages stay for the run's other tests; give them
 * titles no other test lists (tests that list every page check with `arrayContaining`).
 */
export async function seedPages(pages: Readonly<Record<string, string>>, choice: WikiChoice = {}): Promise<void> {
  await startMediaWiki(choice);
  const dir = await wikiDir(choice);
  await withLock(dir, async () => {
    const { settings } = JSON.parse(readFileSync(join(dir, 'installed.json'), 'utf8')) as { settings: string };
    const env = { ...process.env, MW_CONFIG_FILE: settings };
    // importTextFiles.php, as the install's own seeding.
    const files = Object.entries(pages).map(([title, text]) => {
      const sub = mkdtempSync(join(dir, 'seed-'));
      const file = join(sub, `${title}.txt`);
      writeFileSync(file, text);
      return file;
    });
    await php(
      [join(MW_INSTALL_PATH, 'maintenance', 'importTextFiles.php'), '--rc', '--overwrite', '--user=Admin', ...files],
      env,
    );
    // The search index and link tables are written by jobs, which the wiki never runs by itself ($wgJobRunRate = 0).
    await php([join(MW_INSTALL_PATH, 'maintenance', 'runJobs.php'), '--quiet'], env);
  });
}

/** The run's installed settings and scratch directory (the wiki installed and served first). */
async function installed(choice: WikiChoice = {}): Promise<{ dir: string; settings: string }> {
  await startMediaWiki(choice);
  const dir = await wikiDir(choice);
  const { settings } = JSON.parse(readFileSync(join(dir, 'installed.json'), 'utf8')) as { settings: string };
  return { dir, settings };
}

/**
 * A bot password for `user` (the admin by default) made with MediaWiki's own `createBotPassword.php`, under a
 * fresh app id (one per call, so calls never collide). Grants: `basic` (which holds `read`) unless given.
 */
export async function createBotPassword(options: { user?: string; grants?: readonly string[] } & WikiChoice = {}): Promise<{
  user: string;
  password: string;
}> {
  const { dir, settings } = await installed(options);
  const user = options.user ?? 'Admin';
  const appId = `consilium${process.pid}x${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  // The script makes the password itself (32 of `0-9a-w`: other characters are not taken as a bot password).
  const out = await withLock(dir, () =>
    php(
      [
        join(MW_INSTALL_PATH, 'maintenance', 'createBotPassword.php'),
        `--appid=${appId}`,
        `--grants=${(options.grants ?? ['basic']).join(',')}`,
        user,
      ],
      { ...process.env, MW_CONFIG_FILE: settings },
    ),
  );
  const made = /username:'([^']+)' and password:'([^']+)'/.exec(out);
  if (!made) throw new Error(`createBotPassword.php: ${out}`);
  return { user: made[1]!, password: made[2]! };
}

export interface PrivateMediaWiki {
  readonly api: string;
  readonly server: string;
  close(): void;
}

/**
 * The run's wiki served a second time, read-protected: its own `php -S` whose settings include the shared ones
 * and then deny `read` to anonymous users, so the same pages (and accounts, bot passwords, sessions) are
 * readable only once logged in, while every other test keeps its public wiki. Close it when done.
 */
export async function startPrivateMediaWiki(): Promise<PrivateMediaWiki> {
  const { dir, settings } = await installed();
  const port = await freePort();
  const server = `http://127.0.0.1:${port}`;
  const own = join(mkdtempSync(join(dir, 'private-')), 'LocalSettings.php');
  writeFileSync(
    own,
    `<?php
require ${JSON.stringify(settings)};
# A private view of the run's wiki (test/support/mediawiki.ts): only logged-in users read.
$wgServer = ${JSON.stringify(server)};
$wgGroupPermissions['*']['read'] = false;
`,
  );
  const child = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', MW_INSTALL_PATH], {
    env: { ...process.env, MW_CONFIG_FILE: own, PHP_CLI_SERVER_WORKERS: '2' },
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
  const close = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const started = Date.now();
  for (;;) {
    try {
      const res = await fetch(`${server}/api.php?action=query&meta=siteinfo&format=json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 30_000) {
      close();
      throw new Error(`MediaWiki: the private php -S on port ${port} did not answer within 30 s`);
    }
    await sleep(50);
  }
  return { server, api: `${server}/api.php`, close };
}
