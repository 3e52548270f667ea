import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseParamInfoDocument } from '../../sdk/src/wiki/codegen/document.js';
import { emitModules } from '../../sdk/src/wiki/codegen/emit.js';
import type { RuleTable } from '../../sdk/src/wiki/rules.js';
import { contractPath, doNotEditHeader, loadContract } from './contract.js';
import { generatePathTypes } from './paths.js';
import { markZodCallsPure } from './pure.js';
import { emitRoutes } from './routes.js';
import { type HeyApiWorker, startHeyApi, withTypedStreams } from './sdk.js';

/** Every folder that generation owns, relative to the repository root. */
export const GENERATED_FOLDERS = ['sdk/src/generated', 'server/src/generated', 'test/generated'] as const;

/** The wiki's paraminfo: the source of the typed query modules in `sdk/src/generated/wiki/`. */
export const cataloguePath = fileURLToPath(new URL('../../catalogue/paraminfo.json', import.meta.url));
/** Core modules' request-only rules, beside the catalogue. */
export const rulesPath = fileURLToPath(new URL('../../catalogue/rules.json', import.meta.url));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** hey-api's output file at `path`, passed through `change`. */
function rewrite(path: string, change: (text: string) => string): void {
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}

/** Writes all generated code under `root` (the repository, or a scratch copy of its layout). */
export async function generateAll(
  root: string,
  contractFile = contractPath,
  catalogueFile = cataloguePath,
  /** hey-api's worker, if started already (`generator/run.mjs` starts it before loading tsx). */
  heyApiWorker: HeyApiWorker = startHeyApi(),
): Promise<readonly string[]> {
  // hey-api (most of the time, mainly its import) runs in a worker, spawned before anything else so
  // its import overlaps the main thread's: parsing the contract once, then the routes, paths and wiki modules.
  let heyApi: Promise<void> | undefined;
  try {
    for (const folder of GENERATED_FOLDERS) rmSync(join(root, folder), { recursive: true, force: true });
    const doc = loadContract(contractFile);
    heyApi = heyApiWorker.run(doc, join(root, 'sdk/src/generated'), join(root, 'server/src/generated/schemas'));
    heyApi.catch(() => {}); // awaited below; no unhandled rejection while the main thread works
    write(join(root, 'server/src/generated/routes.ts'), emitRoutes(doc, './schemas/zod.gen.js'));
    write(join(root, 'test/generated/openapi-paths.ts'), await generatePathTypes(structuredClone(doc)));
    const wiki = emitWikiModules(catalogueFile);
    // hey-api empties its output folder, so the wiki modules, which live inside it, are written after.
    await heyApi;
    // The default client's streams fail as createConsiliumClient's do.
    rewrite(join(root, 'sdk/src/generated/client.gen.ts'), withTypedStreams);
    // The SDK's schemas, tree-shakable by any bundler: a consumer's bundle keeps only the schemas it uses.
    rewrite(join(root, 'sdk/src/generated/zod.gen.ts'), markZodCallsPure);
    for (const [file, text] of wiki) write(join(root, 'sdk/src/generated/wiki', file), text);
    write(join(root, 'sdk/src/generated/wiki-rules.ts'), emitWikiRules());
  } finally {
    if (heyApi === undefined) heyApiWorker.stop();
  }
  return GENERATED_FOLDERS;
}

/** One file per `query+*` module of the catalogue, importing the handwritten runtime in `sdk/src/wiki/`. */
function emitWikiModules(catalogueFile: string): [string, string][] {
  const warnings: string[] = [];
  const catalogue = parseParamInfoDocument(JSON.parse(readFileSync(catalogueFile, 'utf8')), { warnings });
  // The catalogue is this repository's own: anything the reader would leave out is a mistake in it.
  if (warnings.length > 0) throw new Error(`${catalogueFile}: ${warnings.join('; ')}`);
  const header = doNotEditHeader('catalogue/paraminfo.json via sdk/src/wiki/codegen');
  const rules = JSON.parse(readFileSync(rulesPath, 'utf8')) as RuleTable;
  return [...emitModules(catalogue, { runtimeImport: '../../wiki/index.js', header, rules })];
}

/**
 * The rules table as a module of the SDK (`moduleRules`), so `consilium-wiki generate` applies the same
 * rules to other wikis' paraminfo: `catalogue/` is not part of the package.
 */
export function emitWikiRules(file = rulesPath): string {
  const { mediawiki, modules } = JSON.parse(readFileSync(file, 'utf8')) as RuleTable;
  const table: RuleTable = { ...(mediawiki !== undefined && { mediawiki }), modules };
  return [
    ...doNotEditHeader('catalogue/rules.json'),
    // Only the shapes: `src/wiki/` reads this table (defineModule's default), so it imports nothing else of the runtime.
    "import type { RuleTable } from '../wiki/types.js';",
    '',
    "/** Core modules' request-only rules (see `catalogue/rules.json`), matched per module by `rulesFor`. */",
    `export const moduleRules: RuleTable = ${JSON.stringify(table, null, 2)};`,
    '',
  ].join('\n');
}

export function generateWikiModules(catalogueFile: string, outDir: string): void {
  for (const [file, text] of emitWikiModules(catalogueFile)) write(join(outDir, file), text);
}
