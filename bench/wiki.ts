/**
 * What the typed wiki query builder costs: build + validate + serialize of one typical request (allpages +
 * revisions) through the real `query()` down to its query string, against (a) bare `URLSearchParams` with no
 * validation (as mwn) and (b) a hand-written zod v4 schema per module, then (a), on the same inputs.
 * The runtime is transpiled by TypeScript as it ships: tsx's `keepNames` would wrap every inner function and
 * cost the validator's closures a factor no consumer pays. Rounds rotate the variants; each figure is the
 * median of its rounds, and every result feeds a printed checksum so no work is dropped as dead code.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import * as z from 'zod';
import type { AllpagesParams, RevisionsParams } from '../sdk/src/generated/wiki/index.js';
import { allpages as allpagesTsx, revisions as revisionsTsx } from '../sdk/src/generated/wiki/index.js';
import { encodeForm as encodeFormTsx, query as queryTsx } from '../sdk/src/wiki/index.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const WARMUP_MS = 400;
const ROUNDS = 11;
const BATCH_MS = 120;

const SDK_SRC = fileURLToPath(new URL('../sdk/src/', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Inputs: eight variants of one typical request, cycled so no call sees a constant.

const INPUTS: { ap: AllpagesParams; rv: RevisionsParams }[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => {
  const letter = String.fromCharCode(65 + i * 3);
  const props = ['ids', 'timestamp', 'user', 'comment', 'content'] as const;
  return {
    ap: {
      from: `${letter}a`,
      to: `${letter}z`,
      prefix: letter,
      namespace: [0, 0, 1, 4, 10, 14, 0, 2][i]!,
      filterredir: (['nonredirects', 'all', 'redirects'] as const)[i % 3]!,
      limit: [50, 10, 100, 500, 1, 20, 250, 75][i]!,
    },
    rv: { prop: [...props.slice(i % 5), ...props.slice(0, i % 5)], slots: ['main'] },
  };
});

// ---------------------------------------------------------------------------------------------
// Baseline (a): mwn-style serialization, no validation.

/** Prefixed keys; arrays joined with `|` (U+001F-separated when a value holds `|`); `true` → `1`, `false` dropped. */
function addPrefixed(out: Record<string, string>, prefix: string, params: object): void {
  const record = params as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v === undefined || v === null || v === false) continue;
    if (Array.isArray(v)) {
      const parts = v.map(String);
      let piped = false;
      for (const part of parts) piped ||= part.includes('|');
      out[prefix + key] = piped ? `\u001f${parts.join('\u001f')}` : parts.join('|');
    } else {
      out[prefix + key] = v === true ? '1' : String(v);
    }
  }
}

function serializeBare(ap: object, rv: object): string {
  const out: Record<string, string> = {
    action: 'query',
    format: 'json',
    formatversion: '2',
    errorformat: 'plaintext',
    prop: 'revisions',
    list: 'allpages',
  };
  addPrefixed(out, 'rv', rv);
  addPrefixed(out, 'ap', ap);
  return new URLSearchParams(out).toString();
}

function viaBare(i: number): string {
  const input = INPUTS[i]!;
  return serializeBare(input.ap, input.rv);
}

// ---------------------------------------------------------------------------------------------
// Baseline (b): one zod v4 schema per module over the same parameters, then (a)'s serialization.

const int = z.int();
const limit = z.union([z.int().min(1).max(500), z.literal('max')]);
const timestamp = z.union([z.string(), z.date()]);
const user = z.string().min(1);
const contentFormats = [
  'application/json',
  'application/octet-stream',
  'application/unknown',
  'application/x-binary',
  'text/css',
  'text/javascript',
  'text/plain',
  'text/unknown',
  'text/x-wiki',
  'unknown/unknown',
] as const;

const allpagesSchema = z.object({
  from: z.string().optional(),
  continue: z.string().optional(),
  to: z.string().optional(),
  prefix: z.string().optional(),
  namespace: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  filterredir: z.enum(['all', 'nonredirects', 'redirects']).optional(),
  filterlanglinks: z.enum(['all', 'withlanglinks', 'withoutlanglinks']).optional(),
  minsize: int.optional(),
  maxsize: int.optional(),
  prtype: z
    .array(z.enum(['edit', 'move', 'upload']))
    .max(50)
    .optional(),
  prlevel: z
    .array(z.enum(['', 'autoconfirmed', 'sysop']))
    .max(50)
    .optional(),
  prfiltercascade: z.enum(['all', 'cascading', 'noncascading']).optional(),
  prexpiry: z.enum(['all', 'definite', 'indefinite']).optional(),
  limit: limit.optional(),
  dir: z.enum(['ascending', 'descending']).optional(),
});

