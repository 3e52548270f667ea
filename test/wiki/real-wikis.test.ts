/**
 * The generator on the paraminfo real wikis publish (`test/fixtures/wiki/`, sources in its README):
 * MediaWiki 1.39 with Debian's bundled extensions and every action module, every query module of stock
 * 1.40, 1.43 and 1.46 (copied by hand from a published capture, so checked against themselves and against the
 * team's own 1.46 capture), 1.46's query and main modules, and www.mediawiki.org (1.47.0-wmf) with its
 * Wikimedia extensions. Each is read (without a
 * failure, saying what it leaves out), checked against `catalogue/paraminfo.schema.json`, generated,
 * compiled by `tsc` under `strict` and `exactOptionalPropertyTypes` against the real runtime, and
 * each of its query modules builds one query. Shapes newer releases use (a list as a default, `[]`,
 * a type no release documents, keys the generator does not read) are checked on documents made like them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParamInfoDocument, parseParamInfoDocument } from '../../sdk/src/wiki/codegen/document.js';
import { emitModules, planModules, USED_MODULE_KEYS, USED_PARAMETER_KEYS } from '../../sdk/src/wiki/codegen/emit.js';
import { query } from '../../sdk/src/wiki/query.js';
import type { ModuleSpec, ParamInfo } from '../../sdk/src/wiki/types.js';
import { readCapture } from './fixtures/captures.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = resolve(repoRoot, 'test/fixtures/wiki');
const runtime = join(repoRoot, 'sdk/src/wiki/index.ts');
const TSC = join(repoRoot, 'node_modules/.bin/tsc');

/** Every paraminfo capture of a real wiki in the fixtures, with what it must hold. */
const CAPTURES: Record<string, { queryModules: number; skipped: number; whole?: true }> = {
  'paraminfo-mediawikiwiki-1.47-subset.json': { queryModules: 11, skipped: 13 },
  'paraminfo-mw1.39-extensions-all.json.gz': { queryModules: 69, skipped: 65, whole: true },
  'paraminfo-mw1.40-query.json': { queryModules: 62, skipped: 1, whole: true },
  'paraminfo-mw1.43-query.json': { queryModules: 62, skipped: 1, whole: true },
  'paraminfo-mw1.46-query.json': { queryModules: 64, skipped: 1, whole: true },
  'paraminfo-mw1.46-main-json.json': { queryModules: 0, skipped: 2 },
  'paraminfo-mw1.46-query-subset.json': { queryModules: 5, skipped: 1 },
};

/** What `query()` itself sends, beside the modules' own parameters. */
const QUERY_KEYS = new Set(['action', 'format', 'formatversion', 'titles', 'errorformat', 'utf8']);

/** A value of a required parameter that MediaWiki accepts, as the typed builder takes it. */
function sample(p: ParamInfo): unknown {
  const one = (): unknown => {
    if (Array.isArray(p.type)) return p.type[0];
    switch (p.type) {
      case 'integer':
      case 'namespace':
        return typeof p.min === 'number' ? Math.max(p.min, 1) : 1;
      case 'limit':
        return 1;
      case 'boolean':
        return true;
      case 'timestamp':
        return '2024-01-01T00:00:00Z';
      case 'user':
        return 'Example';
      case 'expiry':
        return 'infinite';
      default:
        return 'Apple';
    }
  };
  return p.multi ? [one()] : one();
}

interface Generated {
  file: string;
  doc: ParamInfoDocument;
  warnings: string[];
  dir: string;
  files: Map<string, string>;
}

