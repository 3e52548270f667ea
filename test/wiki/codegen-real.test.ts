/**
 * The wiki module generator on real input: every MediaWiki 1.46 paraminfo capture in the fixtures (the
 * shared conformance folder's, and the published stock 1.46 one; output no one here wrote), the
 * catalogue, and the edge-case fixture, each generated into a scratch folder and compiled by strict `tsc` against the real runtime
 * (`sdk/src/wiki/index.ts`), together with a few typed uses that must and must not compile.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doNotEditHeader } from '../../generator/src/contract.js';
import { cataloguePath, generateWikiModules, rulesPath } from '../../generator/src/generate.js';
import { parseParamInfoDocument } from '../../sdk/src/wiki/codegen/document.js';
import { emitModules, planModules, summarizePlan } from '../../sdk/src/wiki/codegen/emit.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const conformance = resolve(repoRoot, 'test/fixtures/wiki');
const runtimeIndex = join(repoRoot, 'sdk/src/wiki/index.ts');
const TSC = join(repoRoot, 'node_modules/.bin/tsc');
const RUNTIME = '@consilium/sdk/wiki';

// In the repository: a missing capture fails the suite rather than skipping it.
const captures = readdirSync(conformance)
  .filter((f) => /^paraminfo-mw1\.46-.*\.json$/.test(f))
  .sort()
  .map((f) => join(conformance, f));

/**
 * Typed uses per input folder: each must compile, and each `@ts-expect-error` must find an error.
 * Keyed by the input's file name.
 */
const USES: Record<string, string> = {
  'paraminfo-mw1.46-query-subset.json': `
import { allpages, allrevisions, categorymembers, type AllpagesParams } from './index.js';

allpages({ prefix: 'Foo', namespace: 0, limit: 'max', filterredir: 'redirects', prtype: ['edit', 'move'] });
allpages.asGenerator({ limit: 50 });
allpages();
allrevisions({ slots: '*', namespace: [0, 1], 'contentformat-{slot}': { main: 'text/x-wiki' }, start: new Date(0) });
allrevisions({ namespace: '*', end: '2024-01-01T00:00:00Z', prop: ['ids', 'parsetree'] });
categorymembers({ title: 'Category:Foo' });
const params: AllpagesParams = { dir: 'descending' };
void params;
// @ts-expect-error: not one of the enum's values
allpages({ filterredir: 'sometimes' });
// @ts-expect-error: multi values are arrays, not pipe-joined strings
allpages({ prtype: 'edit|move' });
// @ts-expect-error: limits are numbers or 'max'
allpages({ limit: 'all' });
// @ts-expect-error: parameters are unprefixed
allpages({ aplimit: 10 });
// @ts-expect-error: a templated parameter takes a record keyed by the template variable's values
allrevisions({ 'contentformat-{slot}': 'text/x-wiki' });
`,
  'paraminfo.json': `
import { allpages, messagecollection, tokens, revisions } from './index.js';

tokens({ type: '*' });
tokens({ type: ['csrf', 'watch'] });
messagecollection({ group: 'page-Foo', language: 'de' });
revisions({ slots: ['main'], 'contentformat-{slot}': { main: 'text/x-wiki' } });
allpages.asGenerator({ limit: 'max' });
// @ts-expect-error: meta=tokens cannot be a generator
tokens.asGenerator;
// @ts-expect-error: mcgroup is required
messagecollection({ language: 'de' });
// @ts-expect-error: mcgroup is required, so the parameters are too
messagecollection();
`,
  'edge-cases.json': `
import { extFooBar, extFooBar_2, deleteModule, indexModule, _2fa, empty, legacyfeed, tokens } from './index.js';

legacyfeed({
  token: 'secret',
  ids: [1, 1],
  namespace: [-1, 0],
  mode: "it's",
  show: 'all',
  'model-{slot}': { main: 'wikitext' },
  'x-{role}-{slot}': { a: { main: [1, 2] } },
  limit: 'max',
  since: new Date(0),
  pageid: '12',
});
empty();
tokens({ type: '*' });
for (const m of [extFooBar, extFooBar_2, deleteModule, indexModule, _2fa]) void m;
// @ts-expect-error: the token is required
legacyfeed({});
// @ts-expect-error: an enum without values admits nothing
legacyfeed({ token: 't', nothing: 'x' });
// @ts-expect-error: a module without parameters takes none
empty({ x: 1 });
`,
};

interface Input {
  file: string;
  /** Subfolder of the scratch project. */
  dir: string;
  summary: ReturnType<typeof summarizePlan>;
}

