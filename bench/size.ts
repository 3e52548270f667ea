/**
 * What the SDK weighs in a consumer's bundle: each case is an entry a consumer might write, bundled by
 * esbuild (minified, ESM, browser platform, tree-shaken) and gzipped (level 9). Goals: one wiki
 * module's builder with `query()` ≤ 5 kB; the debate client with streaming and response validation
 * ≤ 15 kB. Sizes are exact and repeatable (no timing involved); each is also given as a ratio to its goal.
 */

import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import * as modules from '../sdk/src/generated/wiki/index.js';
import type { ModuleSpec } from '../sdk/src/wiki/types.js';
import { record } from './figures.js';
import { report } from './stats.js';

const SDK = new URL('../sdk/src/', import.meta.url).pathname;
const SERVER_SCHEMAS = new URL('../server/src/generated/schemas/zod.gen.ts', import.meta.url).pathname;

interface Measured {
  minified: number;
  gzipped: number;
  /** Minified bytes per source file group, largest first. */
  parts: [string, number][];
}

/**
 * The same exports with no body: each function returns its first argument, each class is an empty
 * `Error`, each constant an empty object. Not runnable; it only shows what a part weighs in a bundle.
 */
function stubOf(file: string): string {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  const exported = (n: ts.Node) =>
    ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const node of sf.statements) {
    if (!exported(node)) continue;
    if (ts.isFunctionDeclaration(node) && node.name) out.push(`export function ${node.name.text}(a) { return a; }`);
    else if (ts.isClassDeclaration(node) && node.name) out.push(`export class ${node.name.text} extends Error {}`);
    else if (ts.isVariableStatement(node))
      for (const d of node.declarationList.declarations)
        if (ts.isIdentifier(d.name)) out.push(`export const ${d.name.text} = {};`);
  }
  return out.join('\n');
}

/** Replaces the given SDK source files (relative to `sdk/src/`) by {@link stubOf} them. */
function stubPlugin(files: readonly string[]): Plugin {
  const paths = new Set(files.map((f) => SDK + f));
  return {
    name: 'stub',
    setup: (b) =>
      b.onLoad({ filter: /\.ts$/ }, (args) => (paths.has(args.path) ? { contents: stubOf(args.path), loader: 'js' } : undefined)),
  };
}

