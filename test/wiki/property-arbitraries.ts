/**
 * fast-check arbitraries for the property tests in `property.test.ts`, derived from each module's
 * paraminfo: valid typed parameter objects (what a caller of the generated modules may pass and
 * MediaWiki accepts without an error), and hostile ones (any value of any type, extra keys).
 */
import fc from 'fast-check';
import * as generated from '../../sdk/src/generated/wiki/index.js';
import type { BuiltQuery } from '../../sdk/src/wiki/query.js';
import type { BuildOptions, GeneratorUse, ModuleGroup, ModuleSpec, ModuleUse, ParamInfo } from '../../sdk/src/wiki/types.js';
import { implodeMultiValue, toMwTimestamp, validateParam } from '../../sdk/src/wiki/validate/index.js';
import { CANONICAL_NAMESPACES } from '../../sdk/src/wiki/validate/title.js';

/** A generated module handle, seen without its parameter types. */
export interface AnyModule {
  (params?: Record<string, unknown>): ModuleUse;
  readonly spec: ModuleSpec;
  readonly group: ModuleGroup;
  build(params?: Record<string, unknown>, options?: BuildOptions): BuiltQuery;
  asGenerator?: (params?: Record<string, unknown>) => GeneratorUse;
}

/** Every module `sdk/src/generated/wiki/index.ts` exports, by name. */
export const MODULES: readonly AnyModule[] = (Object.values(generated) as unknown[])
  .filter((m): m is AnyModule => typeof m === 'function' && 'spec' in m)
  .sort((a, b) => a.spec.name.localeCompare(b.spec.name));

/**
 * A property's number of runs, scaled by `CONSILIUM_PROPERTY_RUNS_SCALE` (a fraction in (0, 1]; 1 when
 * unset, as in `npm test`). Mutation testing sets it (`test/mutation/folders.ts`): every mutant of the
 * fast path reruns these properties, and a tenth of the runs is what a shared machine affords there.
 */
export function propertyRuns(runs: number): number {
  const raw = process.env.CONSILIUM_PROPERTY_RUNS_SCALE;
  if (raw === undefined || raw === '') return runs;
  const scale = Number(raw);
  if (!(scale > 0 && scale <= 1)) throw new Error(`CONSILIUM_PROPERTY_RUNS_SCALE must be in (0, 1], not "${raw}"`);
  return Math.max(1, Math.ceil(runs * scale));
}

/**
 * How many of a property's runs must reach its checks (the input built) rather than stop at a rejection: a
 * twentieth. The inputs are drawn so that at least one in five build for every module (`usercontribs`, whose
 * rules refuse the most, builds 0.235 of 2,000 draws); at 40 runs, fewer than two built happens about once in
 * 3,400 for it. A tenth failed about once in 120 runs of it. Scaled below twenty runs, none is required.
 */
export function minimumBuilt(runs: number): number {
  return Math.floor(runs / 20);
}

/** The clock every build and validation in these tests reads (`now`). */
export const FIXED_NOW = Date.UTC(2024, 5, 1, 12, 34, 56, 789);

/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the years MediaWiki's 14-digit timestamps hold. */
const MIN_MS = -62_167_219_200_000;
const MAX_MS = 253_402_300_799_999;

const chars = (s: string): string[] => [...s];

/** Printable text, no control characters; `|` included so multi values need the U+001F form. */
const safeChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ß', 'Ж', '日', '😀', '\u00a0', '|') },
);
const safeString = fc.string({ unit: safeChar, minLength: 1, maxLength: 16 });

const nameStart = fc.constantFrom(...chars('abcxyzABCXYZéжÉ'));
const nameRest = fc.constantFrom(...chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 _-éж'));
/** A user name MediaWiki accepts (it may still need canonicalization: `adam_smith` → `Adam smith`). */
const userName = fc.tuple(nameStart, fc.string({ unit: nameRest, maxLength: 10 })).map(([a, b]) => a + b);

const ipv4Byte = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.boolean())
  .map(([n, pad]) => (pad && n < 100 ? String(n).padStart(3, '0') : String(n)));
