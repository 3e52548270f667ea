import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { moduleRules } from '../../generated/wiki-rules.js';
import { CLI_MARKER, type CliIo, main } from './cli.js';
import { type ParamInfoModule, parseParamInfoDocument } from './document.js';
import { emitModules } from './emit.js';
import { DEFAULT_USER_AGENT, fetchParamInfo, MAX_BATCH, querySubmodules } from './fetch.js';
import { emitMainParameters } from './siteinfo.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./__fixtures__/edge-cases.json', import.meta.url));
/** A real MediaWiki 1.46 capture of the query modules' paraminfo, copied into the repository. */
const capture = fileURLToPath(new URL('./__fixtures__/paraminfo-mw1.46-query-subset.json', import.meta.url));
const catalogue = capture;

const scratchDirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-wiki-cli-'));
  scratchDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `main` in this process, collecting what it prints. */
async function run(args: string[], extra: Partial<CliIo> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...extra,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** What the CLI writes for `--catalogue <source>`, straight from the emitter. */
function expectedFiles(_source: string, runtimeImport = '@consilium/sdk/wiki') {
  const doc = parseParamInfoDocument(JSON.parse(readFileSync(catalogue, 'utf8')));
  const header = [`${CLI_MARKER} from a wiki's paraminfo. Do not edit: run \`consilium-wiki generate\` again instead.`];
  const files = emitModules(doc, { runtimeImport, header, rules: moduleRules });
  // A catalogue with the query (or main) module also gives the wiki's own main parameters.
  const main = emitMainParameters(doc, header, runtimeImport);
  if (main !== undefined) {
    files.set('main-parameters.ts', main);
    files.set('index.ts', `${files.get('index.ts')!}export * from './main-parameters.js';\n`);
  }
  return files;
}

describe('consilium-wiki generate (a spawned process)', () => {
  it('writes every module and the index from a paraminfo file, and prints a summary', async () => {
    const out = join(scratch(), 'modules');
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'sdk/src/wiki/codegen/cli.ts', 'generate', '--catalogue', catalogue, '--out', out, '--ext', 'ts'],
      { cwd: repoRoot },
    );
    const expected = expectedFiles(catalogue);
    expect(readdirSync(out).sort()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) expect(readFileSync(join(out, name), 'utf8'), name).toBe(text);
    expect(stdout).toMatch(
      new RegExp(
        `^consilium-wiki: wrote ${expected.size - (expected.has('main-parameters.ts') ? 2 : 1)} modules \\(list \\d+, prop \\d+, meta \\d+; \\d+ parameters, \\d+ templated; \\d+ module rules in \\d+ modules?\\) and index.ts to ${out}\\n`,
      ),
    );
    expect(stdout).toMatch(/ {2}skipped: .*query \(not a query submodule\)/);
  });

  it('says "1 module" for one', async () => {
    const dir = scratch();
    const { paraminfo } = JSON.parse(readFileSync(catalogue, 'utf8')) as { paraminfo: { modules: { path: string }[] } };
    const one = paraminfo.modules.filter((m) => m.path === 'query' || m.path === 'query+allpages');
    writeFileSync(join(dir, 'one.json'), JSON.stringify({ paraminfo: { ...paraminfo, modules: one } }));
    const result = await run(['generate', '--catalogue', join(dir, 'one.json'), '--out', join(dir, 'out'), '--ext', 'ts']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^consilium-wiki: wrote 1 module \(list 1, prop 0, meta 0; /);
  });

  it('exits 2 with the usage on a usage error', async () => {
    const failure = await promisify(execFile)('npx', ['tsx', 'sdk/src/wiki/codegen/cli.ts', 'generate', '--out', 'x'], {
      cwd: repoRoot,
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(
      /(^|\n)consilium-wiki: missing --catalogue <file \| api\.php URL>\n\nUsage: consilium-wiki generate/,
    );
  });
});

describe('consilium-wiki (in process)', () => {
  it('prints the usage for --help, exit 0', async () => {
    for (const args of [['--help'], ['generate', '--help'], ['-h']]) {
      const result = await run(args);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: consilium-wiki generate --catalogue <file \| api\.php URL> --out <dir>/);
    }
  });

  it.each([
    [[], 'missing command: generate'],
    [['build'], 'unknown command: build'],
    [['generate', '--catalogue', 'x.json'], 'missing --out <dir>'],
    [['generate', '--catalogue', 'x.json', '--out'], '--out needs a value'],
    [['generate', '--catalogue', '--out', 'dir'], '--catalogue needs a value'],
    [['generate', '--catalogue', 'a', '--catalogue=b', '--out', 'dir'], '--catalogue given twice'],
    [['generate', '--catalogue', 'x.json', '--out', 'dir', '--frobnicate'], 'unknown option: --frobnicate'],
    [['generate', 'x.json'], 'unexpected argument: x.json'],
  ])('exits 2 for %j: %s', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`consilium-wiki: ${message}\n`);
    expect(result.stderr).toContain('Usage: consilium-wiki generate');
  });

  it('exits 1, naming the file, when the catalogue cannot be read or is not paraminfo', async () => {
    const dir = scratch();
    const missing = await run(['generate', '--catalogue', join(dir, 'nope.json'), '--out', join(dir, 'out')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^consilium-wiki: cannot read .*nope\.json: ENOENT/);
    writeFileSync(join(dir, 'bad.json'), '{"query":{}}');
    const bad = await run(['generate', '--catalogue', join(dir, 'bad.json'), '--out', join(dir, 'out')]);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('not an action=paraminfo answer') });
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('prints its version', async () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'sdk/package.json'), 'utf8')) as { version: string };
    const result = await run(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  it('exits 1 and writes nothing when the catalogue has no query modules', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'empty.json'), JSON.stringify({ paraminfo: { modules: [] } }));
    const result = await run(['generate', '--catalogue', join(dir, 'empty.json'), '--out', join(dir, 'out')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/has no query modules/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('writes the same files whatever the catalogue is called or where it lies', async () => {
    const [a, b] = [scratch(), scratch()];
    writeFileSync(join(a, 'one.json'), readFileSync(fixture));
    mkdirSync(join(b, 'deep', 'er'), { recursive: true });
    writeFileSync(join(b, 'deep', 'er', 'other-name.json'), readFileSync(fixture));
    await run(['generate', '--catalogue', join(a, 'one.json'), '--out', join(a, 'out'), '--ext', 'ts']);
    await run(['generate', '--catalogue', 'deep/er/other-name.json', '--out', 'out', '--ext', 'ts'], { cwd: b });
    const names = readdirSync(join(a, 'out')).sort();
    expect(readdirSync(join(b, 'out')).sort()).toEqual(names);
    for (const name of names) expect(readFileSync(join(b, 'out', name), 'utf8')).toBe(readFileSync(join(a, 'out', name), 'utf8'));
    expect(readFileSync(join(a, 'out', 'index.ts'), 'utf8')).not.toContain(a);
  });

  it('rejects URL schemes other than http and https, and checks --timeout and --ext', async () => {
    for (const catalogue of ['ftp://wiki.example/api.php', 'file:///etc/passwd', 'gopher://x']) {
      const result = await run(['generate', '--catalogue', catalogue, '--out', 'x']);
      expect(result.code, catalogue).toBe(2);
      expect(result.stderr).toMatch(/unsupported URL scheme/);
    }
    expect((await run(['generate', '--catalogue', 'x.json', '--out', 'x', '--timeout', 'soon'])).stderr).toMatch(
      /--timeout must be/,
    );
    expect((await run(['generate', '--catalogue', 'x.json', '--out', 'x', '--ext', 'js'])).stderr).toMatch(
      /--ext must be ts or mts/,
    );
  });

  it('writes .mts under a CommonJS package.json (or none) and .ts under "type": "module"', async () => {
    const cjs = scratch();
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'x', type: 'commonjs' }));
    writeFileSync(join(cjs, 'pi.json'), readFileSync(fixture));
    const result = await run(['generate', '--catalogue', 'pi.json', '--out', 'src/wiki'], { cwd: cjs });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/as \.mts files: the package\.json above them does not say "type": "module"/);
    const files = readdirSync(join(cjs, 'src/wiki'));
    expect(files).toContain('index.mts');
    expect(files.every((f) => f.endsWith('.mts'))).toBe(true);
    expect(readFileSync(join(cjs, 'src/wiki/index.mts'), 'utf8')).toMatch(/from '\.\/[a-z]+\.mjs';/);

    const esm = scratch();
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'x', type: 'module' }));
    writeFileSync(join(esm, 'pi.json'), readFileSync(fixture));
    expect((await run(['generate', '--catalogue', 'pi.json', '--out', 'src/wiki'], { cwd: esm })).stdout).not.toMatch(/\.mts/);
    expect(readdirSync(join(esm, 'src/wiki'))).toContain('index.ts');
  });

  it('resolves relative paths against the working directory, and takes --runtime-import and --opt=value', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'pi.json'), readFileSync(catalogue));
    const result = await run(['generate', '--catalogue=pi.json', '--out=gen', '--runtime-import', '../runtime.js', '--ext=ts'], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    for (const [name, text] of expectedFiles('pi.json', '../runtime.js')) {
      expect(readFileSync(join(dir, 'gen', name), 'utf8')).toBe(text);
    }
  });

  it('gives each module the rules the SDK ships for it, matched as `npm run generate` matches them', async () => {
    const dir = scratch();
    const own = parseParamInfoDocument(JSON.parse(readFileSync(join(repoRoot, 'catalogue/paraminfo.json'), 'utf8')));
    const pick = (name: string) => structuredClone(own.paraminfo.modules.find((m) => m.name === name)!);
    // Another wiki's backlinks without `pageid`: the only-one-of rule (title or pageid) no longer fits it.
    const trimmed = { ...pick('backlinks'), name: 'backlinks', path: 'query+backlinks' };
    trimmed.parameters = trimmed.parameters.filter((p) => p.name !== 'pageid');
    writeFileSync(join(dir, 'full.json'), JSON.stringify({ paraminfo: { modules: [pick('backlinks'), pick('categoryinfo')] } }));
    writeFileSync(join(dir, 'trimmed.json'), JSON.stringify({ paraminfo: { modules: [trimmed] } }));
    const body = (text: string) => text.slice(text.indexOf('\n') + 1); // past the one-line header
    const rulesOf = (text: string) => /\n {2}rules: (\[[\s\S]*?\n {2}\]),\n/.exec(text)?.[1];

    const full = await run([
      'generate',
      '--catalogue',
      join(dir, 'full.json'),
      '--out',
      join(dir, 'full'),
      '--ext',
      'ts',
      '--runtime-import',
      '../../wiki/index.js',
    ]);
    expect(full).toMatchObject({ code: 0, stderr: '' });
    const expectedRules = moduleRules.modules.backlinks!;
    expect(full.stdout).toContain(`; ${expectedRules.length} module rules in 1 module) and index.ts`);
    // With the repository's runtime import, the file is the repository's own builder, rules and all.
    const backlinks = readFileSync(join(dir, 'full', 'backlinks.ts'), 'utf8');
    expect(body(backlinks)).toBe(body(readFileSync(join(repoRoot, 'sdk/src/generated/wiki/backlinks.ts'), 'utf8')));
    expect(rulesOf(backlinks)).toContain("rule: 'only-one-of'");
    expect(rulesOf(backlinks)?.match(/ rule: '/g)).toHaveLength(expectedRules.length);
    // Checked by an applier made of the checks of its own kinds of rules only.
    const kinds = [...new Set(expectedRules.map((r) => r.rule))];
    const applier = /\n {2}applyRules: ruleApplier\(\{ (.*) \}\),\n/.exec(backlinks)?.[1];
    expect(applier?.split(', ').map((c) => c.split(':')[0]!.replaceAll("'", ''))).toEqual(kinds);
    // A module with no rules in the table gets none.
    expect(moduleRules.modules.categoryinfo).toBeUndefined();
    expect(readFileSync(join(dir, 'full', 'categoryinfo.ts'), 'utf8')).not.toMatch(/\brules:/);

    const cut = await run(['generate', '--catalogue', join(dir, 'trimmed.json'), '--out', join(dir, 'trimmed'), '--ext', 'ts']);
    expect(cut.code).toBe(0);
    const cutRules = rulesOf(readFileSync(join(dir, 'trimmed', 'backlinks.ts'), 'utf8'));
    expect(cutRules).not.toContain('only-one-of');
    expect(cutRules?.match(/ rule: '/g)).toHaveLength(
      expectedRules.filter((r) => !JSON.stringify(r).includes('"pageid"')).length,
    );
  });

  it('replaces the files an earlier run wrote, and leaves others alone', async () => {
    const out = join(scratch(), 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'gone.ts'), `${CLI_MARKER} from old.json. Do not edit.\nexport {};\n`);
    writeFileSync(join(out, 'mine.ts'), 'export const mine = 1;\n');
    const result = await run(['generate', '--catalogue', catalogue, '--out', out, '--ext', 'ts']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('; removed 1 stale file\n');
    expect(existsSync(join(out, 'gone.ts'))).toBe(false);
    expect(existsSync(join(out, 'mine.ts'))).toBe(true);
  });

  it('writes the --siteinfo snapshot beside meta=siteinfo’s builder, not over it', async () => {
    const dir = scratch();
    const siteinfoFile = join(dir, 'siteinfo.json');
    writeFileSync(
      siteinfoFile,
      JSON.stringify({
        query: {
          general: { misermode: true },
          namespaces: { 0: { id: 0, name: '', canonical: '', case: 'first-letter' } },
          languageinfo: { fr: { code: 'fr' }, en: { code: 'en' } },
        },
      }),
    );
    const out = join(dir, 'out');
    const full = join(repoRoot, 'catalogue/paraminfo.json');
    const result = await run(['generate', '--catalogue', full, '--siteinfo', siteinfoFile, '--out', out, '--ext', 'ts']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(out, 'siteinfo.ts'), 'utf8')).toContain('export const siteinfo: WikiModule<');
    const siteContext = readFileSync(join(out, 'site-context.ts'), 'utf8');
    expect(siteContext).toContain('export const site: SiteContext = {');
    // Miser mode and languageinfo's codes (sorted) go into the snapshot too: the checks that need them run offline.
    expect(JSON.parse(siteContext.slice(siteContext.indexOf('= {') + 2, siteContext.lastIndexOf('}') + 1))).toMatchObject({
      miserMode: true,
      languages: ['en', 'fr'],
    });
    const index = readFileSync(join(out, 'index.ts'), 'utf8');
    expect(index.match(/^export \* from '\.\/siteinfo\.js';$/gm)).toHaveLength(1);
    expect(index).toMatch(/^export \* from '\.\/site-context\.js';$/m);
  });
});