let scratch: string;
const generated: Generated[] = [];
let tsc: { code: number; output: string };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'consilium-real-wikis-'));
  const files = readdirSync(fixtures).filter((f) => /^paraminfo-.*\.json(\.gz)?$/.test(f));
  expect(files.sort()).toEqual(Object.keys(CAPTURES).sort());
  for (const [i, file] of files.entries()) {
    const warnings: string[] = [];
    const doc = parseParamInfoDocument(readCapture(file), { warnings });
    const dir = join(scratch, `wiki${i}`);
    mkdirSync(dir);
    const emitted = emitModules(doc, { runtimeImport: runtime.replace(/\.ts$/, '.js') });
    for (const [name, text] of emitted) writeFileSync(join(dir, name), text);
    generated.push({ file, doc, warnings, dir, files: emitted });
  }
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        lib: ['es2023', 'dom'],
        types: [],
        allowImportingTsExtensions: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
    }),
  );
  writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
  tsc = await promisify(execFile)(TSC, ['-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'], { cwd: scratch }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
  );
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('real wikis’ paraminfo', () => {
  it('is read whole, and the schema accepts it', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const validate = ajv.compile(JSON.parse(readFileSync(join(repoRoot, 'catalogue/paraminfo.schema.json'), 'utf8')));
    for (const { file, doc, warnings } of generated) {
      const expected = CAPTURES[file]!;
      const plan = planModules(doc);
      expect(plan.modules.length, file).toBe(expected.queryModules);
      expect(plan.skipped.length, file).toBe(expected.skipped);
      // Nothing in these captures is of a shape the reader leaves out.
      expect(warnings, file).toEqual([]);
      const raw = readCapture(file);
      expect(validate(raw), `${file}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
  });

  it('holds, when whole, every query module its `query` module lists, and exactly the generators it lists', () => {
    for (const { file, doc } of generated.filter((g) => CAPTURES[g.file]!.whole)) {
      const query = doc.paraminfo.modules.find((m) => m.path === 'query')!;
      const listed = (name: string) =>
        Object.values(
          (query.parameters.find((p) => p.name === name) as { submodules?: Record<string, string> }).submodules ?? {},
        );
      const modules = doc.paraminfo.modules.filter((m) => m.path.startsWith('query+'));
      expect(modules.map((m) => m.path).sort(), file).toEqual([...listed('prop'), ...listed('list'), ...listed('meta')].sort());
      expect(
        modules
          .filter((m) => m.generator)
          .map((m) => m.path)
          .sort(),
        file,
      ).toEqual(listed('generator').sort());
      for (const m of modules) {
        // Indices are 1…n over parameters and templated parameters together, as ApiParamInfo numbers them.
        const indices = [...m.parameters, ...(m.templatedparameters ?? [])].map((p) => p.index ?? 0).sort((a, b) => a - b);
        expect(indices, `${file} ${m.path}`).toEqual(indices.map((_, i) => i + 1));
      }
    }
  });

  it('copied by hand, agrees parameter for parameter with the independent 1.46 capture on the modules both hold', () => {
    const byHand = generated.find((g) => g.file === 'paraminfo-mw1.46-query.json')!.doc.paraminfo.modules;
    const shared = generated.find((g) => g.file === 'paraminfo-mw1.46-query-subset.json')!.doc.paraminfo.modules;
    expect(shared.length).toBe(6);
    for (const module of shared) {
      const copy = byHand.find((m) => m.path === module.path)!;
      expect(Object.keys(copy), module.path).toEqual(Object.keys(module));
      expect(copy.parameters, module.path).toEqual(module.parameters);
      expect(copy.templatedparameters, module.path).toEqual(module.templatedparameters);
    }
  });

  it('generates modules that compile under strict and exactOptionalPropertyTypes', () => {
    const errors = tsc.output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors, tsc.output).toEqual([]);
    expect(tsc.code).toBe(0);
  });

  it('builds one query per module, sent the way the module requires', async () => {
    let built = 0;
    for (const { file, dir, doc } of generated) {
      for (const { identifier, module, group } of planModules(doc).modules) {
        const exported = (await import(pathToFileURL(join(dir, `${identifier}.ts`)).href))[identifier] as ((
          params: Record<string, unknown>,
        ) => { spec: ModuleSpec }) & { spec: ModuleSpec };
        const params = Object.fromEntries(module.parameters.filter((p) => p.required).map((p) => [p.name, sample(p)]));
        const q = query({ ...(group === 'prop' ? { titles: ['Apple'] } : {}), [group]: [exported(params)] });
        expect(q.params[group], `${file} ${module.path}`).toBe(module.name);
        // Every other parameter the builder sends is one this module's paraminfo documents, under its prefix.
        const documented = new Set(module.parameters.map((p) => `${module.prefix}${p.name}`));
        for (const key of Object.keys(q.params)) {
          if (QUERY_KEYS.has(key) || key === group) continue;
          expect(documented.has(key), `${file} ${module.path}: ${key}`).toBe(true);
        }
        for (const name of Object.keys(params))
          expect(q.params, `${file} ${module.path}`).toHaveProperty(`${module.prefix}${name}`);
        expect(q.method, `${file} ${module.path}`).toBe(module.mustbeposted ? 'POST' : 'GET');
        built++;
      }
    }
    expect(built).toBe(Object.values(CAPTURES).reduce((n, c) => n + c.queryModules, 0));
  });

  it('uses every key of a module, or names it in the index as not used', () => {
    for (const { file, doc, files } of generated) {
      const index = files.get('index.ts')!;
      const listed = (what: string) => new RegExp(`^// ${what} keys not used: (.*)\\.$`, 'm').exec(index)?.[1]?.split(', ') ?? [];
      for (const { module } of planModules(doc).modules) {
        for (const key of Object.keys(module)) {
          expect(USED_MODULE_KEYS.has(key) || listed('Module').includes(key), `${file} ${module.path}: ${key}`).toBe(true);
        }
        for (const p of [...module.parameters, ...(module.templatedparameters ?? [])]) {
          for (const key of Object.keys(p)) {
            expect(USED_PARAMETER_KEYS.has(key) || listed('Parameter').includes(key), `${file} ${module.path}: ${key}`).toBe(
              true,
            );
          }
        }
      }
    }
    const org = generated.find((g) => g.file.startsWith('paraminfo-mediawikiwiki'))!;
    expect(org.files.get('index.ts')).toContain('// Module keys not used: classname, licenselink, licensetag, source.');
    expect(org.files.get('info.ts')).toContain('Needs the read right');
  });
});

