/**
 * The SDK as a consumer gets it: built, packed with `npm pack`, installed from the tarball into a
 * fresh project outside the repository, then imported by plain Node and type-checked by tsc.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemasReachedFrom } from '../../generator/src/pure.js';
import { type RunningServer, startServer } from '../support/server.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK_DIR = join(ROOT, 'sdk');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const SLOW = 180_000;

/** The environment of a consumer's shell: none of the `npm_*` variables npm/npx set for this run. */
const KEEP_NPM = /^npm_config_(registry|cache|userconfig|globalconfig|cafile|strict_ssl|proxy|https_proxy|noproxy)$/i;
const consumerEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || KEEP_NPM.test(key))),
  ...extra,
});

const timings: Record<string, number> = {};
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round(performance.now() - start) / 1000;
  }
}

async function run(file: string, args: string[], cwd: string, env = consumerEnv()) {
  try {
    return await exec(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let server: RunningServer;
let work: string;
let consumer: string;
let tarball: string;
let packed: PackResult;

beforeAll(async () => {
  server = await startServer();
  work = await mkdtemp(join(tmpdir(), 'consilium-sdk-packed-'));
  consumer = join(work, 'consumer');

  // The package's own build script, as its `prepack` runs it at `npm pack` (and the repository's `prepare` at `npm install`).
  await step('build', () => run('npm', ['run', '--silent', 'build'], SDK_DIR));
  // The package's `prepack` runs the same build; it has just run, so skip it rather than build twice.
  const { stdout } = await step('pack', () =>
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], SDK_DIR),
  );
  const results = JSON.parse(stdout) as PackResult[];
  expect(results).toHaveLength(1);
  packed = results[0]!;
  tarball = join(work, packed.filename);

  await mkdir(consumer);
  await writeFile(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'consilium-sdk-consumer', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  await step('install', () => run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], consumer));
  // Three more consumers as a new user makes them: `npm init -y` (CommonJS) or an ESM package.
  await step('install consumers', () =>
    Promise.all(
      (['esm-ts', 'cjs', 'wiki-gen'] as const).map(async (name) => {
        const dir = join(work, name);
        await mkdir(dir);
        if (name === 'esm-ts') {
          await writeFile(
            join(dir, 'package.json'),
            `${JSON.stringify({ name, version: '0.0.0', private: true, type: 'module' })}\n`,
          );
        } else {
          await run('npm', ['init', '-y'], dir);
        }
        await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], dir);
      }),
    ),
  );
}, SLOW);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
  console.info(`packed SDK timings (s): ${JSON.stringify(timings)}`);
});

/** The server's token for consumers, once the test server has accounts; any token until then. */
const consumerToken = () => (server as { token?: string }).token ?? 'csk_consumer_token';

/** What each consumer does against the live server: ask, stream a debate, fail a stream, build a wiki query. */
const SCENARIO = `
const BAD_LIMIT = 'lots';
const c = new Consilium({ baseUrl: process.env.CONSILIUM_BASE_URL, token: process.env.CONSILIUM_TOKEN });
const asked = await c.ask('What is 2 + 2?', { slot: 2 });
const types = [];
for await (const e of c.debates.stream('Tabs or spaces?', { rounds: 2 })) types.push(e.type);
let failure = null;
try {
  for await (const e of c.debates.stream('', { rounds: 9 })) types.push(e.type);
} catch (error) {
  if (error instanceof ConsiliumError) failure = { code: error.code, status: error.status, paths: error.errors.map((f) => f.path).sort() };
}
const q = query({ list: [allpages({ prefix: 'Foo', limit: 600 })] });
let wikiError = null;
try {
  query({ list: [allpages({ limit: BAD_LIMIT })] });
} catch (error) {
  if (error instanceof WikiParamError) wikiError = error.code;
}
console.log(JSON.stringify({ slot: asked.answer.slot, first: types[0], last: types.at(-1), failure, params: q.params, warnings: q.warnings.map((w) => w.code), wikiError }));
`;

