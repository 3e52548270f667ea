/**
 * `tsx bench/cpu-profile.ts <file.cpuprofile> [top] [fromMs] [toMs]`: where a V8 CPU profile (`node --cpu-prof`)
 * spent its time — self time by package or source file, and the heaviest functions — to profile
 * before optimizing (see README, providers). `fromMs`/`toMs` keep only the samples in that window,
 * counted from the profile's start (about the process's start: `providers.ts` prints where each run lies).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** The profile's samples from `fromMs` to `toMs` after its start. */
export function window(profile: Profile, fromMs: number, toMs: number): Profile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let at = 0;
  for (const [i, id] of profile.samples.entries()) {
    at += (profile.timeDeltas[i] ?? 0) / 1000;
    if (at >= fromMs && at < toMs) {
      samples.push(id);
      timeDeltas.push(profile.timeDeltas[i] ?? 0);
    }
  }
  return { ...profile, samples, timeDeltas };
}

/** `node_modules/<pkg>` for dependencies (in the bundle, esbuild keeps no paths: one file), else the file. */
function area(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\/.*\/(?=[^/]+$)/, '');
}

export function summarize(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    areas.set(area(url), (areas.get(area(url)) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${url ? `${area(url)}:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  // Inclusive: each sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (!url) continue;
      seen.add(`${functionName || '(anonymous)'} ${area(url)}:${lineNumber + 1}`);
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return `total ${total.toFixed(0)} ms sampled\n\nself time by area:\n${rows(areas)}\n\nheaviest functions (self):\n${rows(functions)}\n\nheaviest functions (inclusive):\n${rows(inclusive)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top, from, to] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/cpu-profile.ts <file.cpuprofile> [top] [fromMs] [toMs]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const kept = from !== undefined ? window(profile, Number(from), Number(to ?? Number.POSITIVE_INFINITY)) : profile;
  console.log(summarize(kept, Number(top ?? 25)));
}