const ipv4 = fc.tuple(ipv4Byte, ipv4Byte, ipv4Byte, ipv4Byte).map((b) => b.join('.'));
const hexWord = fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.boolean(), fc.boolean()).map(([n, upper, pad]) => {
  const s = pad ? n.toString(16).padStart(4, '0') : n.toString(16);
  return upper ? s.toUpperCase() : s;
});
const ipv6 = fc.oneof(
  fc.array(hexWord, { minLength: 8, maxLength: 8 }).map((w) => w.join(':')),
  fc
    .tuple(fc.array(hexWord, { maxLength: 7 }), fc.array(hexWord, { maxLength: 7 }))
    .filter(([l, r]) => l.length + r.length <= 7)
    .map(([l, r]) => `${l.join(':')}::${r.join(':')}`),
);
const ip = fc.oneof(ipv4, ipv6);
const cidr = fc.oneof(
  fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([a, p]) => `${a}/${p}`),
  // Not `::/n`: IPUtils::sanitizeIP() expands it to `0:0:0:0:0:0:0:/n`, so MediaWiki rejects it too.
  fc
    .tuple(ipv6, fc.integer({ min: 0, max: 128 }))
    .filter(([a]) => a !== '::')
    .map(([a, p]) => `${a}/${p}`),
);

/** A user value of one of the forms the parameter's `subtypes` allow. */
function userArb(settings: ParamInfo): fc.Arbitrary<string> {
  const subtypes = Array.isArray(settings.subtypes) ? settings.subtypes : ['name', 'ip', 'temp', 'cidr', 'interwiki'];
  const forms: fc.Arbitrary<string>[] = [];
  if (subtypes.includes('name')) forms.push(userName);
  if (subtypes.includes('name') || subtypes.includes('temp')) {
    forms.push(fc.nat({ max: 99_999 }).map((n) => `~2024-${n}`));
  }
  if (subtypes.includes('ip')) forms.push(ip);
  if (subtypes.includes('cidr')) forms.push(cidr);
  if (subtypes.includes('interwiki')) {
    forms.push(fc.tuple(fc.constantFrom('en', 'de', 'meta'), userName).map(([iw, n]) => `${iw}>${n}`));
  }
  if (subtypes.includes('id')) forms.push(fc.nat().map((n) => `#${n}`));
  return fc.oneof(...forms);
}

const titleRest = fc.constantFrom(...chars('abcdefXYZ0129 _-(),!é日/'));
/** A title's text without a namespace. */
const titleTextArb = fc
  .tuple(fc.constantFrom(...chars('abcXYZé日')), fc.string({ unit: titleRest, maxLength: 12 }))
  .map(([first, rest]) => first + rest);
const titleArb = fc
  .tuple(
    fc.constantFrom(
      '',
      'Talk:',
      'user:',
      'File:',
      'Image:',
      'Category:',
      'Help talk:',
      ':',
      'Special:',
      'Media:',
      'project_talk:',
    ),
    fc.constantFrom(...chars('abcXYZé日')),
    fc.string({ unit: titleRest, maxLength: 12 }),
  )
  .map(([ns, first, rest]) => ns + first + rest);

const dateArb = fc.oneof(
  fc.date({ min: new Date(MIN_MS), max: new Date(MAX_MS), noInvalidDate: true }),
  fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }),
);

/** The same instant in several of the string forms MediaWiki reads. */
function timestampForms(d: Date): string[] {
  const iso = d.toISOString();
  const forms = [
    iso,
    iso.replace(/\.\d{3}Z$/, 'Z'),
    toMwTimestamp(d.getTime()),
    String(Math.floor(d.getTime() / 1000)),
    iso.slice(0, 19).replace('T', ' '),
    `${iso.slice(0, 19)}.${String(d.getUTCMilliseconds()).padStart(3, '0')}417Z`,
    `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`,
  ];
  // A zone offset moves the instant: only where it stays within the years 0000-9999.
  if (d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9998) forms.push(`${iso.slice(0, 19)}+05:30`);
  // RFC 2822 (`Sat, 01 Jun 2024 12:34:56 GMT`) reads two- and three-digit years as 19xx/20xx.
  if (d.getUTCFullYear() >= 1000) forms.push(d.toUTCString());
  return forms;
}

const timestampArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: dateArb },
  { weight: 4, arbitrary: dateArb.chain((d) => fc.constantFrom(...timestampForms(d))) },
  { weight: 1, arbitrary: fc.constantFrom('now', '', '0') },
);

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function integerArb(settings: ParamInfo, apihighlimits: boolean): fc.Arbitrary<number> {
  const min = num(settings.min);
  const max = apihighlimits ? (num(settings.highmax) ?? num(settings.max)) : num(settings.max);
  if (min === undefined && max === undefined) {
    return fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.maxSafeInteger());
  }
  return fc.integer({ min: min ?? Number.MIN_SAFE_INTEGER, max: max ?? Number.MAX_SAFE_INTEGER });
}