let scratch: string;
const inputs: Input[] = [];
let tsc: { code: number; output: string };

beforeAll(async () => {
  expect(existsSync(runtimeIndex), `the runtime ${runtimeIndex} must exist to compile against`).toBe(true);
  scratch = mkdtempSync(join(tmpdir(), 'consilium-wiki-codegen-'));
  const sources = [
    ...captures,
    cataloguePath,
    fileURLToPath(new URL('../../sdk/src/wiki/codegen/__fixtures__/edge-cases.json', import.meta.url)),
  ].filter((f) => existsSync(f));
  for (const [i, file] of sources.entries()) {
    const doc = parseParamInfoDocument(JSON.parse(readFileSync(file, 'utf8')));
    const dir = join(scratch, `input${i}`);
    mkdirSync(dir);
    for (const [name, text] of emitModules(doc, { runtimeImport: RUNTIME })) writeFileSync(join(dir, name), text);
    const uses = USES[basename(file)];
    if (uses) writeFileSync(join(dir, 'uses.ts'), uses);
    inputs.push({ file, dir, summary: summarizePlan(planModules(doc)) });
  }
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        lib: ['es2023', 'dom', 'dom.iterable'],
        types: [],
        verbatimModuleSyntax: true,
        isolatedModules: true,
        noEmit: true,
        paths: { [RUNTIME]: [runtimeIndex] },
      },
      include: ['**/*.ts'],
    }),
  );
  writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
  tsc = await promisify(execFile)(TSC, ['-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'], { cwd: scratch }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
  );
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('generated modules compile under strict tsc against the runtime', () => {
  it('with no errors, for every input', () => {
    for (const { file, dir, summary } of inputs) {
      const { list, prop, meta } = summary.groups;
      console.log(
        `codegen-real: ${basename(file)} → ${basename(dir)}: ${summary.modules} modules (list ${list}, prop ${prop}, meta ${meta}), ` +
          `${summary.parameters} parameters + ${summary.templated} templated; skipped ${summary.skipped.length}` +
          (summary.skipped.length ? ` (${summary.skipped.map((s) => s.path).join(', ')})` : ''),
      );
    }
    const errors = tsc.output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors, `tsc found errors:\n${tsc.output}`).toEqual([]);
    expect(tsc.code).toBe(0);
  });

  it('from each real capture, with the modules it describes', () => {
    expect(captures.map((f) => f.slice(conformance.length + 1))).toEqual([
      'paraminfo-mw1.46-main-json.json',
      'paraminfo-mw1.46-query-subset.json',
      'paraminfo-mw1.46-query.json',
    ]);
    const subset = inputs.find((i) => basename(i.file) === 'paraminfo-mw1.46-query-subset.json')!;
    expect(subset.summary.modules).toBe(5);
    expect(readdirSync(subset.dir).sort()).toEqual([
      'alldeletedrevisions.ts',
      'allpages.ts',
      'allrevisions.ts',
      'alltransclusions.ts',
      'categorymembers.ts',
      'index.ts',
      'uses.ts',
    ]);
    const mainJson = inputs.find((i) => basename(i.file) === 'paraminfo-mw1.46-main-json.json');
    if (mainJson) expect(mainJson.summary).toMatchObject({ modules: 0, skipped: [{ path: 'main' }, { path: 'json' }] });
  });
});

describe('npm run generate', () => {
  it('writes every catalogue module under a do-not-edit header', () => {
    const out = join(scratch, 'generated-wiki');
    generateWikiModules(cataloguePath, out);
    const doc = parseParamInfoDocument(JSON.parse(readFileSync(cataloguePath, 'utf8')));
    const expected = emitModules(doc, {
      runtimeImport: '../../wiki/index.js',
      header: doNotEditHeader('catalogue/paraminfo.json via sdk/src/wiki/codegen'),
      rules: JSON.parse(readFileSync(rulesPath, 'utf8')),
    });
    expect(readdirSync(out).sort()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) {
      expect(readFileSync(join(out, name), 'utf8'), name).toBe(text);
      expect(text.split('\n')[0]).toMatch(/^\/\/ Generated by `npm run generate` .* Do not edit/);
    }
    // And the committed copy is that output (generate:check says the same for the whole tree).
    for (const [name, text] of expected) {
      expect(readFileSync(join(repoRoot, 'sdk/src/generated/wiki', name), 'utf8'), name).toBe(text);
    }
  });
});