const revisionsSchema = z.object({
  prop: z
    .array(
      z.enum([
        'comment',
        'content',
        'contentmodel',
        'flags',
        'ids',
        'parsedcomment',
        'roles',
        'sha1',
        'size',
        'slotsha1',
        'slotsize',
        'tags',
        'timestamp',
        'user',
        'userid',
        'parsetree',
      ]),
    )
    .max(50)
    .optional(),
  slots: z.union([z.array(z.enum(['main'])).max(50), z.literal('*')]).optional(),
  'contentformat-{slot}': z.record(z.string(), z.enum(contentFormats)).optional(),
  limit: limit.optional(),
  expandtemplates: z.boolean().optional(),
  generatexml: z.boolean().optional(),
  parse: z.boolean().optional(),
  section: z.string().optional(),
  diffto: z.string().optional(),
  difftotext: z.string().optional(),
  difftotextpst: z.boolean().optional(),
  contentformat: z.enum(contentFormats).optional(),
  startid: int.optional(),
  endid: int.optional(),
  start: timestamp.optional(),
  end: timestamp.optional(),
  dir: z.enum(['newer', 'older']).optional(),
  user: user.optional(),
  excludeuser: user.optional(),
  tag: z.string().optional(),
  continue: z.string().optional(),
});

function viaZod(i: number): string {
  const input = INPUTS[i]!;
  return serializeBare(allpagesSchema.parse(input.ap), revisionsSchema.parse(input.rv));
}

// ---------------------------------------------------------------------------------------------
// The runtime as it ships: sdk/src/wiki, the rules table it reads and the two generated modules, transpiled by TypeScript.

type Runtime = {
  query: typeof queryTsx;
  encodeForm: typeof encodeFormTsx;
  allpages: typeof allpagesTsx;
  revisions: typeof revisionsTsx;
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'codegen' ? [] : tsFiles(path);
    return e.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(e.name) ? [path] : [];
  });
}

async function loadCompiledRuntime(outDir: string): Promise<Runtime> {
  const sources = [
    ...tsFiles(join(SDK_SRC, 'wiki')),
    join(SDK_SRC, 'generated/wiki-rules.ts'),
    join(SDK_SRC, 'generated/wiki/allpages.ts'),
    join(SDK_SRC, 'generated/wiki/revisions.ts'),
  ];
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    verbatimModuleSyntax: true,
  };
  for (const file of sources) {
    const out = join(outDir, relative(SDK_SRC, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file }).outputText);
  }
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  const wiki = (await import(pathToFileURL(join(outDir, 'wiki/index.js')).href)) as {
    query: typeof queryTsx;
    encodeForm: typeof encodeFormTsx;
  };
  const ap = (await import(pathToFileURL(join(outDir, 'generated/wiki/allpages.js')).href)) as { allpages: typeof allpagesTsx };
  const rv = (await import(pathToFileURL(join(outDir, 'generated/wiki/revisions.js')).href)) as {
    revisions: typeof revisionsTsx;
  };
  return { query: wiki.query, encodeForm: wiki.encodeForm, allpages: ap.allpages, revisions: rv.revisions };
}

/** A site context as `siteContextFromSiteinfo` reads it from a wiki with MediaWiki's default namespaces. */
const SITE = {
  namespaces: [
    [-2, 'Media'],
    [-1, 'Special'],
    [0, ''],
    [1, 'Talk'],
    [2, 'User'],
    [3, 'User talk'],
    [4, 'Project'],
    [5, 'Project talk'],
    [6, 'File'],
    [7, 'File talk'],
    [8, 'MediaWiki'],
    [9, 'MediaWiki talk'],
    [10, 'Template'],
    [11, 'Template talk'],
    [12, 'Help'],
    [13, 'Help talk'],
    [14, 'Category'],
    [15, 'Category talk'],
  ].map(([id, name]) => ({ id: id as number, name: name as string })),
};

/**
 * `query()` as a `WikiClient` runs it: against the wiki's site context (namespaces checked) with the
 * modules' own rules on (allpages' title parts and continue format; the default). `site: false`
 * measures it without a site context.
 */
function viaQuery(rt: Runtime, site: boolean | 'no-rules' = true): (i: number) => string {
  const options = site === true ? { site: SITE } : site === 'no-rules' ? { site: SITE, rules: false } : undefined;
  return (i) => {
    const input = INPUTS[i]!;
    return rt.query({ list: [rt.allpages(input.ap)], prop: [rt.revisions(input.rv)] }, options).toString();
  };
}

// ---------------------------------------------------------------------------------------------
// Timing.

let sink = 0;

/** Runs `n` operations and returns ns/op; every result feeds `sink`. */
function batch(fn: (i: number) => string, n: number): number {
  let acc = 0;
  const start = process.hrtime.bigint();
  for (let k = 0; k < n; k++) {
    const s = fn(k & 7);
    acc += s.length + s.charCodeAt(k % s.length);
  }
  const ns = Number(process.hrtime.bigint() - start);
  sink = (sink + acc) | 0;
  return ns / n;
}