function namespaceArb(settings: ParamInfo): fc.Arbitrary<number> {
  const extra = Array.isArray(settings.extranamespaces) ? settings.extranamespaces : [];
  const forms = [fc.integer({ min: 0, max: 15 }), fc.integer({ min: 100, max: 3000 })];
  if (extra.length > 0) forms.push(fc.constantFrom(...extra));
  return fc.oneof(...forms);
}

/** One valid value of a parameter (one element, for a multi-valued one). */
function singleArb(settings: ParamInfo, apihighlimits: boolean): fc.Arbitrary<unknown> {
  if (Array.isArray(settings.type)) return fc.constantFrom(...(settings.type as readonly string[]));
  switch (settings.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(settings, apihighlimits);
    case 'limit': {
      const bounds = integerArb({ ...settings, min: num(settings.min) ?? 0 }, apihighlimits);
      return fc.oneof(fc.constant('max'), bounds);
    }
    case 'timestamp':
      return timestampArb;
    case 'namespace':
      return namespaceArb(settings);
    case 'user':
      return userArb(settings);
    case 'title':
      return titleArb;
    default:
      // string and the types the runtime passes through; multi values may be empty strings.
      if (settings.multi) return fc.oneof({ weight: 9, arbitrary: safeString }, { weight: 1, arbitrary: fc.constant('') });
      if (settings.required) return safeString;
      return fc.oneof({ weight: 19, arbitrary: safeString }, { weight: 1, arbitrary: fc.constant('') });
  }
}

/** A valid typed value: for a multi-valued parameter, up to its cap of values or the all-specifier. */
export function typedArb(settings: ParamInfo, apihighlimits: boolean): fc.Arbitrary<unknown> {
  const single = singleArb(settings, apihighlimits);
  if (!settings.multi || settings.type === 'limit') return single;
  const low = num(settings.lowlimit) ?? 50;
  const cap = apihighlimits ? Math.max(low, num(settings.highlimit) ?? 500) : low;
  const values = fc.array(single, { maxLength: cap });
  const all = typeof settings.allspecifier === 'string' ? settings.allspecifier : settings.type === 'namespace' ? '*' : undefined;
  return all === undefined ? values : fc.oneof({ weight: 5, arbitrary: values }, { weight: 1, arbitrary: fc.constant(all) });
}

/**
 * How a client would send a typed value, written independently of the builder: booleans by
 * presence, dates as full ISO 8601 (milliseconds included), numbers in decimal, multi values with
 * MediaWiki's own `implodeMultiValue` (`|`, or U+001F when a value holds `|`).
 */
export function directRaw(value: unknown): string | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return '1';
  const scalar = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  if (Array.isArray(value)) return implodeMultiValue(value.map(scalar));
  return scalar(value);
}

/** Where the request is built: the `info` conditions depend on it (`deletedrevs`' modes). */
export interface InfoContext {
  /** Pages come from titles/pageids/revids or a generator (deletedrevs mode 1). */
  pages: boolean;
}

/**
 * Drops the parameters whose `info` condition would make MediaWiki fail (alldeletedrevisions'
 * `useronly`/`nonuseronly`, deletedrevs' `modes` without a default); the others only warn.
 */
function respectInfo(spec: ModuleSpec, params: Record<string, unknown>, ctx: InfoContext): Record<string, unknown> {
  const out = { ...params };
  const userGiven = out.user !== undefined;
  const mode = ctx.pages ? 1 : userGiven ? 2 : 3;
  for (const settings of spec.parameters) {
    for (const cond of settings.info ?? []) {
      const drop =
        (cond.name === 'useronly' && !userGiven) ||
        (cond.name === 'nonuseronly' && userGiven) ||
        (cond.name === 'modes' && settings.default === undefined && !(cond.values ?? []).map(Number).includes(mode));
      if (drop) delete out[settings.name];
    }
  }
  return out;
}