async function measure(source: string, fullZod = false, stubbed: readonly string[] = []): Promise<Measured> {
  const result = await build({
    plugins: [
      // The baseline: the same SDK code validating with the server's full-zod schemas, as the SDK did before zod/mini.
      ...(fullZod
        ? [
            {
              name: 'full-zod',
              setup: (b) => b.onResolve({ filter: /^\.\/zod\.gen\.js$/ }, () => ({ path: SERVER_SCHEMAS })),
            } as Plugin,
          ]
        : []),
      ...(stubbed.length > 0 ? [stubPlugin(stubbed)] : []),
    ],
    stdin: { contents: source, resolveDir: SDK, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs;
  const groups = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    // The wiki runtime by file (what the remaining bytes are); the rest by folder.
    const path = file.replace(/^.*sdk\/src\//, '');
    const group = /node_modules\/zod\//.test(file)
      ? 'zod'
      : path.startsWith('wiki/')
        ? path.replace(/\.ts$/, '')
        : path.replace(/\/[^/]+$/, '/');
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  return {
    minified: code.byteLength,
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    parts: [...groups].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]),
  };
}

const kB = (n: number) => Math.round(n / 10) / 100;

function print(name: string, m: Measured, goalKb?: number, figure?: { id: string; label: string }): void {
  if (figure)
    record({ ...figure, value: kB(m.gzipped), unit: 'kB', ...(goalKb !== undefined && { goal: { op: '≤', value: goalKb } }) });
  const ratio = goalKb
    ? ` = ${(m.gzipped / 1000 / goalKb).toFixed(2)}× the ${goalKb} kB goal${m.gzipped <= goalKb * 1000 ? ' (met)' : ' (NOT met)'}`
    : '';
  report(name, kB(m.gzipped), 'kB gzip', `${kB(m.minified)} kB minified${ratio}`);
  console.log(`    minified by source: ${m.parts.map(([g, n]) => `${g} ${kB(n)}`).join(', ')}`);
}

/** The module whose parameters use the most distinct types (enums counted as one type). */
function richestModule(): { name: string; types: string[] } {
  let best = { name: '', types: [] as string[] };
  for (const [name, value] of Object.entries(modules)) {
    const spec = (value as { spec?: ModuleSpec }).spec;
    if (!spec) continue;
    const types = [...new Set(spec.parameters.map((p) => (typeof p.type === 'string' ? p.type : 'enum')))].sort();
    if (types.length > best.types.length) best = { name, types };
  }
  return best;
}

const specOf = (name: string): ModuleSpec => (modules as unknown as Record<string, { spec: ModuleSpec }>)[name]!.spec;
const typesOf = (spec: ModuleSpec): string[] =>
  [...spec.parameters, ...(spec.templatedparameters ?? [])].map((p) => (typeof p.type === 'string' ? p.type : 'enum'));

/** `list: [a(p)], prop: [b(p), c(p)]`: the modules' uses by group. */
function groupsOf(names: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const m of names) groups.set(specOf(m).group, [...(groups.get(specOf(m).group) ?? []), `${m}(p)`]);
  return [...groups].map(([g, uses]) => `${g}: [${uses.join(', ')}]`).join(', ');
}

/** Every parameter type the catalogue's modules use, sorted. */
function catalogueTypes(): string[] {
  const types = new Set<string>();
  for (const value of Object.values(modules)) {
    const spec = (value as { spec?: ModuleSpec }).spec;
    if (spec) for (const t of typesOf(spec)) types.add(t);
  }
  return [...types].sort();
}

/** `richest`, `revisions` (templated, info, rules), and for each type still missing the first module that has it. */
function everyTypeModules(richest: string): string[] {
  const chosen = [richest, 'revisions'];
  const covered = new Set(chosen.flatMap((m) => typesOf(specOf(m))));
  for (const [name, value] of Object.entries(modules)) {
    const spec = (value as { spec?: ModuleSpec }).spec;
    if (!spec || chosen.includes(name) || chosen.some((m) => specOf(m).group === spec.group && specOf(m).prefix === spec.prefix))
      continue;
    if (typesOf(spec).some((t) => !covered.has(t))) {
      chosen.push(name);
      for (const t of typesOf(spec)) covered.add(t);
    }
  }
  return chosen;
}

/**
 * Where allpages + `query()`'s bytes go: each part stubbed out (its exports kept, its bodies gone), and what
 * that saves. The last row is the request builder with no validation at all: what any validator adds to.
 */
const PARTS: [string, string[], figureId?: string][] = [
  [
    'title parsing (title-part rule, assertuser)',
    ['wiki/validate/title.ts', 'wiki/validate/ip.ts', 'wiki/validate/user.ts'],
    'title-parsing',
  ],
  ['the fast path (the wiki speed goal)', ['wiki/fast-path.ts']],
  [
    'the full path (the ParamValidator port)',
    [
      'wiki/full-path.ts',
      'wiki/validate/core.ts',
      'wiki/validate/typedefs.ts',
      'wiki/validate/numeric.ts',
      'wiki/validate/multi.ts',
      'wiki/validate/text.ts',
    ],
  ],
  ['the module rules', ['wiki/rules.ts']],
];

async function printParts(source: string, whole: Measured): Promise<void> {
  const all: string[] = [];
  for (const [name, files, id] of PARTS) {
    all.push(...files);
    const without = await measure(source, false, files);
    console.log(`    ${name}: ${kB(whole.gzipped - without.gzipped)} kB gzip (${files.join(', ')})`);
    if (id)
      record({
        id,
        label: `wiki: of \`allpages\`, ${name}, gzip`,
        value: kB(whole.gzipped - without.gzipped),
        unit: 'kB',
      });
  }
  const floor = await measure(source, false, all);
  record({
    id: 'allpages-unvalidated',
    label: 'wiki: the same, every validator stubbed out (request building only), gzip',
    value: kB(floor.gzipped),
    unit: 'kB',
  });
  console.log(
    `    left with all of them stubbed (request building, no validation): ${kB(floor.gzipped)} kB gzip, ${kB(floor.minified)} kB minified`,
  );
}

export async function benchSize(): Promise<void> {
  console.log('size: esbuild --bundle --minify (ESM, browser), gzip -9');
  const wiki = (name: string, group: string) =>
    `import { query } from './wiki/index.js';\nimport { ${name} } from './generated/wiki/${name}.js';\nexport const build = (p) => query({ ${group}: [${name}(p)] });\n`;
  const allpages = await measure(wiki('allpages', 'list'));
  print('wiki: allpages builder + query()', allpages, 5, { id: 'allpages', label: 'wiki: `allpages` builder + `query()`, gzip' });
  await printParts(wiki('allpages', 'list'), allpages);
  const rich = richestModule();
  const richGroup = (modules as unknown as Record<string, { spec: ModuleSpec }>)[rich.name]!.spec.group;
  print(
    `wiki: ${rich.name} builder + query() (types: ${rich.types.join(', ')})`,
    await measure(wiki(rich.name, richGroup)),
    undefined,
    { id: 'richest', label: `wiki: \`${rich.name}\` (the most parameter types) + \`query()\`, gzip` },
  );
  // No catalogue module uses every type (`title` only `prop=info`): the fewest modules that do, with
  // templated parameters, `info` conditions and rules too (`prop=revisions`).
  const every = everyTypeModules(rich.name);
  print(
    `wiki: every parameter type (${catalogueTypes().join(', ')}) and feature: ${every.join(' + ')} + query()`,
    await measure(
      `import { query } from './wiki/index.js';\n${every.map((m) => `import { ${m} } from './generated/wiki/${m}.js';`).join('\n')}\n` +
        `export const build = (p) => query({ ${groupsOf(every)} });\n`,
    ),
    undefined,
    { id: 'every-type', label: `wiki: every type and feature (${every.map((m) => `\`${m}\``).join(' + ')}), gzip` },
  );
  // What the validators of the reference implementation that allpages + query() uses weigh on their
  // own, without the request builder, the fast path or any descriptor: a floor for any bundle built on them.
  print(
    'for information: the reference validators alone (validate/core with its core types, user, title, ip)',
    await measure(
      "export { validateParam } from './wiki/validate/core.js';\nexport { userDef } from './wiki/validate/user.js';\n",
    ),
    undefined,
    { id: 'validators', label: 'wiki: the reference validators alone, gzip' },
  );
  const debate =
    "export { createConsiliumClient } from './client.js';\nexport { streamDeepDebate } from './generated/sdk.gen.js';\n";
  const baseline = await measure(debate, true);
  print('baseline: the same debate client with full zod', baseline);
  const mini = await measure(debate);
  print('debate client: createConsiliumClient + streamDeepDebate (zod/mini validation)', mini, 15, {
    id: 'debate-client',
    label: 'debate client (`createConsiliumClient` + `streamDeepDebate`), gzip',
  });
  console.log(`    ${(mini.gzipped / baseline.gzipped).toFixed(2)}× the full-zod baseline`);
  print(
    'facade: Consilium (every operation, validated)',
    await measure("export { Consilium } from './facade/consilium.js';\n"),
    undefined,
    {
      id: 'facade',
      label: 'the whole `Consilium` facade, gzip',
    },
  );
}
