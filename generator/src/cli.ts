/**
 * `npm run generate` writes every generated file; `npm run generate -- --check` (alias
 * `generate:check`) regenerates into a temporary folder and fails on any difference.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function listFiles(dir: string): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Compares two generated trees; returns one line per difference. */
export function compareTrees(expectedRoot: string, actualRoot: string, folders: readonly string[]): string[] {
  const problems: string[] = [];
  for (const folder of folders) {
    const expected = new Set(listFiles(join(expectedRoot, folder)).map((f) => relative(expectedRoot, f)));
    const actual = new Set(listFiles(join(actualRoot, folder)).map((f) => relative(actualRoot, f)));
    for (const file of expected) {
      if (!actual.has(file)) problems.push(`missing: ${file}`);
      else if (readFileSync(join(expectedRoot, file), 'utf8') !== readFileSync(join(actualRoot, file), 'utf8')) {
        problems.push(`stale:   ${file}`);
      }
    }
    for (const file of actual) if (!expected.has(file)) problems.push(`extra:   ${file}`);
  }
  return problems.sort();
}

/**
 * `npm run generate [-- --check] [--contract file]`; returns the exit code. `heyApi` is hey-api's
 * worker when `generator/run.mjs` spawned it before loading tsx; the generator itself is imported
 * only now, so that a worker spawned here starts before the generator's modules load.
 */
export async function main(args: string[], heyApi?: Worker): Promise<number> {
  const { startHeyApi } = await import('./sdk.js');
  const worker = startHeyApi(heyApi);
  const { generateAll } = await import('./generate.js');
  const check = args.includes('--check');
  const contractIndex = args.indexOf('--contract');
  const contract = contractIndex >= 0 ? args[contractIndex + 1] : undefined;
  if (!check) {
    const folders = await generateAll(repoRoot, contract, undefined, worker);
    console.log(`generated: ${folders.join(', ')}`);
    return 0;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'consilium-generate-'));
  try {
    const folders = await generateAll(scratch, contract, undefined, worker);
    const problems = compareTrees(scratch, repoRoot, folders);
    if (problems.length === 0) {
      console.log(`generate:check: ${folders.length} generated folders are up to date`);
      return 0;
    }
    console.error(
      `generate:check: generated code is out of date; run \`npm run generate\` and commit:\n  ${problems.join('\n  ')}`,
    );
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
