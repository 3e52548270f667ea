/**
 * The fast path (`sdk/src/wiki/fast-path.ts`) against the full path (`buildModule`, and `query()` with
 * the fast path off): whenever the fast path answers, it must be exactly what the full path gives —
 * same params in the same order, no warning, the same encoded string — and `query()` must give the
 * same result or the same error either way. Checked on every catalogue module with valid, plain and
 * hostile inputs, on `query()` compositions, on MediaWiki's conformance cases, and on inputs that
 * must leave the fast path.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allpages, iwlinks, revisions, search } from '../../sdk/src/generated/wiki/index.js';
import { fastModule } from '../../sdk/src/wiki/fast-path.js';
import { encodeForm, encodeFormComponent } from '../../sdk/src/wiki/form.js';
import { buildModule, serialize, toRaw } from '../../sdk/src/wiki/full-path.js';
import { defineModule } from '../../sdk/src/wiki/module.js';
import { type BuiltQuery, buildQuery, type QueryInput, query } from '../../sdk/src/wiki/query.js';
import { type BuildOptions, type ModuleSpec, type ParamInfo, WikiParamError } from '../../sdk/src/wiki/types.js';
import { explodeMultiValue } from '../../sdk/src/wiki/validate/index.js';
import {
  type AnyModule,
  anyParamsArb,
  anyValue,
  FIXED_NOW,
  MODULES,
  optionsArb,
  propertyRuns,
  typedArb,
  validParamsArb,
} from './property-arbitraries.js';

const MODULE_RUNS = propertyRuns(60);
const QUERY_RUNS = propertyRuns(600);
const PLAIN_RUNS = propertyRuns(25);

const show = (v: unknown): string => {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
};

type ModuleOutcome = { ok: true; params: [string, string][]; warnings: unknown[] } | { ok: false; error: string; code?: string };

function fullModule(spec: ModuleSpec, input: Record<string, unknown>, generator: boolean, options: BuildOptions): ModuleOutcome {
  try {
    const built = buildModule(spec, input, { prefix: generator ? `g${spec.prefix}` : spec.prefix, options });
    return { ok: true, params: Object.entries(built.params), warnings: built.warnings };
  } catch (e) {
    return e instanceof WikiParamError ? { ok: false, error: e.message, code: e.code } : { ok: false, error: String(e) };
  }
}

/**
 * Runs one module both ways; when the fast path answers, asserts it is the full path's answer.
 * Returns whether the fast path answered.
 */
function compareModule(spec: ModuleSpec, input: Record<string, unknown>, generator: boolean, options: BuildOptions): boolean {
  const fast = fastModule(spec, input, generator, Boolean(options.apihighlimits));
  if (fast === undefined) return false;
  const label = `${generator ? 'generator=' : ''}${spec.name} ${show(input)} ${show(options)}`;
  const full = fullModule(spec, input, generator, options);
  expect(full, label).toMatchObject({ ok: true, warnings: [] });
  const pairs: [string, string][] = [];
  for (let i = 0; i < fast.length; i += 3) {
    pairs.push([fast[i]!, fast[i + 1]!]);
    expect(fast[i + 2], label).toBe(`&${encodeFormComponent(fast[i]!)}=${encodeFormComponent(fast[i + 1]!)}`);
  }
  expect(pairs, label).toEqual((full as { params: [string, string][] }).params);
  return true;
}

type QueryOutcome =
  | {
      ok: true;
      params: [string, string][];
      warnings: unknown[];
      method: string;
      continuation: string[];
      encoded: string;
      frozen: boolean;
    }
  | { ok: false; name: string; message: string; code?: string; param?: string; module?: string; data?: unknown };

function queryOutcome(build: () => BuiltQuery): QueryOutcome {
  try {
    const q = build();
    return {
      ok: true,
      params: Object.entries(q.params),
      warnings: q.warnings,
      method: q.method,
      continuation: [...q.continuation],
      encoded: q.toString(),
      frozen: Object.isFrozen(q.params) && Object.isFrozen(q.continuation),
    };
  } catch (e) {
    if (e instanceof WikiParamError) {
      return { ok: false, name: e.name, message: e.message, code: e.code, param: e.param, module: e.module, data: e.data };
    }
    return { ok: false, name: e instanceof Error ? e.constructor.name : typeof e, message: String(e) };
  }
}