/** What every consumer must print. */
function expectScenario(stdout: string): void {
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
    slot: 2,
    first: 'session.started',
    last: 'session.ended',
    failure: { code: 'validation_failed', status: 400, paths: ['body.question', 'body.rounds'] },
    params: expect.objectContaining({ action: 'query', list: 'allpages', apprefix: 'Foo', aplimit: '500' }),
    warnings: ['outofrange'],
    wikiError: 'badinteger',
  });
}

const serverEnv = () => consumerEnv({ CONSILIUM_BASE_URL: server.baseUrl, CONSILIUM_TOKEN: consumerToken() });
const STRICT_NODENEXT = [
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--strict',
  '--target',
  'es2022',
  '--skipLibCheck',
  'false',
];
const NODE_TYPES = () => ['--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node'];

describe('consumers of the packed @consilium/sdk against a live server', () => {
  it(
    'ESM + TypeScript (nodenext, strict): compiles, then asks, streams a debate, gets a typed error, builds a wiki query',
    async () => {
      const dir = join(work, 'esm-ts');
      await writeFile(
        join(dir, 'main.ts'),
        `import { Consilium, ConsiliumError, type DebateEvent } from '@consilium/sdk';
import { query, WikiParamError } from '@consilium/sdk/wiki';
import { allpages } from '@consilium/sdk/wiki/modules/allpages';
const typed: DebateEvent['type'] = 'session.ended';
void typed;
${SCENARIO.replace("const BAD_LIMIT = 'lots';", "const BAD_LIMIT = 'lots' as unknown as number; // a typo the types would catch").replace('const types = [];', "const types: DebateEvent['type'][] = [];").replace('let failure = null;', 'let failure: { code: string; status: number | undefined; paths: string[] } | null = null;').replace('let wikiError = null;', 'let wikiError: string | null = null;')}
// @ts-expect-error rounds is a number
c.debates.stream('x', { rounds: 'three' });
`,
      );
      await step('esm-ts tsc', () => run(TSC, [...STRICT_NODENEXT, ...NODE_TYPES(), '--outDir', 'out', 'main.ts'], dir));
      const { stdout } = await run(process.execPath, ['out/main.js'], dir, serverEnv());
      expectScenario(stdout);
    },
    SLOW,
  );

  it(
    'CommonJS (npm init -y) with require(): every entry loads, types resolve under nodenext, and the scenario runs',
    async () => {
      const dir = join(work, 'cjs');
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { type?: string };
      expect(manifest.type ?? 'commonjs').toBe('commonjs');
      await writeFile(
        join(dir, 'main.js'),
        `const { Consilium, ConsiliumError, getHealth, schemas } = require('@consilium/sdk');
const { query, WikiParamError } = require('@consilium/sdk/wiki');
const { allpages } = require('@consilium/sdk/wiki/modules/allpages');
const { revisions } = require('@consilium/sdk/wiki/modules/revisions');
if (typeof getHealth !== 'function' || typeof schemas.zHealth.parse !== 'function' || typeof revisions !== 'function') throw new Error('missing exports');
(async () => {
${SCENARIO}
})().catch((error) => { console.error(error); process.exitCode = 1; });
`,
      );
      const { stdout } = await run(process.execPath, ['main.js'], dir, serverEnv());
      expectScenario(stdout);
      // TypeScript sees the same entries from a CommonJS file (TS >= 5.8 under nodenext: require of ESM).
      await writeFile(
        join(dir, 'types.ts'),
        `import { Consilium, type DebateEvent } from '@consilium/sdk';
import { query } from '@consilium/sdk/wiki';
import { allpages } from '@consilium/sdk/wiki/modules/allpages';
const c: Consilium = new Consilium({ baseUrl: 'http://127.0.0.1:8787' });
const kind: DebateEvent['type'] = 'verdict';
const built = query({ list: [allpages({ limit: 5 })] });
export const out = [c, kind, built.params];
`,
      );
      await step('cjs tsc', () => run(TSC, [...STRICT_NODENEXT, ...NODE_TYPES(), '--noEmit', 'types.ts'], dir));
    },
    SLOW,
  );

  it(
    'generates builders with consilium-wiki in a CommonJS project, compiles and runs them',
    async () => {
      const dir = join(work, 'wiki-gen');
      const generated = await run(
        join(dir, 'node_modules', '.bin', 'consilium-wiki'),
        ['generate', '--catalogue', join(ROOT, 'catalogue', 'paraminfo.json'), '--out', 'wiki'],
        dir,
      );
      expect(generated.stdout).toMatch(/as \.mts files/);
      // The module rules ship in the package: core modules get theirs from the tarball alone.
      expect(generated.stdout).toMatch(/; [1-9]\d* module rules in [1-9]\d* modules\)/);
      expect(await readFile(join(dir, 'wiki', 'backlinks.mts'), 'utf8')).toContain("rule: 'only-one-of'");
      await writeFile(
        join(dir, 'main.cts'),
        `import { Consilium, ConsiliumError } from '@consilium/sdk';
import { query, WikiParamError } from '@consilium/sdk/wiki';
import { allpages, backlinks, usercontribs } from './wiki/index.mjs';
const rich = query({ list: [usercontribs({ user: ['Example'], limit: 10, namespace: [0], start: '2024-01-01T00:00:00Z' })] });
let ruleCode: string | null = null;
try {
  query({ list: [backlinks({})] }); // neither title nor pageid: the module's only-one-of rule
} catch (error) {
  ruleCode = error instanceof WikiParamError ? \`\${error.code} \${error.libraryCode}\` : String(error);
}
async function main(): Promise<void> {
${SCENARIO.replace("const BAD_LIMIT = 'lots';", "const BAD_LIMIT = 'lots' as unknown as number;").replace('const types = [];', 'const types: string[] = [];').replace('let failure = null;', 'let failure: object | null = null;').replace('let wikiError = null;', 'let wikiError: string | null = null;').replace('console.log(JSON.stringify({', 'console.log(JSON.stringify({ rich: rich.params.list, ruleCode,')}
}
main().catch((error: unknown) => { console.error(error); process.exitCode = 1; });
`,
      );
      await step('wiki-gen tsc', () => run(TSC, [...STRICT_NODENEXT, ...NODE_TYPES(), '--outDir', 'out', 'main.cts'], dir));
      const { stdout } = await run(process.execPath, ['out/main.cjs'], dir, serverEnv());
      const { rich, ruleCode, ...rest } = JSON.parse(stdout.trim()) as { rich: string; ruleCode: string };
      expect(rich).toBe('usercontribs');
      expect(ruleCode).toBe('missingparam module-rule:only-one-of');
      expectScenario(JSON.stringify(rest));
    },
    SLOW,
  );

  it('a refused stream throws ConsiliumError with its code (generated function, with a client or the default one, and facade); signIn twice leaves one live token', async () => {
    await writeFile(
      join(consumer, 'streams.mjs'),
      `import { Consilium, ConsiliumError, createConsiliumClient, defaultClient, streamDeepDebate } from '@consilium/sdk';
const baseUrl = process.env.CONSILIUM_BASE_URL;
const caught = async (open) => {
  const seen = [];
  try {
    for await (const e of await open()) seen.push(e.type);
    return { silent: seen };
  } catch (error) {
    if (!(error instanceof ConsiliumError)) return { other: String(error) };
    return { code: error.code, status: error.status, paths: error.errors.map((f) => f.path).sort(), requestId: typeof error.requestId };
  }
};
const told = [];
const signedIn = createConsiliumClient({ baseUrl, token: process.env.CONSILIUM_TOKEN });
const anonymous = createConsiliumClient({ baseUrl });
// No onSseError given: the failure must still be thrown, not end the loop quietly.
const generated400 = await caught(async () => (await streamDeepDebate({ client: signedIn, body: { question: '', rounds: 9 } })).stream);
const generated401 = await caught(async () =>
  (await streamDeepDebate({ client: anonymous, body: { question: 'Hi?' }, onSseError: (e) => told.push(e instanceof ConsiliumError && e.code) })).stream,
);
const facade401 = await caught(async () => new Consilium({ baseUrl }).debates.stream('Hi?'));
// No client at all: the generated function uses the package's default client.
defaultClient.setConfig({ baseUrl });
const default401 = await caught(async () => (await streamDeepDebate({ body: { question: 'Hi?' } })).stream);
defaultClient.setConfig({ auth: (auth) => (auth.scheme === 'bearer' ? process.env.CONSILIUM_TOKEN : undefined) });
const default400 = await caught(async () => (await streamDeepDebate({ body: { question: '', rounds: 9 } })).stream);
const credentials = { baseUrl, username: process.env.CONSILIUM_USERNAME, password: process.env.CONSILIUM_PASSWORD };
const first = await Consilium.signIn(credentials);
const second = await Consilium.signIn(credentials);
const mine = (await second.consilium.auth.tokens.list()).filter((t) => t.name === 'consilium-sdk');
let firstAfter = null;
try {
  await first.consilium.auth.me();
  firstAfter = 'live';
} catch (error) {
  firstAfter = error instanceof ConsiliumError ? error.code : String(error);
}
const days = (Date.parse(mine[0]?.expiresAt ?? '') - Date.now()) / 86400000;
console.log(JSON.stringify({ generated400, generated401, told, facade401, default401, default400, live: mine.map((t) => t.id === second.token.id), days: Math.round(days), firstAfter }));
`,
    );
    const { stdout } = await run(
      process.execPath,
      ['streams.mjs'],
      consumer,
      consumerEnv({
        CONSILIUM_BASE_URL: server.baseUrl,
        CONSILIUM_TOKEN: consumerToken(),
        CONSILIUM_USERNAME: server.user.username,
        CONSILIUM_PASSWORD: server.password,
      }),
    );
    expect(JSON.parse(stdout.trim())).toEqual({
      generated400: { code: 'validation_failed', status: 400, paths: ['body.question', 'body.rounds'], requestId: 'string' },
      generated401: { code: 'unauthorized', status: 401, paths: [], requestId: 'string' },
      told: ['unauthorized'],
      facade401: { code: 'unauthorized', status: 401, paths: [], requestId: 'string' },
      default401: { code: 'unauthorized', status: 401, paths: [], requestId: 'string' },
      default400: { code: 'validation_failed', status: 400, paths: ['body.question', 'body.rounds'], requestId: 'string' },
      live: [true],
      days: 7,
      firstAfter: 'unauthorized',
    });
  });

  it('the consilium bin from the tarball talks to the server', async () => {
    const dir = join(work, 'cjs');
    const bin = join(dir, 'node_modules', '.bin', 'consilium');
    const asked = await run(
      bin,
      ['ask', 'Hello?', '--slot', '3', '--json'],
      dir,
      consumerEnv({ CONSILIUM_URL: server.baseUrl, CONSILIUM_TOKEN: consumerToken(), HOME: work }),
    );
    expect(JSON.parse(asked.stdout)).toMatchObject({ answer: { slot: 3 } });
    const version = await run(bin, ['--version'], dir);
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(SDK_DIR, 'package.json'), 'utf8')).version);
  });

  it('in this repository, once built, the workspace links run both bins', async () => {
    const { version } = JSON.parse(await readFile(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string };
    for (const bin of ['consilium', 'consilium-wiki']) {
      const { stdout } = await run(join(ROOT, 'node_modules', '.bin', bin), ['--version'], ROOT);
      expect(stdout.trim(), bin).toBe(version);
    }
  });
});