/** Runs `fn` in growing batches for about `ms` milliseconds; returns the ns/op of the last batch. */
function warmUp(fn: (i: number) => string, ms: number): number {
  const end = performance.now() + ms;
  let perOp = batch(fn, 8);
  let n = 8;
  while (performance.now() < end) {
    perOp = batch(fn, n);
    n = Math.min(n * 2, Math.max(8, Math.ceil(((ms / 4) * 1e6) / perOp)));
  }
  return perOp;
}

interface Variant {
  label: string;
  fn: (i: number) => string;
  n: number;
  samples: number[];
}

export async function benchWiki(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-wiki-'));
  try {
    const compiled = await loadCompiledRuntime(outDir);
    const finished = INPUTS.map(
      (input) => compiled.query({ list: [compiled.allpages(input.ap)], prop: [compiled.revisions(input.rv)] }).params,
    );
    const variants: Variant[] = [
      { label: 'bare', fn: viaBare, n: 0, samples: [] },
      { label: 'zod', fn: viaZod, n: 0, samples: [] },
      { label: 'query', fn: viaQuery(compiled), n: 0, samples: [] },
      {
        label: 'query-tsx',
        fn: viaQuery({ query: queryTsx, encodeForm: encodeFormTsx, allpages: allpagesTsx, revisions: revisionsTsx }),
        n: 0,
        samples: [],
      },
      { label: 'query-nosite', fn: viaQuery(compiled, false), n: 0, samples: [] },
      { label: 'query-norules', fn: viaQuery(compiled, 'no-rules'), n: 0, samples: [] },
      // Encoding alone, on the finished params of each input: how much of each total is the encoder.
      { label: 'encode-usp', fn: (i) => new URLSearchParams(finished[i]).toString(), n: 0, samples: [] },
      { label: 'encode-form', fn: (i) => compiled.encodeForm(finished[i]!), n: 0, samples: [] },
    ];

    // The comparison is fair only if every variant sends exactly the same request.
    for (let i = 0; i < INPUTS.length; i++) {
      const expected = viaQuery(compiled)(i);
      for (const v of variants) {
        const got = v.fn(i);
        if (got !== expected)
          console.log(`wiki: WARNING ${v.label} differs from query() on input ${i}:\n  ${got}\n  ${expected}`);
      }
    }

    for (const v of variants) {
      const perOp = warmUp(v.fn, WARMUP_MS);
      v.n = Math.max(16, Math.ceil((BATCH_MS * 1e6) / perOp));
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(r + k) % variants.length]!;
        v.samples.push(batch(v.fn, v.n));
      }
    }

    const [bare, zod, viaQ, viaTsx, noSite, noRules, encUsp, encForm] = variants.map((v) => percentile(v.samples, 50)) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const opsPerSec = (ns: number) => `${Math.round(1e9 / ns).toLocaleString('en-US')} ops/s`;
    report('wiki: bare URLSearchParams, no validation (a)', bare, 'ns/op', opsPerSec(bare));
    report('wiki: zod v4 schemas + URLSearchParams (b)', zod, 'ns/op', opsPerSec(zod));
    report('wiki: query() + toString(), site context and module rules on', viaQ, 'ns/op', opsPerSec(viaQ));
    report('wiki: (info) query() without a site context', noSite, 'ns/op', `${(viaQ / noSite).toFixed(2)}x of it with one`);
    report(
      'wiki: (info) query() with a site context, rules off',
      noRules,
      'ns/op',
      `${(viaQ / noRules).toFixed(2)}x of it with rules`,
    );
    const overBare = viaQ / bare;
    const zodOver = zod / viaQ;
    report('wiki: query() / bare URLSearchParams', overBare, 'x', `goal <= 2.0: ${overBare <= 2 ? 'met' : 'NOT met'}`);
    report('wiki: zod / query()', zodOver, 'x', `goal >= 3.0: ${zodOver >= 3 ? 'met' : 'NOT met'}`);
    record({
      id: 'over-bare',
      label: '(a) `query()` / bare `URLSearchParams`',
      value: round(overBare, 2),
      unit: '×',
      goal: { op: '≤', value: 2 },
    });
    record({
      id: 'zod-over',
      label: '(b) zod schemas / `query()`',
      value: round(zodOver, 2),
      unit: '×',
      goal: { op: '≥', value: 3 },
    });
    // Where the totals go: the encoder apart from validation and building.
    report(
      'wiki: (info) encoding: URLSearchParams / encodeForm',
      encUsp / encForm,
      'x',
      `${Math.round(encUsp)} vs ${Math.round(encForm)} ns`,
    );
    // query() encodes as it validates (fast-path.ts), so its encoding cannot be taken out: zod's validation
    // and building alone against the whole of query(), encoding included.
    report(
      'wiki: (info) zod without its encoding / all of query()',
      (zod - encUsp) / viaQ,
      'x',
      `${Math.round(zod - encUsp)} vs ${Math.round(viaQ)} ns`,
    );
    report(
      'wiki: (info) query() as tsx loads the source',
      viaTsx,
      'ns/op',
      `${(viaTsx / viaQ).toFixed(2)}x shipped build (tsx keepNames); checksum ${sink}`,
    );
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