// --- from a wiki, through msw -------------------------------------------------------------------

const API = 'https://wiki.example/w/api.php';

/**
 * A wiki whose `query` module is the real capture's (64 submodules); modules the capture describes
 * come back as captured, the rest are made up.
 */
function fakeWiki() {
  const known = new Map<string, ParamInfoModule>();
  for (const m of parseParamInfoDocument(JSON.parse(readFileSync(capture, 'utf8'))).paraminfo.modules) known.set(m.path, m);
  const query = known.get('query')!;
  const mainCapture = fileURLToPath(new URL('../../../../test/fixtures/wiki/paraminfo-mw1.46-main-json.json', import.meta.url));
  for (const m of parseParamInfoDocument(JSON.parse(readFileSync(mainCapture, 'utf8'))).paraminfo.modules) known.set(m.path, m);
  const groupOf = new Map<string, string>();
  for (const group of ['prop', 'list', 'meta']) {
    const p = query.parameters.find((x) => x.name === group)!;
    for (const name of p.type as string[]) groupOf.set(`query+${name}`, group);
  }
  const describe = (path: string): ParamInfoModule | undefined => {
    const found = known.get(path);
    if (found) return found;
    const group = groupOf.get(path);
    if (!group) return undefined;
    const name = path.slice('query+'.length);
    return { name, path, group, prefix: name.slice(0, 3), parameters: [{ index: 1, name: 'limit', type: 'limit', max: 500 }] };
  };
  return { query, describe, submodules: [...groupOf.keys()] };
}