describe('the packed @consilium/sdk', () => {
  it(
    'passes publint, attw with only the ESM-first note the README explains, and npm publish --dry-run',
    async () => {
      const lint = await run(join(ROOT, 'node_modules', '.bin', 'publint'), ['sdk'], ROOT);
      expect(lint.stdout).toContain('All good!');
      // attw lists a problem even when told to ignore it (that only sets its exit code): every kind found must be
      // CJSResolvesToESM, i.e. no entry unresolvable, untyped or mistyped under node10, node16 or bundler.
      const attw = await run(
        join(ROOT, 'node_modules', '.bin', 'attw'),
        [tarball, '--format', 'json', '--ignore-rules', 'cjs-resolves-to-esm'],
        work,
      );
      expect(Object.keys((JSON.parse(attw.stdout) as { problems: Record<string, unknown> }).problems)).toEqual([
        'CJSResolvesToESM',
      ]);
      const publish = await run('npm', ['publish', '--dry-run', '--ignore-scripts'], SDK_DIR);
      expect(`${publish.stdout}${publish.stderr}`).toContain(
        `+ @consilium/sdk@${packed.filename.replace(/^consilium-sdk-|\.tgz$/g, '')}`,
      );
    },
    SLOW,
  );

  it('contains the built entry, its types, package.json and README, and no sources or tests', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball], work);
    const entries = stdout
      .split('\n')
      .filter(Boolean)
      .map((e) => e.replace(/^package\//, ''));

    expect(entries).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'package.json', 'README.md', 'LICENSE']));
    expect(entries.sort()).toEqual(packed.files.map((f) => f.path).sort());
    expect(entries.filter((e) => e.startsWith('src/') || e.includes('/src/'))).toEqual([]);
    expect(entries.filter((e) => /\.test(-d)?\.|(^|\/)(test|tests|__tests__)\//.test(e))).toEqual([]);
    expect(entries.filter((e) => /(^|\/)tsconfig[^/]*\.json$|\.ts$/.test(e) && !e.endsWith('.d.ts'))).toEqual([]);
    // Everything else is the build, every module with its declarations, the two bins that run it, and the example
    // question set of `consilium eval`.
    const rest = ['bin/consilium-wiki.js', 'bin/consilium.js', 'examples/eval.jsonl'];
    expect(entries.filter((e) => !e.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(e)).sort()).toEqual(
      rest,
    );
    for (const js of entries.filter((e) => e.startsWith('dist/') && e.endsWith('.js'))) {
      expect(entries, `${js} has declarations`).toContain(js.replace(/\.js$/, '.d.ts'));
    }
    expect(entries).toEqual(expect.arrayContaining(['dist/generated/sdk.gen.js', 'dist/generated/zod.gen.js']));

    const manifest = JSON.parse(
      await readFile(join(consumer, 'node_modules', '@consilium', 'sdk', 'package.json'), 'utf8'),
    ) as Record<string, unknown> & { exports: Record<string, Record<string, string> | string> };
    expect(manifest).toMatchObject({ name: '@consilium/sdk', type: 'module', dependencies: { zod: expect.any(String) } });
    // Nothing runs at a consumer's install (npm would ask them to allow it, and it could not build there anyway).
    const scripts = Object.keys((manifest.scripts ?? {}) as Record<string, string>);
    expect(scripts.filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    const targets = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t))),
      ...Object.values((manifest.bin ?? {}) as Record<string, string>),
    ];
    for (const target of targets) {
      const path = String(target).replace(/^\.\//, '');
      if (!path.includes('*')) expect(entries, `${path} is in the tarball`).toContain(path);
      else {
        // A subpath pattern (`./wiki/modules/*`): it must match files in the tarball.
        const parts = path.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
        const pattern = new RegExp(`^${parts.join('[^/]+')}$`);
        expect(entries.filter((e) => pattern.test(e)).length, `${path} matches files in the tarball`).toBeGreaterThan(0);
      }
    }
  });

  it("a consumer's bundle of the debate client keeps only the schemas the deep-debate stream validates", async () => {
    // The installed package as a bundler sees it (tsc's output): esbuild may drop a schema only if its
    // calls are marked pure (generator/src/pure.ts), so this fails if the build lost the marks.
    const installed = join(consumer, 'node_modules', '@consilium', 'sdk', 'dist', 'generated');
    const validator = /export const streamDeepDebate\b[\s\S]*?await (z\w+)\.parseAsync/.exec(
      await readFile(join(installed, 'sdk.gen.js'), 'utf8'),
    )?.[1];
    expect(validator).toBeDefined();
    const schemas = await readFile(join(installed, 'zod.gen.js'), 'utf8');
    const result = await build({
      stdin: { contents: "export { createConsiliumClient, streamDeepDebate } from '@consilium/sdk';\n", resolveDir: consumer },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const kept = new Set([...result.outputFiles[0]!.text.matchAll(/^var (z[A-Z]\w*) =/gm)].map((m) => m[1]!));
    const reached = schemasReachedFrom(schemas, [validator!], 'zod.gen.js');
    expect(kept).toEqual(reached);
    expect([...schemas.matchAll(/^export const z\w+/gm)].length).toBeGreaterThan(reached.size);
  });

  it('imports in plain Node and talks to the server', async () => {
    await writeFile(
      join(consumer, 'smoke.mjs'),
      `import { createConsiliumClient, getHealth, listProviders, runDeepDebate, schemas } from '@consilium/sdk';

const client = createConsiliumClient({ baseUrl: process.env.CONSILIUM_BASE_URL, token: process.env.CONSILIUM_TOKEN });
const health = await getHealth({ client });
const providers = await listProviders({ client });
const bad = await runDeepDebate({ client, body: { question: '', rounds: 9 } });
console.log(JSON.stringify({
  resolved: import.meta.resolve('@consilium/sdk'),
  zod: import.meta.resolve('zod'),
  health: { status: health.response.status, data: health.data, error: health.error ?? null },
  providers: providers.data.slots.map((s) => [s.slot, s.provider, s.status]),
  problem: {
    status: bad.response.status,
    contentType: bad.response.headers.get('content-type'),
    code: bad.error.code,
    paths: bad.error.errors.map((e) => e.path).sort(),
  },
  healthMatchesSchema: schemas.zHealth.safeParse(health.data).success,
}));
`,
    );
    const { stdout } = await step('node', () =>
      run(
        process.execPath,
        ['smoke.mjs'],
        consumer,
        consumerEnv({ CONSILIUM_BASE_URL: server.baseUrl, CONSILIUM_TOKEN: server.token }),
      ),
    );
    const out = JSON.parse(stdout.trim());

    const installed = pathToFileURL(join(consumer, 'node_modules/')).href;
    expect(out.resolved).toBe(`${installed}@consilium/sdk/dist/index.js`);
    expect(out.zod.startsWith(`${installed}zod/`)).toBe(true);
    expect(out.health).toEqual({
      status: 200,
      data: { status: 'ok', version: '0.0.0-test', uptimeSeconds: expect.any(Number) },
      error: null,
    });
    expect(out.providers).toEqual([
      [1, 'anthropic', 'offline'],
      [2, 'openai', 'offline'],
      [3, 'deepseek', 'offline'],
      [4, 'google', 'offline'],
      [5, 'xai', 'offline'],
    ]);
    expect(out.problem).toEqual({
      status: 400,
      contentType: expect.stringMatching(/^application\/problem\+json\b/),
      code: 'validation_failed',
      paths: ['body.question', 'body.rounds'],
    });
    expect(out.healthMatchesSchema).toBe(true);
  });

  it(
    'type-checks a strict NodeNext consumer, library declarations included, with and without the DOM lib',
    async () => {
      await writeFile(join(consumer, 'consumer.ts'), CONSUMER_TS);
      // The README's examples, as one module: the first block's imports and client, then each later
      // block in its own scope, its imports hoisted.
      const blocks = [...(await readFile(join(SDK_DIR, 'README.md'), 'utf8')).matchAll(/```ts\n([\s\S]*?)```/g)].map(
        (m) => m[1]!,
      );
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      const isImport = (line: string) => line.startsWith('import ');
      // Each block is whole on its own, so two may import the same name: one import per module, each name once.
      const imported = new Map<string, Set<string>>();
      for (const line of blocks.flatMap((b) => b.split('\n').filter(isImport))) {
        const [, names = '', from = ''] = /^import \{([^}]*)\} from '([^']+)';$/.exec(line) ?? [];
        if (!from) throw new Error(`a README import this test cannot merge: ${line}`);
        const set = imported.get(from) ?? new Set<string>();
        for (const name of names.split(',').map((n) => n.trim())) if (name) set.add(name);
        imported.set(from, set);
      }
      const readme = [
        ...[...imported].map(([from, names]) => `import { ${[...names].join(', ')} } from '${from}';`),
        ...blocks.map((b, i) => {
          const body = b
            .split('\n')
            .filter((l) => !isImport(l))
            .join('\n');
          return i === 0 ? body : `{\n${body}\n}`;
        }),
        'export {};',
      ].join('\n');
      await writeFile(join(consumer, 'readme.ts'), readme);

      const common = [
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--strict',
        '--noEmit',
        '--skipLibCheck',
        'false',
      ];
      await step('tsc', () =>
        Promise.all([
          // Default lib for the target (DOM included), no Node types: a browser-leaning consumer.
          run(TSC, [...common, 'consumer.ts'], consumer),
          // ES2023 and @types/node, no DOM: a Node consumer. Also the README's examples.
          run(
            TSC,
            [...common, '--lib', 'es2023', '--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node'].concat([
              'consumer.ts',
              'readme.ts',
            ]),
            consumer,
          ),
        ]),
      );
    },
    SLOW,
  );
});

