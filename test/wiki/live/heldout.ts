/**
 * Held-out requests for the extension modules: drawn at random (a fixed seed) from each module's own paraminfo
 * and a pool of values and page sets, never from the rules or the probes, so the agreement they measure is not
 * the one the rules were written against. Each case is one module with up to three parameters, and for a prop
 * module one of the page sets of the extension wiki (pages that exist, one that does not, a File: page, a
 * stylesheet, page IDs, a generator).
 */
import type { ModuleSpec, ParamInfo } from '../../../sdk/src/wiki/types.js';

export interface HeldOutCase {
  module: string;
  /** Unprefixed raw values. */
  params: Record<string, string>;
  /** Parameters given a list where they take one value: sent as PHP's `name[]=value`. */
  lists?: Record<string, string>;
  /** The main and query modules' own options, raw. */
  main?: Record<string, string>;
  titles?: string[];
  pageids?: string[];
  /** `generator=allpages&gaplimit=N` gives the pages. */
  generatorLimit?: string;
  label: string;
}

/** mulberry32: a small seeded generator, so every run draws the same cases. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type PageSet = { titles?: string[]; pageids?: string[]; generatorLimit?: string };

/** The extension wiki's pages (`EXTENSION_PAGES` too), and a page it does not have beside one it has. */
export const EXTENSION_PAGE_SETS: readonly PageSet[] = [
  { titles: ['Apple'] },
  { titles: ['Apple', 'Fruit 01'] },
  { titles: ['Banana', 'Apple', 'Fruit 02'] },
  { titles: ['File:Apple.jpg'] },
  { titles: ['File:Apple.jpg', 'Banana'] },
  { titles: ['MediaWiki:Common.css'] },
  { titles: ['Apple', 'No such page'] },
  { pageids: ['2', '6'] },
  { generatorLimit: '2' },
];

/** The core wiki's pages: every title names a page it has (a page it lacks is the known gap: the builders assume it exists). */
export const CORE_PAGE_SETS: readonly PageSet[] = [
  { titles: ['Apple'] },
  { titles: ['Apple', 'Fruit 01'] },
  { titles: ['History', 'Apple', 'Fruit 02'] },
  { titles: ['Category:Fruit'] },
  { titles: ['Template:Infobox', 'Apple'] },
  { titles: ['Talk:Apple'] },
  { pageids: ['2', '6'] },
  { generatorLimit: '2' },
];

const INTEGERS = ['-1', '0', '1', '2', '3', '5', '21', '600', 'x', ''];
const STRINGS = ['x', '1', '2', 'global-1', 'a[b', 'Apple', 'Talk:Apple', '', '1|x'];

function value(p: ParamInfo, next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  if (Array.isArray(p.type)) {
    const values = [...p.type, 'nosuchvalue'];
    if (!p.multi) return pick(values);
    const n = 1 + Math.floor(next() * 3);
    return Array.from({ length: n }, () => pick(values)).join('|');
  }
  switch (p.type) {
    case 'integer':
      return pick(INTEGERS);
    case 'limit':
      return pick([...INTEGERS, 'max']);
    case 'boolean':
      return '1';
    case 'timestamp':
      return pick(['2024-01-01T00:00:00Z', 'x', '', 'now']);
    case 'user':
      return pick(['Admin', '10.0.0.1', 'a[b', '']);
    case 'namespace':
      return pick(['0', '6', '9999', '-1']);
    default:
      return pick(STRINGS);
  }
}

/** Main-module options and raw values a caller may give them. */
const MAIN_OPTIONS: [string, string[]][] = [
  ['smaxage', ['-1', '0', '60', 'x']],
  ['maxage', ['-1', '30']],
  ['maxlag', ['5', 'x']],
  ['crossorigin', ['1']],
  ['curtimestamp', ['1']],
  // `assert=user` is the client's state (signed in or not), not the request's: left out.
  ['assert', ['anon', 'x']],
  ['uselang', ['de', 'content']],
  ['servedby', ['1']],
];

export interface HeldOutOptions {
  /** Also draw main-module options and lists for single values (the parameter-validation set). */
  mainAndLists?: boolean;
  /** The page sets a prop module's cases draw from. */
  pageSets?: readonly PageSet[];
}

/** `perModule` cases for each module, from `seed`. */
export function heldOutCases(
  specs: readonly ModuleSpec[],
  perModule: number,
  seed = 41,
  { mainAndLists = false, pageSets = EXTENSION_PAGE_SETS }: HeldOutOptions = {},
): HeldOutCase[] {
  const next = random(seed);
  const cases: HeldOutCase[] = [];
  for (const spec of specs) {
    for (let i = 0; i < perModule; i++) {
      const params: Record<string, string> = {};
      const count = Math.floor(next() * 4);
      for (let k = 0; k < count && spec.parameters.length > 0; k++) {
        const p = spec.parameters[Math.floor(next() * spec.parameters.length)]!;
        params[p.name] = value(p, next);
      }
      const extra: Pick<HeldOutCase, 'lists' | 'main'> = {};
      if (mainAndLists && next() < 0.3) {
        const [name, values] = MAIN_OPTIONS[Math.floor(next() * MAIN_OPTIONS.length)]!;
        extra.main = { [name]: values[Math.floor(next() * values.length)]! };
      }
      const singles = spec.parameters.filter((p) => !p.multi && p.type !== 'boolean');
      if (mainAndLists && singles.length > 0 && next() < 0.15) {
        const p = singles[Math.floor(next() * singles.length)]!;
        extra.lists = { [p.name]: value(p, next) };
        delete params[p.name];
      }
      const pages = spec.group === 'prop' ? pageSets[Math.floor(next() * pageSets.length)]! : {};
      const where = pages.titles
        ? ` titles=${pages.titles.join('|')}`
        : pages.pageids
          ? ` pageids=${pages.pageids.join('|')}`
          : pages.generatorLimit
            ? ` generator=allpages(${pages.generatorLimit})`
            : '';
      const shown = [
        JSON.stringify(params),
        extra.lists && `lists ${JSON.stringify(extra.lists)}`,
        extra.main && `main ${JSON.stringify(extra.main)}`,
      ];
      cases.push({
        module: spec.name,
        params,
        ...extra,
        ...pages,
        label: `${spec.name} ${shown.filter(Boolean).join(' ')}${where}`,
      });
    }
  }
  return cases;
}