interface Seen {
  modules: string[];
  userAgent: string | null;
  params: Record<string, string>;
}

const seen: Seen[] = [];
/** What a hostile wiki might send: set the window title, ring the bell, clear the screen, an 8-bit CSI. */
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2J\u009b2J';
const wiki = fakeWiki();
/** MediaWiki's answers, in formatversion=2: `toomanyvalues` past 50 values, a warning per unknown module. */
const server = setupServer(
  http.get(API, ({ request }) => {
    const url = new URL(request.url);
    const modules = (url.searchParams.get('modules') ?? '').split('|');
    seen.push({ modules, userAgent: request.headers.get('user-agent'), params: Object.fromEntries(url.searchParams) });
    if (modules.length > MAX_BATCH) {
      return HttpResponse.json(
        {
          error: {
            code: 'toomanyvalues',
            info: `Too many values supplied for parameter "modules". The limit is ${MAX_BATCH}.`,
          },
        },
        { headers: { 'MediaWiki-API-Error': 'toomanyvalues' } },
      );
    }
    const described = modules.map((m) => wiki.describe(m));
    const unknown = modules.filter((_, i) => described[i] === undefined);
    return HttpResponse.json({
      ...(unknown.length > 0
        ? { warnings: { paraminfo: { warnings: unknown.map((m) => `The module "${m}" does not exist.`).join('\n') } } }
        : {}),
      paraminfo: { helpformat: 'none', modules: described.filter((m) => m !== undefined) },
    });
  }),
);