/** A consumer that leans on the types: a wrong body, a wrong narrowing or an `any` fails to compile. */
const CONSUMER_TS = `import {
  type Client,
  createConsiliumClient,
  type DebateAccepted,
  type DebateEvent,
  getHealth,
  type Health,
  listProviders,
  type Problem,
  type ProblemCode,
  runDeepDebate,
  schemas,
  streamDeepDebate,
} from '@consilium/sdk';

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_: T): void => {};

const client: Client = createConsiliumClient({ baseUrl: 'http://127.0.0.1:8787', token: async () => 'token' });

const health = await getHealth({ client });
assertType<Equals<typeof health.data, Health | undefined>>(true);
if (health.data) {
  const status: 'ok' = health.data.status;
  console.log(status, health.data.uptimeSeconds.toFixed(1));
}

const providers = await listProviders({ client });
for (const slot of providers.data?.slots ?? []) {
  const live: 'live' | 'offline' = slot.status;
  console.log(slot.slot + 1, slot.provider.toUpperCase(), live);
}

const debate = await runDeepDebate({ client, body: { question: 'Why?', rounds: 3, quorum: 2 } });
if (debate.error) {
  assertType<Equals<typeof debate.error, Problem>>(true);
  const code: ProblemCode = debate.error.code;
  console.log(code, debate.error.errors?.map((e) => e.path));
} else if ('rounds' in debate.data) {
  console.log(debate.data.id, debate.data.rounds.length);
} else {
  // Only a request with \`detach: true\` gets the 202: the run goes on, and its session can be followed.
  assertType<Equals<typeof debate.data, DebateAccepted>>(true);
  console.log(debate.data.sessionId, debate.data.status);
}

// @ts-expect-error rounds is a number
await runDeepDebate({ client, body: { question: 'Why?', rounds: 'three' } });
// @ts-expect-error the body is required
await runDeepDebate({ client });
// @ts-expect-error no such field on a problem
console.log(debate.error?.statusCode);

const { stream } = await streamDeepDebate({
  client,
  body: { question: 'Why?' },
  sseMaxRetryAttempts: 1,
  onSseError: (error: unknown) => console.error(error),
});
for await (const event of stream) {
  assertType<Equals<typeof event, DebateEvent>>(true);
  if (event.type === 'answer.delta') console.log(event.slot, event.delta.length);
}

const parsed = schemas.zHealth.parse({ status: 'ok', version: '1', uptimeSeconds: 1 });
assertType<Equals<typeof parsed, Health>>(true);
`;