/** `query()` and the reference (every module through the full path) give the same result or the same error. */
function compareQuery(input: QueryInput, options?: BuildOptions): QueryOutcome {
  const fast = queryOutcome(() => query(input, options));
  const full = queryOutcome(() => buildQuery(input, options, false));
  expect(fast, show(input)).toEqual(full);
  if (full.ok) expect(full.encoded).toBe(encodeForm(Object.fromEntries(full.params)));
  return fast;
}

// --- the parameters the fast path is for --------------------------------------------------------

const FAST_TYPES = new Set(['boolean', 'string', 'integer', 'limit', 'namespace']);

/** Whether a parameter is one the fast path encodes itself (not deprecated, no `info`, a simple type). */
function isPlainParam(p: ParamInfo): boolean {
  if (p.deprecated || (p.info && p.info.length > 0)) return false;
  if (Array.isArray(p.type)) return true;
  return FAST_TYPES.has(String(p.type)) && !(p.multi && (p.type === 'boolean' || p.type === 'limit'));
}

/** A value the fast path must take as it is: in range, not deprecated, no `|` or U+001F, at most the low cap of values. */
function plainValueArb(p: ParamInfo): fc.Arbitrary<unknown> {
  const deprecated = new Set(p.deprecatedvalues ?? []);
  const single = (): fc.Arbitrary<unknown> => {
    if (Array.isArray(p.type)) {
      const values = (p.type as string[]).filter(
        (v) => !deprecated.has(v) && v !== p.allspecifier && !v.includes('|') && !v.includes('\u001f'),
      );
      return values.length > 0 ? fc.constantFrom(...values) : fc.constant(undefined);
    }
    if (p.type === 'string')
      return fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes('|') && !s.includes('\u001f'));
    return typedArb({ ...p, multi: false }, false);
  };
  if (!p.multi) {
    if (Array.isArray(p.type)) return single();
    // A required string may not be empty (missingparam).
    if (p.type === 'string')
      return fc.string({ minLength: p.required ? 1 : 0, maxLength: 8 }).filter((s) => !s.startsWith('\u001f'));
    return single();
  }
  const cap = typeof p.lowlimit === 'number' ? p.lowlimit : 50;
  return fc.array(single(), { maxLength: Math.min(cap, 8) }).map((values) => values.filter((v) => v !== undefined));
}

function plainParamsArb(spec: ModuleSpec): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of spec.parameters) if (isPlainParam(p)) model[p.name] = plainValueArb(p);
  const required = spec.parameters.filter((p) => p.required).map((p) => p.name);
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
}

const modulesWithoutRequired = MODULES.filter((m) => !m.spec.parameters.some((p) => p.required && !isPlainParam(p)));

describe('fastModule: the same params as buildModule, or no answer', () => {
  it('takes every plain input of every module without a required non-plain parameter', () => {
    expect(modulesWithoutRequired.length).toBeGreaterThan(55);
    for (const mod of modulesWithoutRequired) {
      fc.assert(
        fc.property(plainParamsArb(mod.spec), fc.boolean(), fc.boolean(), (params, apihighlimits, generator) => {
          const asGenerator = generator && Boolean(mod.spec.generator);
          const took = compareModule(mod.spec, params, asGenerator, { apihighlimits, now: () => FIXED_NOW });
          expect(took, `${mod.spec.name}: plain input ${show(params)} left the fast path`).toBe(true);
        }),
        { numRuns: PLAIN_RUNS },
      );
    }
  });

  for (const mod of MODULES) {
    it(`${mod.group}=${mod.spec.name}: valid and hostile parameters`, () => {
      const options = fc.record({ apihighlimits: fc.boolean(), now: fc.constant(() => FIXED_NOW) });
      const params = options.chain((o) =>
        fc.tuple(fc.constant(o), fc.oneof(validParamsArb(mod.spec, o), anyParamsArb(mod.spec), plainParamsArb(mod.spec))),
      );
      fc.assert(
        fc.property(params, fc.boolean(), ([o, p], generator) => {
          compareModule(mod.spec, p, generator && Boolean(mod.spec.generator), o);
        }),
        { numRuns: MODULE_RUNS },
      );
    });
  }
});

// --- query() ----------------------------------------------------------------------------------

const TOP_LEVEL_KEYS = [
  'titles',
  'pageids',
  'revids',
  'redirects',
  'exportschema',
  'iwurl',
  'errorformat',
  'uselang',
  'assert',
  'assertuser',
  'maxlag',
  'smaxage',
  'curtimestamp',
  'origin',
] as const;