describe('shapes of newer releases', () => {
  const module = (parameters: object[]) => ({
    paraminfo: { modules: [{ name: 'x', path: 'query+x', group: 'prop', prefix: 'x', parameters }] },
  });

  it('a list as a default (CirrusSearch’s builders) and `[]` (Translate’s grouptypes) are the request’s defaults', () => {
    const warnings: string[] = [];
    const doc = parseParamInfoDocument(
      module([
        { index: 1, name: 'builders', type: ['content', 'links'], default: ['content', 'links'], multi: true, required: false },
        { index: 2, name: 'grouptypes', type: ['a', 'b'], default: [], multi: true, required: false },
        { index: 3, name: 'odd', type: 'string', default: { nested: true }, multi: false, required: false },
      ]),
      { warnings },
    );
    const [builders, grouptypes, odd] = doc.paraminfo.modules[0]!.parameters;
    expect(builders?.default).toBe('content|links');
    expect(grouptypes?.default).toBe('');
    expect(odd?.default).toBeUndefined();
    expect(warnings).toEqual([
      'a default of a shape the request cannot carry; left out: modules[0] (query+x).parameters[2] (odd) ({"nested":true})',
    ]);
    const text = emitModules(doc, { runtimeImport: '@consilium/sdk/wiki' }).get('x.ts')!;
    expect(text).toContain("@defaultValue `['content', 'links']`");
  });

  it('a type no release documents is a documented string parameter, with one warning', () => {
    const warnings: string[] = [];
    const doc = parseParamInfoDocument(
      module([
        { index: 1, name: 'when', type: 'futuretime', multi: false, required: false },
        { index: 2, name: 'until', type: 'futuretime', multi: false, required: false },
      ]),
      { warnings },
    );
    expect(warnings).toEqual([
      'type "futuretime" is not one MediaWiki documents; read as a string: modules[0] (query+x).parameters[0] (when) (and 1 more)',
    ]);
    const text = emitModules(doc, { runtimeImport: '@consilium/sdk/wiki' }).get('x.ts')!;
    expect(text).toContain('  when?: string;');
    expect(text).toContain('`xwhen` (futuretime).');
  });

  it('a parameter or module that cannot be used is left out with a warning, never a failure', () => {
    const warnings: string[] = [];
    const doc = parseParamInfoDocument(
      {
        modules: [
          {
            name: 'x',
            path: 'query+x',
            group: 'list',
            prefix: 'x',
            parameters: [{ type: 'string' }, { name: 'p', type: 'limit', max: 'big' }],
          },
          { name: 'x', path: 'query+x', group: 'list', prefix: 'y', parameters: [] },
          'nonsense',
        ],
      },
      { warnings },
    );
    expect(doc.paraminfo.modules.map((m) => m.prefix)).toEqual(['x']);
    expect(doc.paraminfo.modules[0]!.parameters).toEqual([{ name: 'p', type: 'limit' }]);
    expect(warnings).toEqual([
      'a parameter without a name; left out: modules[0] (query+x).parameters[0]',
      'max is not a number; left out: modules[0] (query+x).parameters[1] (p) ("big")',
      'a module given twice; the second left out: modules[1] (query+x)',
      'a module that is not an object; left out: modules[2]',
    ]);
  });
});