/** `contentformat-{slot}` → `['slot']`. */
function templateVars(name: string): string[] {
  return [...name.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/**
 * The values a templated parameter expands over: the normalized values of the parameter its one
 * variable names (given, or its default). Templates with several variables are not generated.
 */
export function templateTargetValues(
  spec: ModuleSpec,
  tpl: ParamInfo,
  params: Record<string, unknown>,
  options: BuildOptions,
): string[] {
  const vars = templateVars(tpl.name);
  if (vars.length !== 1) return [];
  const target = spec.parameters.find((p) => p.name === tpl.templatevars?.[vars[0]!]);
  if (!target) return [];
  const { value } = validateParam(target, directRaw(params[target.name]), { param: target.name, options });
  return Array.isArray(value) ? value.map(String).filter((v) => !/[{}]/.test(v)) : [];
}

/** The expanded name of a one-variable templated parameter for one value. */
export function expandedName(tpl: ParamInfo, value: string): string {
  return tpl.name.replaceAll(`{${templateVars(tpl.name)[0]}}`, value);
}

/** A valid typed parameter object for a module: required parameters always, `info` respected, templated ones keyed by their targets' values. */
export function validParamsArb(
  spec: ModuleSpec,
  options: BuildOptions,
  ctx: InfoContext = { pages: false },
): fc.Arbitrary<Record<string, unknown>> {
  const high = Boolean(options.apihighlimits);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of spec.parameters) model[p.name] = typedArb(p, high);
  const requiredKeys = spec.parameters.filter((p) => p.required).map((p) => p.name);
  const base = fc.record(model, { requiredKeys }).map((p) => respectInfo(spec, p, ctx));
  const templated = spec.templatedparameters ?? [];
  if (templated.length === 0) return base;
  return base.chain((params) => {
    const extra: Record<string, fc.Arbitrary<Record<string, unknown>>> = {};
    for (const tpl of templated) {
      const keys = templateTargetValues(spec, tpl, params, options);
      if (keys.length === 0) continue;
      extra[tpl.name] = fc.record(Object.fromEntries(keys.map((k) => [k, typedArb(tpl, high)])), { requiredKeys: [] });
    }
    return fc.record(extra, { requiredKeys: [] }).map((t) => ({ ...params, ...t }));
  });
}

/** Characters the parsers treat specially, as whole tokens, for strings that are almost valid. */
const trickyString = fc.string({
  unit: fc.constantFrom(
    '|',
    '\u001f',
    '*',
    ':',
    '#',
    '_',
    ' ',
    '0',
    '1',
    '9',
    '-',
    '+',
    '.',
    'T',
    'Z',
    'a',
    'A',
    'ß',
    'é',
    'max',
    '::',
    '/',
    '>',
    '~',
    '\u200e',
    '\u00a0',
    '&',
    ';',
    '&amp;',
    '&#58;',
    'User:',
    'Talk:',
    '\ud800',
    '\n',
    '{',
    '}',
    '%',
    '1.2.3.4',
    '2024-01-01T00:00:00Z',
  ),
  maxLength: 8,
});

/** Any value of any type, with the ones the builder treats specially mixed in. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({
    maxDepth: 2,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withTypedArray: true,
    withSparseArray: true,
    withUnicodeString: true,
  }),
  fc.constantFrom<unknown>(
    'max',
    '*',
    '',
    '|',
    '\u001f',
    '\u001fa\u001fb',
    // Values MediaWiki cleans, with a badutf8 warning: not NFC, a C0 control, a lone surrogate.
    'Cafe\u0301',
    'a\u0001b',
    'a\ud800',
    'now',
    '0',
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -0,
    1.5,
    2 ** 63,
    1e21,
    new Date(Number.NaN),
    new Date(MAX_MS + 1),
    new Date(MIN_MS - 1),
    true,
    false,
    null,
    undefined,
    Symbol('s'),
    () => 1,
    10n ** 20n,
    2n ** 62n,
    -(2n ** 63n),
    -1n,
    '9223372036854775807',
    '+9223372036854775807',
    '-9223372036854775809',
    '0x10',
    '1e3',
    ' 5',
    [],
    [undefined],
    [null],
    [''],
    [[1]],
    ['a|b', 'c'],
  ),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.date(), fc.constantFrom(null, undefined, '|', '*', '')), {
    maxLength: 60,
  }),
  trickyString,
  fc.array(trickyString, { maxLength: 60 }),
);

/** Build options a caller may pass, the clock pinned. */
export const optionsArb: fc.Arbitrary<BuildOptions> = fc.record(
  { apihighlimits: fc.boolean(), strict: fc.boolean(), now: fc.constant(() => FIXED_NOW) },
  { requiredKeys: ['now'] },
);

/** Keys a module does not declare, including the ones objects and the request itself care about. */
const extraKey = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'action', 'continue', 'format'),
);