const topLevelValue = fc.oneof(
  anyValue,
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
  fc.array(fc.integer({ min: -3, max: 60 }), { maxLength: 4 }),
  fc.constantFrom('plaintext', 'html', '0.11', 'user', 'en', 0, 5, -1),
);

const topLevelArb = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...TOP_LEVEL_KEYS, 'nonsense'), topLevelValue), { maxLength: 3 }),
    fc.option(fc.dictionary(fc.constantFrom('continue', 'apcontinue', '0', '__proto__', 'rvprop'), anyValue, { maxKeys: 2 }), {
      nil: undefined,
    }),
  )
  .map(([entries, cont]) => {
    const top: Record<string, unknown> = Object.fromEntries(entries);
    if (cont !== undefined) top.continue = cont;
    return top;
  });

const useArb = fc
  .tuple(fc.constantFrom(...MODULES), fc.boolean(), fc.nat({ max: 9 }))
  .chain(([mod, asGenerator, kind]) =>
    (kind < 5
      ? plainParamsArb(mod.spec)
      : kind < 8
        ? validParamsArb(mod.spec, { apihighlimits: true })
        : anyParamsArb(mod.spec)
    ).map((params) => ({ mod, asGenerator, params })),
  );

function queryInput(picks: readonly { mod: AnyModule; asGenerator: boolean; params: Record<string, unknown> }[]) {
  const input: Record<string, unknown> = {};
  for (const { mod, asGenerator, params } of picks) {
    if (asGenerator && mod.asGenerator && input.generator === undefined) input.generator = mod.asGenerator(params);
    else input[mod.group] = [...((input[mod.group] as unknown[] | undefined) ?? []), mod(params)];
  }
  return input;
}

describe('query(): the same result or error with and without the fast path', () => {
  it('one to three modules, any main-module input and continuation, any options', () => {
    fc.assert(
      fc.property(fc.array(useArb, { minLength: 1, maxLength: 3 }), topLevelArb, optionsArb, (picks, top, options) => {
        compareQuery({ ...top, ...queryInput(picks) } as QueryInput, options);
      }),
      { numRuns: QUERY_RUNS },
    );
  });

  it('the benchmark request, and it does take the fast path', () => {
    const input: QueryInput = {
      list: [allpages({ from: 'Aa', to: 'Az', prefix: 'A', namespace: 0, filterredir: 'nonredirects', limit: 50 })],
      prop: [revisions({ prop: ['ids', 'timestamp', 'user', 'comment', 'content'], slots: ['main'] })],
    };
    const outcome = compareQuery(input);
    expect(outcome).toMatchObject({
      ok: true,
      encoded:
        'action=query&format=json&formatversion=2&errorformat=plaintext&prop=revisions&list=allpages' +
        '&rvprop=ids%7Ctimestamp%7Cuser%7Ccomment%7Ccontent&rvslots=main' +
        '&apfrom=Aa&apto=Az&apprefix=A&apnamespace=0&apfilterredir=nonredirects&aplimit=50',
    });
    expect(fastModule(allpages.spec, { from: 'Aa', limit: 50, namespace: 0 }, false, false)).toBeDefined();
    expect(fastModule(revisions.spec, { prop: ['ids', 'content'], slots: ['main'] }, false, false)).toBeDefined();
  });

  it('one module on the fast path and one on the full path, in either order and as generator', () => {
    const full = revisions({ prop: ['ids'], limit: 5, start: new Date(FIXED_NOW) });
    expect(fastModule(revisions.spec, full.params as Record<string, unknown>, false, false)).toBeUndefined();
    compareQuery({ list: [allpages({ from: 'B', prtype: ['edit'] })], prop: [full], titles: ['A', 'B'] });
    compareQuery({ prop: [full], generator: allpages.asGenerator({ limit: 'max', namespace: 4 }) }, { apihighlimits: true });
    compareQuery({ prop: [revisions({ prop: ['parsetree'] })], list: [allpages({ limit: 9999 })], revids: [1, 2] });
  });

  it('a module parameter that is also the main module’s (iwlinks’ iwurl): same value merges, another collides', () => {
    compareQuery({ prop: [iwlinks({ url: true, iwurl: true } as never)], iwurl: true });
    const outcome = compareQuery({ prop: [iwlinks({ iwurl: true } as never)], iwurl: false, errorformat: 'bc' });
    expect(outcome.ok).toBe(true);
  });

  it('continuation keys that move in the object (array indices) or replace a sent key', () => {
    compareQuery({ list: [allpages({ from: 'A' })], continue: { 1: 'x', apfrom: 'B', continue: '-||' } });
    compareQuery({ list: [allpages({ from: 'A' })], continue: { __proto__: 'x' } as never });
  });
});

