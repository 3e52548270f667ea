/**
 * The figures READMEs state, kept in one place: each run of a benchmark records its headline figures in
 * `bench/results/<bench>.json`, and READMEs show them only through the marked places this module renders,
 * so a README never states a figure no recorded run produced (`figures.test.ts` checks it).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type GoalOp = '≤' | '<' | '≥' | '=';

export interface Figure {
  /** Stable key, referenced from READMEs as `<bench>/<id>`. */
  id: string;
  label: string;
  value: number;
  unit: string;
  goal?: { op: GoalOp; value: number };
  /** Whether `value` meets `goal`, written beside it for readers of the file (`meets` decides). */
  met?: boolean;
  /** When this figure was measured apart from the rest of its run (a mutation folder's own run). */
  measured?: string;
}

export interface Run {
  bench: string;
  command: string;
  /** ISO date of the run (for figures carried over: of the run they come from). */
  date: string;
  node: string;
  machine: string;
  /** Load average (1, 5, 15 min) when the run ended, or the range a carried-over run noted. */
  load: string;
  /** Set when the figures were not measured by this command but copied from where they were stated. */
  carriedOver?: string;
  figures: Figure[];
}

const RESULTS_DIR = new URL('./results/', import.meta.url);

export function meets(value: number, goal: NonNullable<Figure['goal']>): boolean {
  switch (goal.op) {
    case '≤':
      return value <= goal.value;
    case '<':
      return value < goal.value;
    case '≥':
      return value >= goal.value;
    case '=':
      return value === goal.value;
  }
}

/** `n` to `digits` decimals, as a recorded figure keeps it. */
export const round = (n: number, digits: number): number => Number(n.toFixed(digits));

let recorded: Figure[] = [];

/** Called by a benchmark for each figure it reports with a goal, or a README quotes. */
export function record(figure: Figure): void {
  recorded.push(figure);
}

/** The figures recorded since the last call, as the run of `bench` by `command`. */
export function takeRun(bench: string, command: string): Run {
  const figures = recorded.map((f) => (f.goal ? { ...f, met: meets(f.value, f.goal) } : f));
  recorded = [];
  return {
    bench,
    command,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    node: process.version,
    machine: `${process.platform}/${process.arch}, ${cpus().length} cores`,
    load: loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    figures,
  };
}

export function writeRun(run: Run): void {
  writeFileSync(new URL(`${run.bench}.json`, RESULTS_DIR), `${JSON.stringify(run, null, 2)}\n`);
}

export function readRuns(): Map<string, Run> {
  const runs = new Map<string, Run>();
  for (const file of readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const run = JSON.parse(readFileSync(new URL(file, RESULTS_DIR), 'utf8')) as Run;
    runs.set(run.bench, run);
  }
  return runs;
}

const formatValue = (f: Figure, digits?: number): string => (digits === undefined ? String(f.value) : f.value.toFixed(digits));

const withUnit = (text: string, unit: string): string => (unit === '×' ? `${text}×` : unit === '' ? text : `${text} ${unit}`);

function when(run: Run, f: Figure): string {
  if (f.measured) return f.measured;
  const date = new Date(run.date);
  const day = date.toLocaleString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const time = date.toISOString().slice(11, 16);
  return `${day} ${time} UTC, load ${run.load}${run.carriedOver ? ', carried over' : ''}`;
}

function verdict(f: Figure): string {
  if (!f.goal) return '—';
  return meets(f.value, f.goal) ? 'met' : '**not met**';
}

/** The figures table of `bench/README.md`: one row per recorded figure, benches in `order`. */
function renderTable(runs: Map<string, Run>, order: readonly string[]): string {
  const rows = ['| Bench | Figure | Goal | Latest | Met | Measured |', '| --- | --- | --- | --- | --- | --- |'];
  const names = [...order.filter((n) => runs.has(n)), ...[...runs.keys()].filter((n) => !order.includes(n)).sort()];
  for (const name of names) {
    const run = runs.get(name)!;
    for (const f of run.figures) {
      const goal = f.goal ? withUnit(`${f.goal.op} ${f.goal.value}`, f.unit) : '—';
      rows.push(`| \`${name}\` | ${f.label} | ${goal} | ${withUnit(formatValue(f), f.unit)} | ${verdict(f)} | ${when(run, f)} |`);
    }
  }
  return rows.join('\n');
}

const TABLE = /(<!-- figures:begin -->\n)(?:[\s\S]*?\n)?(<!-- figures:end -->)/g;
// `<!-- figure size/allpages 1 -->13.1<!-- /figure -->`: the figure's value, to 1 decimal if a digit count is given.
const INLINE = /<!-- figure ([\w-]+)\/([\w-]+)(?: (\d))? -->[^<]*<!-- \/figure -->/g;

/** `text` with its figures table and every inline figure rendered from `runs`; throws on an unknown figure. */
export function renderReadme(text: string, runs: Map<string, Run>, order: readonly string[]): string {
  return text
    .replace(TABLE, (_, begin: string, end: string) => `${begin}${renderTable(runs, order)}\n${end}`)
    .replace(INLINE, (_, bench: string, id: string, digits?: string) => {
      const f = runs.get(bench)?.figures.find((x) => x.id === id);
      if (!f) throw new Error(`No recorded figure ${bench}/${id} (bench/results/${bench}.json)`);
      const value = formatValue(f, digits === undefined ? undefined : Number(digits));
      return `<!-- figure ${bench}/${id}${digits === undefined ? '' : ` ${digits}`} -->${value}<!-- /figure -->`;
    });
}

/** READMEs that state recorded figures, from the repository's root. */
export const READMES = [
  'README.md',
  'bench/README.md',
  'sdk/README.md',
  'openapi/README.md',
  'test/README.md',
  'test/mutation/README.md',
  'web/README.md',
  'server/README.md',
];

/** The order of the benches in the table: as `npm run bench` runs them, then the other recorded figures. */
export const TABLE_ORDER = [
  'http',
  'wiki',
  'debate',
  'sessions',
  'size',
  'providers',
  'ui',
  'generate',
  'openapi',
  'postgres',
  'flood',
  'mutation',
];

/** Rewrites each README's figures from the recorded runs; returns the READMEs that changed. */
export function updateReadmes(root: URL = new URL('../', import.meta.url)): string[] {
  const runs = readRuns();
  const changed: string[] = [];
  for (const path of READMES) {
    const file = join(fileURLToPath(root), path);
    const text = readFileSync(file, 'utf8');
    const next = renderReadme(text, runs, TABLE_ORDER);
    if (next !== text) {
      writeFileSync(file, next);
      changed.push(path);
    }
  }
  return changed;
}