/**
 * A parameter object for a module, hostile or nearly valid: most hostile objects are rejected (a module of many
 * parameters rejects all of them), so two in three are a valid object with up to two values replaced by any value
 * and maybe an undeclared key, which builds often enough to test what a built request carries.
 */
export function anyParamsArb(spec: ModuleSpec): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof({ weight: 1, arbitrary: hostileParamsArb(spec) }, { weight: 2, arbitrary: nearlyValidParamsArb(spec) });
}

/** A valid parameter object (limits within the low ones, so whatever the options) with up to two values replaced by any value, and maybe an undeclared key. */
function nearlyValidParamsArb(spec: ModuleSpec): fc.Arbitrary<Record<string, unknown>> {
  const names = [...spec.parameters, ...(spec.templatedparameters ?? [])].map((p) => p.name);
  const replaced = names.length === 0 ? fc.constant({}) : fc.dictionary(fc.constantFrom(...names), anyValue, { maxKeys: 2 });
  const required = new Set(spec.parameters.filter((p) => p.required).map((p) => p.name));
  // A few parameters at most: the more are given, the likelier two of them may not be used together (the rules).
  const rules = (spec.rules ?? []).filter((r) => r.when === undefined && r.pages === undefined);
  // One parameter of each group the module needs exactly one of (`cmtitle` or `cmpageid`), with a valid value.
  const oneOf = rules.flatMap((r) => (r.rule === 'only-one-of' ? [r.params] : []));
  const chosen = fc.tuple(
    ...oneOf.map((group) =>
      fc.constantFrom(...group).chain((name) => {
        const settings = spec.parameters.find((p) => p.name === name);
        if (!settings) return fc.constant(undefined);
        // A title the module wants in one namespace (`cmtitle` a category) is given in it.
        const namespace = rules.find((r) => r.rule === 'title' && r.params.includes(name) && r.namespace !== undefined);
        const prefix = CANONICAL_NAMESPACES.find(
          (ns) => namespace && 'namespace' in namespace && ns.id === namespace.namespace,
        )?.name;
        const value = prefix ? titleTextArb.map((text) => `${prefix}:${text}`) : typedArb(settings, false);
        return value.map((v) => [name, v] as const);
      }),
    ),
  );
  const few = validParamsArb(spec, { apihighlimits: false }).chain((valid) => {
    const optional = Object.keys(valid).filter((k) => !required.has(k));
    return fc.tuple(fc.subarray(optional, { maxLength: Math.min(3, optional.length) }), chosen).map(([kept, picks]) => {
      const params = Object.fromEntries(Object.entries(valid).filter(([k]) => required.has(k) || kept.includes(k)));
      for (const group of oneOf) for (const name of group) delete params[name];
      for (const pick of picks) if (pick) params[pick[0]] = pick[1];
      // At most one of each group that allows one at most.
      for (const r of rules)
        if (r.rule === 'max-one-of') for (const name of r.params.filter((n) => n in params).slice(1)) delete params[name];
      return respectInfo(spec, params, { pages: false });
    });
  });
  return fc
    .tuple(
      few,
      fc.oneof({ weight: 2, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: replaced }),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.dictionary(extraKey, anyValue, { maxKeys: 1 }) },
      ),
    )
    .map(([valid, hostile, extra]) => ({ ...extra, ...valid, ...hostile }));
}

/** A hostile parameter object for a module: each declared parameter given any value (or a valid one), plus undeclared keys. */
function hostileParamsArb(spec: ModuleSpec): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of spec.parameters) {
    model[p.name] = fc.oneof(anyValue, typedArb(p, true), fc.constant(undefined));
  }
  for (const tpl of spec.templatedparameters ?? []) {
    const record = fc.dictionary(
      fc.oneof(fc.constantFrom('main', 'aux', '{x}', ''), fc.string({ maxLength: 3 })),
      fc.oneof(anyValue, typedArb(tpl, true)),
      {
        maxKeys: 3,
      },
    );
    model[tpl.name] = fc.oneof(anyValue, record);
  }
  return fc
    .tuple(fc.record(model, { requiredKeys: [] }), fc.dictionary(extraKey, anyValue, { maxKeys: 3 }))
    .map(([given, extra]) => ({ ...extra, ...given }));
}
