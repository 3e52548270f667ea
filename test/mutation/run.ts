/**
 * `npm run mutate [folder…]`: StrykerJS over each folder of `folders.ts` in turn (all by default),
 * one mutant at a time (`concurrency: 1`: the machine is shared), incremental (a rerun tests only
 * mutants whose code or tests changed), then the mutation score of each folder and how long it took.
 * Reports: `reports/mutation/<folder>.json` (mutation-testing-report-schema) and `.html`; a whole folder's
 * score also goes to `bench/results/mutation.json`, which READMEs quote (`npm run bench -- --update-readme`), and so does
 * a partial run's, under its own id (`engine.part-adaptive+integrity`), never over the whole folder's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';
import { FOLDERS } from './folders.js';

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

/** A folder's score as `bench/results/mutation.json` keeps it (the shape of `bench/figures.ts`' figures). */
interface ScoreFigure {
  id: string;
  label: string;
  value: number;
  unit: '%';
  goal: { op: '≥'; value: 85 };
  met: boolean;
  measured: string;
}

function recordScore(folder: string, score: number, detected: number, valid: number, seconds: number): void {
  const path = 'bench/results/mutation.json';
  const results = JSON.parse(readFileSync(path, 'utf8')) as { figures: ScoreFigure[] };
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const day = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const figure: ScoreFigure = {
    id: folder,
    label: `\`${folder}\``,
    value: Number(score.toFixed(2)),
    unit: '%',
    goal: { op: '≥', value: 85 },
    met: score >= 85,
    measured: `${day} UTC at \`${commit}\`, ${detected} of ${valid}, ${seconds} s, load ${loadavg()[0]!.toFixed(1)}`,
  };
  const at = results.figures.findIndex((f) => f.id === folder);
  if (at >= 0) results.figures[at] = { ...figure, label: results.figures[at]!.label };
  else results.figures.push(figure);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

const base = JSON.parse(readFileSync('test/mutation/stryker.config.json', 'utf8')) as Record<string, unknown>;
delete base.$schema;
// `folder`, or `folder=file,file` to mutate only those files of the folder (a partial run).
const picked = process.argv.slice(2).map((arg) => {
  const [name = '', only] = arg.split('=');
  if (!(name in FOLDERS)) throw new Error(`No folder "${name}"; choose from ${Object.keys(FOLDERS).join(', ')}`);
  return { name, only: only?.split(',') };
});
const rows: string[] = [];
let failed = false;
for (const { name, only } of picked.length > 0 ? picked : Object.keys(FOLDERS).map((name) => ({ name, only: undefined }))) {
  const folder = { ...FOLDERS[name]!, ...(only && { mutate: only }) };
  const started = Date.now();
  // One configuration per folder: the shared settings plus what to mutate and where its reports go.
  // A partial run keeps reports of its own (named by its files), so it never overwrites the whole
  // folder's or another part's: a folder too slow for one sitting can be measured part by part.
  const label = only ? `${name}.part-${only.map((f) => basename(f, '.ts')).join('+')}` : name;
  mkdirSync('reports/mutation', { recursive: true });
  const config = `reports/mutation/${label}.stryker.json`;
  writeFileSync(
    config,
    JSON.stringify({
      ...base,
      mutate: folder.mutate,
      incrementalFile: `reports/mutation/${label}.incremental.json`,
      jsonReporter: { fileName: `reports/mutation/${label}.json` },
      htmlReporter: { fileName: `reports/mutation/${label}.html` },
    }),
  );
  // CONSILIUM_MUTATE_IGNORE_STATIC=1: leave out static mutants (those that run while tests load or a
  // server starts, each of which reruns every test); they are then counted as not valid, so say so.
  // CONSILIUM_MUTATE_FORCE=1: test every mutant again. Incremental mode reuses a static mutant's result even when
  // tests were added or changed (it is covered by no test in particular, so none counts as new for it).
  const args = [
    'stryker',
    'run',
    config,
    ...(process.env.CONSILIUM_MUTATE_IGNORE_STATIC === '1' ? ['--ignoreStatic'] : []),
    ...(process.env.CONSILIUM_MUTATE_FORCE === '1' ? ['--force'] : []),
  ];
  const run = spawnSync('npx', args, {
    stdio: 'inherit',
    env: { ...process.env, ...folder.env, CONSILIUM_MUTATE_TESTS: folder.tests.join(',') },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (run.status !== 0) {
    failed = true;
    rows.push(`${label.padEnd(10)} Stryker exited with ${run.status} after ${seconds} s`);
    continue;
  }
  const report = JSON.parse(readFileSync(`reports/mutation/${label}.json`, 'utf8')) as Report;
  const count = { detected: 0, undetected: 0, other: 0 };
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (DETECTED.has(m.status)) count.detected++;
      else if (UNDETECTED.has(m.status)) count.undetected++;
      else count.other++;
    }
  }
  const score = (100 * count.detected) / Math.max(1, count.detected + count.undetected);
  recordScore(label, score, count.detected, count.detected + count.undetected, seconds);
  rows.push(
    `${label.padEnd(10)} ${score.toFixed(2).padStart(6)} %  killed ${count.detected}, survived ${count.undetected}, ` +
      `not valid ${count.other}  (${seconds} s)`,
  );
}
console.log('\nMutation score per folder (killed or timed out / valid mutants):');
for (const row of rows) console.log(`  ${row}`);
if (failed) process.exitCode = 1;
