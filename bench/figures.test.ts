import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Figure, meets, READMES, type Run, readRuns, renderReadme, TABLE_ORDER } from './figures.js';

const run = (figures: Figure[], extra: Partial<Run> = {}): Run => ({
  bench: 'size',
  command: 'npm run bench -- size',
  date: '2026-11-26T17:03:38Z',
  node: 'v20.20.2',
  machine: 'linux/x64, 2 cores',
  load: '1.50 1.20 0.90',
  figures,
  ...extra,
});
const allpages: Figure = { id: 'allpages', label: 'allpages', value: 13.12, unit: 'kB', goal: { op: '≤', value: 5 } };

describe('figures', () => {
  it('judges a figure against its goal', () => {
    expect(meets(5, { op: '≤', value: 5 })).toBe(true);
    expect(meets(5, { op: '<', value: 5 })).toBe(false);
    expect(meets(2.83, { op: '≥', value: 3 })).toBe(false);
    expect(meets(0, { op: '=', value: 0 })).toBe(true);
  });

  it('renders the table between the markers from the recorded runs', () => {
    const text = 'before\n<!-- figures:begin -->\nstale\n<!-- figures:end -->\nafter\n';
    const out = renderReadme(text, new Map([['size', run([allpages])]]), ['size']);
    expect(out).toBe(
      'before\n<!-- figures:begin -->\n| Bench | Figure | Goal | Latest | Met | Measured |\n| --- | --- | --- | --- | --- | --- |\n' +
        '| `size` | allpages | ≤ 5 kB | 13.12 kB | **not met** | 26 Nov 17:03 UTC, load 1.50 1.20 0.90 |\n<!-- figures:end -->\nafter\n',
    );
  });

  it('says when figures were carried over rather than measured by the command', () => {
    const out = renderReadme(
      '<!-- figures:begin -->\n<!-- figures:end -->',
      new Map([['size', run([allpages], { carriedOver: 'from x' })]]),
      [],
    );
    expect(out).toContain('load 1.50 1.20 0.90, carried over |');
  });

  it('rewrites an inline figure, to the digits asked for', () => {
    const runs = new Map([['size', run([allpages])]]);
    expect(renderReadme('is <!-- figure size/allpages 1 -->12.8<!-- /figure --> kB', runs, [])).toBe(
      'is <!-- figure size/allpages 1 -->13.1<!-- /figure --> kB',
    );
    expect(renderReadme('<!-- figure size/allpages -->1<!-- /figure -->', runs, [])).toBe(
      '<!-- figure size/allpages -->13.12<!-- /figure -->',
    );
  });

  it('refuses a figure no run recorded', () => {
    expect(() => renderReadme('<!-- figure size/nothing -->1<!-- /figure -->', new Map([['size', run([allpages])]]), [])).toThrow(
      'No recorded figure size/nothing',
    );
  });
});

describe('recorded results', () => {
  const runs = readRuns();

  it('are one run per file, each figure named once', () => {
    expect(runs.size).toBeGreaterThan(0);
    for (const [name, r] of runs) {
      expect(r.bench).toBe(name);
      expect(r.command).toMatch(/npm run/);
      expect(Number.isNaN(Date.parse(r.date))).toBe(false);
      const ids = r.figures.map((f) => f.id);
      expect(new Set(ids).size, name).toBe(ids.length);
      for (const f of r.figures) {
        expect(Number.isFinite(f.value), `${name}/${f.id}`).toBe(true);
        expect(f.met, `${name}/${f.id}`).toBe(f.goal ? meets(f.value, f.goal) : undefined);
      }
    }
  });

  it('are shown in the table of bench/README.md', () => {
    const text = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    expect(text).toMatch(/<!-- figures:begin -->\n\| Bench \|[\s\S]*<!-- figures:end -->/);
  });

  // A README whose figures differ from what the recorded runs render states a figure no run produced:
  // `npm run bench -- --update-readme` rewrites them.
  it.each(READMES)('%s states the recorded figures', (path) => {
    const text = readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
    expect(renderReadme(text, runs, TABLE_ORDER)).toBe(text);
  });
});
