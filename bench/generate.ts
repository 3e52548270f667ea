/**
 * `npm run generate` (the full regeneration), wall time of the real command, median of 5; for information the
 * same through `node --import tsx generator/src/cli.ts`. Baselines interleaved in the same run: a bare `node`
 * start, and `node --import tsx` on an empty module. Also checks the output is byte-identical across runs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_FOLDERS } from '../generator/src/generate.js';
import { record, round } from './figures.js';
import { report } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;

function wall(args: string[]): number {
  const start = performance.now();
  execFileSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
  return performance.now() - start;
}

function treeHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else hash.update(path.slice(root.length)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const folder of GENERATED_FOLDERS) walk(join(root, folder));
  return hash.digest('hex');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchGenerate(): Promise<void> {
  console.log(
    `generate: wall time, median of ${RUNS} interleaved runs; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const before = treeHash();
  const node: number[] = [];
  const tsx: number[] = [];
  const generate: number[] = [];
  const viaTsx: number[] = [];
  const hashes = new Set<string>();
  for (let i = 0; i < RUNS; i++) {
    node.push(wall(['-e', '']));
    tsx.push(wall(['--import', 'tsx', '-e', '']));
    generate.push(wall(['generator/run.mjs']));
    hashes.add(treeHash());
    viaTsx.push(wall(['--import', 'tsx', 'generator/src/cli.ts']));
    hashes.add(treeHash());
  }
  const [n, t, g, v] = [median(node), median(tsx), median(generate), median(viaTsx)];
  report('baseline: bare node start', n, 'ms');
  report('baseline: node --import tsx, empty module', t, 'ms', `${(t / n).toFixed(2)}× bare node`);
  report(
    'npm run generate',
    g,
    'ms',
    `${(g / n).toFixed(1)}× bare node, ${(g / t).toFixed(1)}× tsx start; goal < 3000 ms ${g < 3000 ? '(met)' : '(NOT met)'}; runs ${generate.map((x) => x.toFixed(0)).join(' ')}`,
  );
  report('for information: node --import tsx generator/src/cli.ts', v, 'ms', `${(v / g).toFixed(2)}× npm run generate`);
  const identical = hashes.size === 1 && hashes.has(before);
  console.log(`    output byte-identical across the ${2 * RUNS} runs and to the tree before: ${identical ? 'yes' : 'NO'}`);
  console.log(
    `    load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  record({
    id: 'wall',
    label: '`npm run generate`, wall time, median',
    value: Math.round(g),
    unit: 'ms',
    goal: { op: '<', value: 3000 },
  });
  record({ id: 'over-node', label: '`npm run generate` / bare `node` start', value: round(g / n, 1), unit: '×' });
  record({
    id: 'identical',
    label: 'output byte-identical across runs and to the tree (1 = yes)',
    value: identical ? 1 : 0,
    unit: '',
    goal: { op: '=', value: 1 },
  });
  if (!identical) process.exitCode = 1;
}
