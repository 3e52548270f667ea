/**
 * One migration numbering for both dialects, and the READMEs that cite it: the table in server/README.md is the
 * one these lists render, and every "migration N" a README names exists (on the dialect it names) and is about
 * what its sentence is about.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations as postgres } from '../../server/src/store/postgres/migrations.js';
import { MIGRATIONS as sqlite } from '../../server/src/store/sqlite/migrations.js';

const root = new URL('../../', import.meta.url).pathname;
const dialects = { SQLite: sqlite, PostgreSQL: postgres } as const;
type Dialect = keyof typeof dialects;

const versions = [...new Set([...sqlite, ...postgres].map((m) => m.version))].sort((a, b) => a - b);
const of = (dialect: Dialect, version: number) => dialects[dialect].find((m) => m.version === version);

/** The table server/README.md shows between `<!-- migrations -->` and `<!-- /migrations -->`. */
function migrationTable(): string {
  const rows = versions.map((v) => {
    const name = (of('SQLite', v) ?? of('PostgreSQL', v))!.name;
    const has = (d: Dialect) => (of(d, v) ? 'yes' : '—');
    return `| ${v} | ${name.replaceAll('|', '\\|')} | ${has('SQLite')} | ${has('PostgreSQL')} |`;
  });
  return ['| # | migration | SQLite | PostgreSQL |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

function readmes(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return readmes(path);
    return entry.name === 'README.md' ? [path] : [];
  });
}

interface Reference {
  file: string;
  version: number;
  dialect?: Dialect;
  sentence: string;
}

/** Each "migration N" in a README, with the sentence around it and the dialect it is said of, if any. */
function references(file: string): Reference[] {
  const text = readFileSync(file, 'utf8').replace(/<!-- migrations -->[\s\S]*?<!-- \/migrations -->/, '');
  // Paragraphs and list items, each on one line, so a sentence may cross the lines it is wrapped on.
  const blocks = text.split(/\n(?=\s*\n|\s*[-*|#] )/).map((b) => b.replace(/\s*\n\s*/g, ' '));
  return blocks.flatMap((block) =>
    [...block.matchAll(/(?:(SQLite|PostgreSQL)\W{0,3})?\bmigrations? (\d+)\b/gi)].map((m) => {
      const start = block.lastIndexOf('. ', m.index) + 1;
      const end = block.indexOf('. ', m.index);
      return {
        file: relative(root, file),
        version: Number(m[2]),
        ...(m[1] ? { dialect: m[1] as Dialect } : {}),
        sentence: block.slice(start, end === -1 ? undefined : end),
      };
    }),
  );
}

const words = (sql: string) => new Set(sql.match(/\b[a-z_]+\b/g));

describe('one migration numbering for SQLite and PostgreSQL', () => {
  it.each(Object.keys(dialects) as Dialect[])('%s numbers its migrations in order, each once', (dialect) => {
    const numbers = dialects[dialect].map((m) => m.version);
    expect(numbers).toStrictEqual([...new Set(numbers)].sort((a, b) => a - b));
  });

  it('a number both dialects have is the same migration on each', () => {
    for (const migration of sqlite) {
      const other = of('PostgreSQL', migration.version);
      if (other) expect(other.name, `migration ${migration.version}`).toBe(migration.name);
    }
  });

  it('no number is skipped by both', () => {
    expect(versions).toStrictEqual(versions.map((_, i) => i + 1));
  });

  it('server/README.md shows the migrations as the lists hold them', () => {
    const text = readFileSync(join(root, 'server/README.md'), 'utf8');
    const shown = /<!-- migrations -->\n([\s\S]*?)\n<!-- \/migrations -->/.exec(text)?.[1];
    expect(shown, 'paste this table between the markers').toBe(migrationTable());
  });

  const cited = readmes().flatMap(references);

  it('the READMEs cite migrations', () => {
    expect(cited.length).toBeGreaterThan(4);
  });

  it.each(cited.map((r) => [`${r.file}: migration ${r.version}`, r] as const))(
    '%s exists, on the dialect named, and holds what its sentence names',
    (_, { version, dialect, sentence }) => {
      const on = dialect ? [dialect] : (Object.keys(dialects) as Dialect[]);
      const sql = on.map((d) => of(d, version)?.sql).filter((s) => s !== undefined);
      expect(sql.length, `${sentence}: no migration ${version}${dialect ? ` on ${dialect}` : ''}`).toBeGreaterThan(0);
      // The tables and columns the sentence names in backticks: at least one is in that migration.
      const every = new Set([...sqlite, ...postgres].flatMap((m) => [...words(m.sql)]));
      const named = [...sentence.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((w) => every.has(w));
      if (named.length > 0) {
        const here = new Set(sql.flatMap((s) => [...words(s)]));
        expect(
          named.some((w) => here.has(w)),
          `${sentence}: migration ${version} touches none of ${named.join(', ')}`,
        ).toBe(true);
      }
    },
  );
});
