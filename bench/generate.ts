/**
 * `npm run generate` (the full regeneration), wall time of the real command, median of 5; for information the
 * same through `node --import tsx generator/src/cli.ts`. Baselines interleaved in the same run: a bare `node`
 * start, and `node --import tsx` on an empty module. Also checks the output is byte-identical across runs.
 *
 * Then `consilium-wiki generate` on the largest real wiki captured (`test/fixtures/wiki/`: MediaWiki 1.39 with
 * its bundled extensions and every action module) against the same on the 69-module catalogue, interleaved: the
 * CLI's wall time (goal < 3 s) and `tsc --noEmit` on what it wrote (strict), each as a ratio to the catalogue's.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
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
  benchRealWiki();
}

/** The largest capture in the fixtures, by module count (the one a user's biggest wiki is most like). */
function largestCapture(): { file: string; modules: number; json: string } {
  const dir = join(root, 'test/fixtures/wiki');
  let best: { file: string; modules: number; json: string } | undefined;
  for (const file of readdirSync(dir).filter((f) => /^paraminfo-.*\.json(\.gz)?$/.test(f))) {
    const bytes = readFileSync(join(dir, file));
    const json = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    const modules = (JSON.parse(json) as { paraminfo: { modules: unknown[] } }).paraminfo.modules.length;
    if (!best || modules > best.modules) best = { file, modules, json };
  }
  return best!;
}

function benchRealWiki(): void {
  const scratch = mkdtempSync(join(tmpdir(), 'consilium-bench-wiki-'));
  try {
    const capture = largestCapture();
    const input = join(scratch, 'capture.json');
    writeFileSync(input, capture.json);
    const runtime = join(root, 'sdk/src/wiki/index.js');
    const cli = [
      '--import',
      'tsx',
      join(root, 'sdk/src/wiki/codegen/cli.ts'),
      'generate',
      '--runtime-import',
      runtime,
      '--ext',
      'ts',
    ];
    const tsconfig = (dir: string) => {
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            exactOptionalPropertyTypes: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2023',
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          include: ['*.ts'],
        }),
      );
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    };
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const gen = { capture: [] as number[], catalogue: [] as number[] };
    const check = { capture: [] as number[], catalogue: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      for (const [which, source] of [
        ['catalogue', join(root, 'catalogue/paraminfo.json')],
        ['capture', input],
      ] as const) {
        const out = join(scratch, `${which}-${i}`);
        gen[which].push(wall([...cli, '--catalogue', source, '--out', out]));
        tsconfig(out);
        check[which].push(wall([tsc, '-p', join(out, 'tsconfig.json')]));
      }
    }
    const [g, gc, t, tc] = [median(gen.capture), median(gen.catalogue), median(check.capture), median(check.catalogue)];
    console.log(`  largest capture: ${capture.file} (${capture.modules} modules)`);
    report(
      'consilium-wiki generate, largest captured wiki',
      g,
      'ms',
      `${(g / gc).toFixed(2)}× the 69-module catalogue (${gc.toFixed(0)} ms); goal < 3000 ms ${g < 3000 ? '(met)' : '(NOT met)'}`,
    );
    report('tsc --noEmit on its output (strict)', t, 'ms', `${(t / tc).toFixed(2)}× the catalogue's (${tc.toFixed(0)} ms)`);
    record({
      id: 'real-wiki',
      label: '`consilium-wiki generate`, largest captured wiki (1.39 + extensions, every module), wall time, median',
      value: Math.round(g),
      unit: 'ms',
      goal: { op: '<', value: 3000 },
    });
    record({
      id: 'real-wiki-over-catalogue',
      label: 'the same / on the 69-module catalogue',
      value: round(g / gc, 2),
      unit: '×',
    });
    record({ id: 'real-wiki-tsc', label: '`tsc --noEmit` (strict) on its output, median', value: Math.round(t), unit: 'ms' });
    record({
      id: 'real-wiki-tsc-over-catalogue',
      label: "the same / on the catalogue's output",
      value: round(t / tc, 2),
      unit: '×',
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