describe('consilium-wiki generate --catalogue <api.php URL>', () => {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());

  it('learns the submodules from the query module, then fetches them in batches of at most 50', async () => {
    const out = join(scratch(), 'out');
    const result = await run(['generate', '--catalogue', API, '--out', out, '--ext', 'ts']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(wiki.submodules).toHaveLength(64);
    expect(seen.map((s) => s.modules.length)).toEqual([2, 50, 14]);
    expect(seen[0]?.modules).toEqual(['main', 'query']);
    expect(seen.slice(1).flatMap((s) => s.modules)).toEqual(wiki.submodules);
    for (const s of seen) {
      expect(s.userAgent).toBe(DEFAULT_USER_AGENT);
      expect(s.params).toMatchObject({ action: 'paraminfo', format: 'json', formatversion: '2', helpformat: 'none' });
    }
    expect(readdirSync(out)).toHaveLength(66);
    // The wiki's own main and query parameters, for query(input, { main: mainParameters }).
    const main = readFileSync(join(out, 'main-parameters.ts'), 'utf8');
    expect(main).toContain('export const mainParameters: readonly ParamInfo[]');
    expect(main).toContain('"name": "crossorigin"');
    expect(main).toContain('"name": "titles"');
    expect(result.stdout).toMatch(/^consilium-wiki: wrote 64 modules \(list 37, prop 20, meta 7; /);
    // A module the capture describes comes out as generating from the capture would write it.
    const fromFile = expectedFiles(API).get('allpages.ts');
    expect(readFileSync(join(out, 'allpages.ts'), 'utf8')).toBe(fromFile);
  });

  it('sends the given User-Agent and keeps the query string of the URL', async () => {
    const doc = await fetchParamInfo(`${API}?uselang=en`, { userAgent: 'MyTool/1.0 (me@example.org)', batchSize: 30 });
    expect(doc.paraminfo.modules).toHaveLength(66);
    expect(seen.map((s) => s.modules.length)).toEqual([2, 30, 30, 4]);
    expect(seen.every((s) => s.userAgent === 'MyTool/1.0 (me@example.org)' && s.params.uselang === 'en')).toBe(true);
    await expect(fetchParamInfo(API, { batchSize: 51 })).rejects.toThrow('batchSize must be an integer from 1 to 50, not 51');
  });

  it.each([
    [
      'an HTTP error',
      () => HttpResponse.text('Service Unavailable', { status: 503, statusText: 'Service Unavailable' }),
      /GET https:\/\/wiki\.example\/w\/api\.php\?action=paraminfo&modules=main%7Cquery&.* answered HTTP 503 Service Unavailable: Service Unavailable/,
    ],
    [
      'an API error',
      () =>
        HttpResponse.json(
          { error: { code: 'readapidenied', info: 'You need read permission to use this module.' } },
          { headers: { 'MediaWiki-API-Error': 'readapidenied' } },
        ),
      /: MediaWiki API error readapidenied: You need read permission to use this module\.$/m,
    ],
    [
      'an error in errorformat=plaintext',
      () =>
        HttpResponse.json({
          errors: [{ code: 'internal_api_error_DBQueryError', text: 'A database query error has occurred.' }],
        }),
      /MediaWiki API error internal_api_error_DBQueryError: A database query error has occurred\./,
    ],
    [
      'an HTML page',
      () => HttpResponse.html('<!DOCTYPE html><title>Main Page</title>'),
      /did not answer JSON \(text\/html\); is this the wiki's api\.php URL\?: <!DOCTYPE html>/,
    ],
  ])('exits 1 on %s, saying what went wrong', async (_, answer, message) => {
    server.use(http.get(API, answer));
    const result = await run(['generate', '--catalogue', API, '--out', join(scratch(), 'out')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^consilium-wiki: /);
    expect(result.stderr).toMatch(message);
  });

  it('exits 5 (network) when no answer comes, saying which request failed', async () => {
    server.use(http.get(API, () => HttpResponse.error()));
    const result = await run(['generate', '--catalogue', API, '--out', join(scratch(), 'out')]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^consilium-wiki: GET https:\/\/wiki\.example\/.* failed: /);
  });

  it.each([
    ['an HTTP error body', () => HttpResponse.text(`Oops${HOSTILE}after`, { status: 500 }), 'Oopsafter'],
    ['a body that is not JSON', () => HttpResponse.text(`<html>${HOSTILE}after`), '<html>after'],
    ['a MediaWiki error', () => HttpResponse.json({ error: { code: `bad${HOSTILE}`, info: `info${HOSTILE}` } }), 'bad: info'],
    ['MediaWiki errors', () => HttpResponse.json({ errors: [{ code: 'x', text: `text${HOSTILE}` }] }), 'x: text'],
  ])('never prints the escape sequences of %s raw', async (_, answer, shown) => {
    server.use(http.get(API, answer));
    const result = await run(['generate', '--catalogue', API, '--out', join(scratch(), 'out')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(shown); // the text is shown…
    // …inert: no control character but the final newline.
    expect([...result.stderr.trimEnd()].filter((c) => /\p{Cc}/u.test(c))).toEqual([]);
  });

  it('gives up on a silent wiki after --timeout seconds (a network failure: exit 5)', async () => {
    server.use(http.get(API, async () => new Promise<never>(() => {})));
    const started = performance.now();
    const result = await run(['generate', '--catalogue', API, '--out', join(scratch(), 'out'), '--timeout', '0.2']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/timeout|timed out|aborted/i);
    // Given up on by the 0.2 s asked for, not the default 60 s: well before half of that, however busy the machine.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('fails when the wiki leaves out a module it was asked for', async () => {
    const name = wiki.submodules[3]!;
    server.use(
      http.get(API, ({ request }) => {
        const modules = (new URL(request.url).searchParams.get('modules') ?? '').split('|');
        return HttpResponse.json({
          warnings: { paraminfo: { warnings: `The module "${name}" does not exist.` } },
          paraminfo: { modules: modules.filter((m) => m !== name).map((m) => wiki.describe(m)) },
        });
      }),
    );
    await expect(fetchParamInfo(API)).rejects.toThrow(`the wiki did not describe ${name} (warnings: `);
  });
});

describe('querySubmodules', () => {
  it('reads the submodules map, or failing that the enum, of prop, list and meta', () => {
    const query: ParamInfoModule = {
      name: 'query',
      path: 'query',
      prefix: '',
      parameters: [
        { name: 'list', type: ['allpages', 'search'], submodules: { allpages: 'query+allpages', search: 'query+search' } },
        { name: 'prop', type: ['info'] },
        { name: 'generator', type: ['allpages'], submodules: { allpages: 'query+allpages' } },
      ],
    };
    expect(querySubmodules(query)).toEqual(['query+info', 'query+allpages', 'query+search']);
  });
});