// --- inputs that must leave the fast path -------------------------------------------------------

describe('inputs the fast path leaves to the full path', () => {
  const cases: [string, ModuleSpec, Record<string, unknown>][] = [
    ['an undeclared key (unrecognizedparams)', allpages.spec, { from: 'A', nosuch: 1 }],
    ['a templated parameter', revisions.spec, { slots: ['main'], 'contentformat-{slot}': { main: 'text/x-wiki' } }],
    ['a parameter with info conditions (rvlimit: singlepageonly)', revisions.spec, { limit: 5 }],
    ['a deprecated parameter', revisions.spec, { parse: true }],
    ['a deprecated value', revisions.spec, { prop: ['ids', 'parsetree'] }],
    ['an unrecognized multi value', revisions.spec, { prop: ['ids', 'nosuch'] }],
    ['a timestamp', revisions.spec, { start: '2024-01-01T00:00:00Z' }],
    ['a user', revisions.spec, { user: 'Example' }],
    ['an out-of-range limit', allpages.spec, { limit: 5001 }],
    ['an integer below min', allpages.spec, { limit: 0 }],
    ['a fractional integer', allpages.spec, { minsize: 1.5 }],
    ['an unsafe integer', allpages.spec, { minsize: 2 ** 53 }],
    ['an integer given as a string', allpages.spec, { minsize: '5' }],
    ['a namespace out of range', allpages.spec, { namespace: -1 }],
    ['an enum value of the wrong type', allpages.spec, { filterredir: 1 }],
    ['an enum value not in the list', allpages.spec, { filterredir: 'All' }],
    ['a string starting with U+001F', allpages.spec, { from: '\u001fa\u001fb' }],
    ['a string not in NFC (badutf8)', allpages.spec, { prefix: 'Cafe\u0301' }],
    ['a string with a C0 control (badutf8)', allpages.spec, { prefix: 'a\u0001b' }],
    ['a string with a lone surrogate (badutf8)', allpages.spec, { prefix: 'a\ud800' }],
    [
      'a multi string not in NFC (badutf8)',
      MODULES.find((m) => m.spec.name === 'allmessages')!.spec,
      { messages: ['Cafe\u0301'] },
    ],
    ['a multi value given as a piped string', allpages.spec, { prtype: 'edit|move' }],
    ['a multi value with `|`', MODULES.find((m) => m.spec.name === 'allmessages')!.spec, { messages: ['a|b'] }],
    ['more values than the low cap', allpages.spec, { prtype: Array.from({ length: 51 }, () => 'edit') }],
    ['a missing required parameter', search.spec, { limit: 5 }],
    ['an empty required string', search.spec, { search: '' }],
    ['a boolean given as a string', MODULES.find((m) => m.spec.name === 'allmessages')!.spec, { nocontent: 'x' }],
  ];
  for (const [what, spec, input] of cases) {
    it(what, () => {
      expect(fastModule(spec, input, false, false), show(input)).toBeUndefined();
      expect(fastModule(spec, input, false, true), show(input)).toBeUndefined();
    });
  }

  it('a limit over max is fast only with apihighlimits, up to highmax', () => {
    expect(compareModule(allpages.spec, { limit: 5000 }, false, { apihighlimits: true })).toBe(true);
    expect(fastModule(allpages.spec, { limit: 5000 }, false, false)).toBeUndefined();
    expect(fastModule(allpages.spec, { limit: 5001 }, false, true)).toBeUndefined();
  });

  it('a whole module whose defaults warn when absent, or whose templated parameters might', () => {
    const warnsByDefault = defineModule<{ a?: number }, 'list', false>({
      name: 'w',
      path: 'query+w',
      group: 'list',
      prefix: 'w',
      parameters: [
        { name: 'a', type: 'integer' },
        { name: 'b', type: ['x', 'y'], default: 'y', deprecatedvalues: [] },
        { name: 'c', type: 'integer', default: 9, max: 5 },
      ],
    });
    expect(fastModule(warnsByDefault.spec, { a: 1 }, false, false)).toBeUndefined();
    compareQuery({ list: [warnsByDefault({ a: 1 })] });
    const templatedOverStrings = defineModule<{ k?: string[] }, 'list', false>({
      name: 't',
      path: 'query+t',
      group: 'list',
      prefix: 't',
      parameters: [{ name: 'k', type: 'string', multi: true }],
      templatedparameters: [{ name: 'v-{k}', type: 'string', templatevars: { k: 'k' } }],
    });
    expect(fastModule(templatedOverStrings.spec, { k: ['a'] }, false, false)).toBeUndefined();
    compareQuery({ list: [templatedOverStrings({ k: ['{x}', 'a'] })] });
    // Expansions read as absent: a default that warns, or `required`, speaks for every value of the target.
    for (const extra of [{ default: 9, max: 5 }, { required: true }]) {
      const templated = defineModule<{ k?: string[] }, 'list', false>({
        name: 'u',
        path: 'query+u',
        group: 'list',
        prefix: 'u',
        parameters: [{ name: 'k', type: ['a', 'b'], multi: true }],
        templatedparameters: [{ name: 'v-{k}', type: 'integer', templatevars: { k: 'k' }, ...extra }],
      });
      expect(fastModule(templated.spec, { k: ['a'] }, false, false)).toBeUndefined();
      expect(compareQuery({ list: [templated({ k: ['a', 'b'] })] }).ok).toBe(!('required' in extra));
    }
  });

  it('a module parameter spelled like a main-module parameter: same value merges, another collides', () => {
    const shadow = defineModule<{ uselang?: string; n?: number }, 'list', false>({
      name: 's',
      path: 'query+s',
      group: 'list',
      prefix: '',
      parameters: [
        { name: 'uselang', type: 'string' },
        { name: 'n', type: 'integer' },
      ],
    });
    expect(fastModule(shadow.spec, { uselang: 'de', n: 1 }, false, false)).toBeDefined();
    expect(compareQuery({ list: [shadow({ uselang: 'de', n: 1 })], uselang: 'de' })).toMatchObject({ ok: true });
    expect(compareQuery({ list: [shadow({ uselang: 'fr' })], uselang: 'de' })).toMatchObject({
      ok: false,
      code: 'prefixcollision',
    });
    expect(compareQuery({ list: [shadow({ uselang: 'fr' })] })).toMatchObject({ ok: true });
  });

  it('a key sent by a full-path module under a templated name, then by a fast module', () => {
    const templating = defineModule<Record<string, unknown>, 'prop', false>({
      name: 'a',
      path: 'query+a',
      group: 'prop',
      prefix: 'a',
      parameters: [{ name: 'k', type: ['m'], multi: true }],
      templatedparameters: [{ name: 'x-{k}', type: 'string', templatevars: { k: 'k' } }],
    });
    const spelling = defineModule<Record<string, unknown>, 'list', false>({
      name: 'b',
      path: 'query+b',
      group: 'list',
      prefix: 'ax-',
      parameters: [{ name: 'm', type: 'string' }],
    });
    const first = templating({ k: ['m'], 'x-{k}': { m: 'v1' } });
    expect(compareQuery({ prop: [first], list: [spelling({ m: 'v1' })] })).toMatchObject({ ok: true });
    expect(compareQuery({ prop: [first], list: [spelling({ m: 'v2' })] })).toMatchObject({ ok: false, code: 'prefixcollision' });
  });

  it('a timestamp default: the full path reads it on every build', () => {
    for (const def of ['', '0', 'now', 'garbage']) {
      const stamped = defineModule<{ n?: number }, 'list', false>({
        name: 'd',
        path: 'query+d',
        group: 'list',
        prefix: 'd',
        parameters: [
          { name: 'n', type: 'integer' },
          { name: 'at', type: 'timestamp', default: def },
        ],
      });
      expect(fastModule(stamped.spec, { n: 1 }, false, false)).toBeUndefined();
      compareQuery({ list: [stamped({ n: 1 })] }, { now: () => FIXED_NOW });
    }
  });

  it('keys that an object would reorder or inherit', () => {
    const odd = defineModule<Record<string, unknown>, 'list', false>({
      name: 'o',
      path: 'query+o',
      group: 'list',
      prefix: '',
      parameters: [
        { name: '7', type: 'string' },
        { name: 'constructor', type: 'string' },
      ],
    });
    expect(fastModule(odd.spec, { 7: 'x' }, false, false)).toBeUndefined();
    expect(fastModule(odd.spec, { constructor: 'x' }, false, false)).toBeUndefined();
    compareQuery({ list: [odd({ 7: 'x' })] });
    compareQuery({ list: [odd({ constructor: 'x' })] });
  });
});

// --- MediaWiki's conformance cases, through both paths --------------------------------------------

const CASES_PATH = path.resolve(
  fileURLToPath(new URL('../../', import.meta.url)),
  'test/fixtures/wiki/paramvalidator-cases.json',
);

interface Case {
  id: string;
  layer: string;
  typedef: string;
  settings: Record<string, unknown>;
  input: unknown;
  inputKind?: 'absent' | 'native' | 'request';
  options?: Record<string, unknown>;
  mock?: unknown;
  expect: { ok: true; value: unknown; warnings?: unknown[] } | { ok: false; code: string };
}

/** The typed value a caller would give for a raw request string: numbers for the numeric types, arrays for multi values. */
function typedFor(settings: ParamInfo, raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  const numeric = ['integer', 'limit', 'namespace'].includes(String(settings.type));
  const scalar = (s: string) => (numeric && /^-?\d+$/.test(s) && String(Number(s)) === s ? Number(s) : s);
  if (settings.type === 'boolean') return true;
  if (!settings.multi) return scalar(raw);
  if (settings.allspecifier !== undefined && raw === settings.allspecifier) return raw;
  return explodeMultiValue(raw, Number.MAX_SAFE_INTEGER).map(scalar);
}

describe('conformance cases through the fast path and the full path', () => {
  const cases = (JSON.parse(readFileSync(CASES_PATH, 'utf8')) as { cases: Case[] }).cases;
  const usable = cases.filter(
    (c) =>
      c.inputKind !== 'native' &&
      !c.mock &&
      // Server-side options and wiki state the builder never has (the conformance suite skips them too).
      !c.options?.enforceJsonTypes &&
      !c.options?.allowEmptyWhenRequired &&
      !c.settings.mustExist &&
      !['explodeMultiValue', 'implodeMultiValue', 'paraminfo', 'templatedparameters'].includes(c.typedef) &&
      typeof c.settings === 'object',
  );

  it('agree on every case, and the fast path answers only what MediaWiki accepts without a warning', () => {
    let fastCount = 0;
    for (const c of usable) {
      const opts = c.options ?? {};
      const { 'x-submodulemap': _submodules, ...rest } = c.settings;
      const settings: ParamInfo = { name: 'param', ...rest, type: (rest.type as ParamInfo['type']) ?? c.typedef };
      let raw = c.inputKind === 'absent' ? undefined : (c.input as string);
      if (opts.isDefault) {
        settings.default = raw;
        raw = undefined;
      }
      const spec: ModuleSpec = { name: 'case', path: 'query+case', group: 'list', prefix: 'x', parameters: [settings] };
      const typed = typedFor(settings, raw);
      const input = typed === undefined ? {} : { param: typed };
      const apihighlimits = Boolean(opts.useHighLimits);
      const took = compareModule(spec, input, false, { apihighlimits, now: () => FIXED_NOW });
      if (!took || typed === undefined) continue;
      fastCount++;
      // Where the typed value is exactly the case's request and the case is the Action API's (or has no
      // wiki state or custom caps), MediaWiki's verdict must be "valid, no warning", with this value.
      const sameRequest = toRaw(typed, 'xparam', 'query+case') === raw;
      const comparable = c.layer !== 'mediawiki-core-typedef' && !opts.ismultiLimits && opts.parseLimit !== false;
      if (!sameRequest || !comparable) continue;
      expect(c.expect, c.id).toMatchObject({ ok: true });
      const exp = c.expect as { value: unknown; warnings?: unknown[] };
      expect(exp.warnings ?? [], c.id).toEqual([]);
      const fast = fastModule(spec, input, false, apihighlimits)!;
      if (!(settings.multi && raw === settings.allspecifier)) expect(fast[1], c.id).toBe(serialize(exp.value, settings));
    }
    // The fast path is exercised by the cases, not skipped by all of them.
    expect(fastCount).toBeGreaterThan(40);
  });
});
