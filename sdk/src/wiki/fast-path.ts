/**
 * The request builder's fast path: one module's plain values of the simple types (boolean, string,
 * enum, integer, limit, namespace, and their multi forms) that MediaWiki accepts as they are, encoded
 * straight to the strings sent. Anything else returns `undefined` and the full path
 * (`full-path.ts`) decides, so both give the same params, warnings and errors; `fast-path.test.ts`
 * checks both sides. Why: `query()`'s speed goal (`bench/wiki.ts`) is met only with it.
 * What does not depend on the value is worked out once per descriptor, so any wiki's modules get it.
 */

import { encodeFormComponent } from './form.js';
import { serialize } from './full-path.js';
import type { ModuleSpec, ParamInfo, SiteContext } from './types.js';
import { validateParam } from './validate/core.js';
import { bounds } from './validate/numeric.js';
import { cleanText } from './validate/text.js';

// Parameter kinds. SLOW: given at all, the module takes the full path.
const SLOW = 0;
const BOOLEAN = 1;
const STRING = 2;
const ENUM = 3;
const INTEGER = 4;
const LIMIT = 5;
const NAMESPACE = 6;
const ENUM_MULTI = 7;
const STRING_MULTI = 8;
const INTEGER_MULTI = 9;
const NAMESPACE_MULTI = 10;

const INT32_MAX = 2 ** 31 - 1;
/** `|` encoded: multi values are joined with it. */
const PIPE = '%7C';

/** One parameter, everything but the value precomputed. One shape for all kinds, so property reads stay monomorphic. */
interface FastParam {
  kind: number;
  /** Position in the module's `parameters`: the order parameters are sent in. */
  position: number;
  required: boolean;
  /** The prefixed name as sent: [own prefix, generator `g` + prefix]. */
  keys: readonly [string, string];
  /** `&` + the encoded prefixed name + `=`, for each prefix. */
  heads: readonly [string, string];
  /** Enums: each accepted value → its encoded form (deprecated values and odd ones left out: they take the full path). */
  values: ReadonlyMap<string, string> | undefined;
  /** Integers and limits: the range, the upper bound per apihighlimits (`[normal, high]`). */
  min: number;
  upper: readonly [number, number];
  /** Limits: what `max` is sent as, per apihighlimits. */
  max: readonly [string | undefined, string | undefined];
  /** Namespaces: the extra numbers accepted below 0. */
  extras: readonly number[];
  /** Multi values: at most this many (the low cap; more takes the full path, which knows apihighlimits). */
  cap: number;
  dedupe: boolean;
  /** Multi values: the typed string meaning "all values", sent as it is. */
  all: string | undefined;
}

interface FastPlan {
  /** Unprefixed name → parameter (templated names as written, marked SLOW). */
  byName: ReadonlyMap<string, FastParam>;
  /** Whether the module may take the fast path at all, per apihighlimits. */
  eligible: readonly [boolean, boolean];
  /** How many parameters are required: each must be given. */
  required: number;
}

const plans = new WeakMap<ModuleSpec, FastPlan>();

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/**
 * A key a plain object keeps where it was inserted (not an array index) and does not inherit
 * (`constructor`, `__proto__`, …): the caller sets fast keys without looking first.
 */
function isPlainKey(key: string): boolean {
  return !(key in Object.prototype) && !(/^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1);
}

function kindOf(spec: ModuleSpec, settings: ParamInfo): number {
  // A descriptor's own validator for a type replaces the built-in one the fast path mirrors: let the full path run it.
  if (spec.types && Object.hasOwn(spec.types, Array.isArray(settings.type) ? 'enum' : String(settings.type))) return SLOW;
  if (settings.deprecated || (settings.info && settings.info.length > 0)) return SLOW;
  if (settings.maxbytes !== undefined || settings.maxchars !== undefined) return SLOW;
  const { type, multi } = settings;
  if (multi && (!isCount(settings.lowlimit ?? 0) || !isCount(settings.highlimit ?? 0))) return SLOW;
  if (Array.isArray(type)) return multi ? ENUM_MULTI : ENUM;
  switch (type) {
    case 'boolean':
    case 'checkbox':
      return multi || settings.required ? SLOW : BOOLEAN;
    case 'string':
    case 'text':
    case 'raw':
    case 'password':
      return multi ? STRING_MULTI : STRING;
    case 'integer':
      return multi ? INTEGER_MULTI : INTEGER;
    case 'limit':
      return multi ? SLOW : LIMIT;
    case 'namespace':
      return multi ? NAMESPACE_MULTI : NAMESPACE;
    default:
      return SLOW;
  }
}

const toNumber = (n: bigint | undefined, otherwise: number): number => (n === undefined ? otherwise : Number(n));

function fastParam(spec: ModuleSpec, settings: ParamInfo, position: number): FastParam {
  const keys = [spec.prefix + settings.name, `g${spec.prefix}${settings.name}`] as const;
  const param: FastParam = {
    kind: kindOf(spec, settings),
    position,
    required: Boolean(settings.required),
    keys,
    heads: [`&${encodeFormComponent(keys[0])}=`, `&${encodeFormComponent(keys[1])}=`],
    values: undefined,
    min: Number.NEGATIVE_INFINITY,
    upper: [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
    max: [undefined, undefined],
    extras: [],
    cap: typeof settings.lowlimit === 'number' ? settings.lowlimit : 50,
    dedupe: !settings.allowsduplicates,
    all: undefined,
  };
  const { kind } = param;
  if (kind === ENUM || kind === ENUM_MULTI) {
    const deprecated = Array.isArray(settings.deprecatedvalues) ? settings.deprecatedvalues : [];
    const all = typeof settings.allspecifier === 'string' ? settings.allspecifier : undefined;
    const values = new Map<string, string>();
    for (const value of settings.type as readonly unknown[]) {
      if (typeof value !== 'string' || deprecated.includes(value) || value.startsWith('\u001f')) continue;
      if (kind === ENUM_MULTI && (value.includes('|') || value.includes('\u001f') || value === all)) continue;
      values.set(value, encodeFormComponent(value));
    }
    param.values = values;
    // The all-specifier alone is sent as given, unless it would be split or read as no value.
    if (kind === ENUM_MULTI && all !== undefined && all !== '' && !all.includes('|') && !all.startsWith('\u001f')) {
      param.all = all;
    }
  } else if (kind === NAMESPACE_MULTI) {
    // NamespaceDef makes `*` the all-specifier of every multi namespace parameter; it is sent as `*`.
    param.all = '*';
  }
  if (kind === INTEGER || kind === INTEGER_MULTI || kind === LIMIT) {
    // LimitDef::normalizeSettings: min defaults to 0.
    const range = bounds(kind === LIMIT ? { ...settings, min: settings.min ?? 0 } : settings);
    param.min = toNumber(range.min, Number.NEGATIVE_INFINITY);
    const max = toNumber(range.max, Number.POSITIVE_INFINITY);
    const highmax = toNumber(range.highmax, max);
    param.upper = [max, highmax > max ? highmax : max];
  }
  if (kind === LIMIT) param.max = [limitMax(spec, settings, false), limitMax(spec, settings, true)];
  if (kind === NAMESPACE || kind === NAMESPACE_MULTI) {
    const extras = Array.isArray(settings.extranamespaces) ? settings.extranamespaces : [];
    param.extras = extras.filter((n) => typeof n === 'number');
  }
  if (!isPlainKey(keys[0]) || !isPlainKey(keys[1])) param.kind = SLOW;
  return param;
}

/** What `max` is sent as, asked of the validator itself; `undefined` (full path) if it would warn. */
function limitMax(spec: ModuleSpec, settings: ParamInfo, apihighlimits: boolean): string | undefined {
  const param = spec.prefix + settings.name;
  const validated = validateParam(settings, 'max', { param, module: spec.path, options: { apihighlimits }, types: spec.types });
  return validated.warnings.length > 0 ? undefined : serialize(validated.value, settings);
}

/** Whether the module's absent parameters and templated ones stay silent (no warning, nothing sent) whatever is given. */
function isEligible(spec: ModuleSpec, byName: ReadonlyMap<string, FastParam>, apihighlimits: boolean): boolean {
  for (const settings of spec.parameters) {
    if (settings.required || settings.default === undefined) continue;
    // A timestamp default moves with the clock (and may warn): the full path reads it on every build.
    if (settings.type === 'timestamp') return false;
    const validated = validateParam(settings, undefined, {
      param: settings.name,
      module: spec.path,
      options: { apihighlimits },
      types: spec.types,
    });
    if (validated.warnings.length > 0) return false;
  }
  for (const settings of spec.templatedparameters ?? []) {
    // An expansion the caller leaves out is read as absent: silent only without a default or `required`.
    if (settings.required || settings.default !== undefined) return false;
    // Its names come from its targets' values: those of an enum without `{`/`}`, or namespace numbers, never warn.
    for (const target of Object.values(settings.templatevars ?? {})) {
      const targetParam = byName.get(target);
      const targetSettings = targetParam ? spec.parameters[targetParam.position] : undefined;
      if (!targetSettings || targetSettings.name !== target) return false;
      const { type } = targetSettings;
      const braceFree = Array.isArray(type)
        ? type.every((v) => typeof v === 'string' && !/[{}]/.test(v))
        : type === 'namespace' || type === 'integer';
      if (!braceFree) return false;
    }
  }
  return true;
}

function planFor(spec: ModuleSpec): FastPlan {
  let plan = plans.get(spec);
  if (!plan) {
    const byName = new Map<string, FastParam>();
    spec.parameters.forEach((settings, position) => {
      if (!byName.has(settings.name)) byName.set(settings.name, fastParam(spec, settings, position));
    });
    for (const settings of spec.templatedparameters ?? []) {
      if (!byName.has(settings.name)) byName.set(settings.name, { ...fastParam(spec, settings, -1), kind: SLOW });
    }
    const distinct = byName.size === spec.parameters.length + (spec.templatedparameters?.length ?? 0);
    plan = {
      byName,
      // Duplicate names: the full path's reading order decides, so leave it to that.
      eligible: [distinct && isEligible(spec, byName, false), distinct && isEligible(spec, byName, true)],
      required: spec.parameters.filter((p) => p.required).length,
    };
    plans.set(spec, plan);
  }
  return plan;
}

/** `x` appears in `values` before index `i`. */
function seenBefore(values: readonly unknown[], x: unknown, i: number): boolean {
  for (let j = 0; j < i; j++) if (values[j] === x) return true;
  return false;
}

/** Safe integers in the parameter's range, per apihighlimits. */
function inRange(p: FastParam, n: unknown, high: number): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= p.min && n <= p.upper[high]!;
}

/**
 * NamespaceDef: one of the wiki's namespaces when they are known (`ns`), else any number from 0 to
 * 2^31−1; or an extra one.
 */
function isNamespace(p: FastParam, n: unknown, ns: ReadonlySet<number> | undefined): n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) return false;
  return (ns === undefined ? n >= 0 && n <= INT32_MAX : ns.has(n)) || p.extras.includes(n);
}

/** The wiki's namespace numbers (≥ 0) per site context, worked out once per context. */
const namespaceSets = new WeakMap<SiteContext, ReadonlySet<number> | undefined>();
export function namespaceSet(site: SiteContext | undefined): ReadonlySet<number> | undefined {
  if (site === undefined) return undefined;
  if (namespaceSets.has(site)) return namespaceSets.get(site);
  const set = site.namespaces ? new Set(site.namespaces.map((n) => n.id).filter((id) => id >= 0)) : undefined;
  namespaceSets.set(site, set);
  return set;
}

/**
 * Appends `key, wire, encoded` for one given value to `out` (nothing for `false`); `false` when the
 * value needs the full path.
 */
function encodeValue(
  p: FastParam,
  value: unknown,
  generator: number,
  high: number,
  out: string[],
  ns: ReadonlySet<number> | undefined,
): boolean {
  const key = p.keys[generator]!;
  const head = p.heads[generator]!;
  switch (p.kind) {
    case BOOLEAN:
      if (typeof value !== 'boolean') return false;
      if (value) out.push(key, '1', `${head}1`);
      return true;
    case STRING:
      // U+001F first would announce multiple values; '' is missing when required.
      if (typeof value !== 'string' || value.charCodeAt(0) === 0x1f || (value === '' && p.required)) return false;
      // A value MediaWiki would clean (and warn `badutf8` about): the full path does both.
      if (cleanText(value) !== value) return false;
      out.push(key, value, head + encodeFormComponent(value));
      return true;
    case ENUM: {
      const encoded = typeof value === 'string' ? p.values!.get(value) : undefined;
      if (encoded === undefined) return false;
      out.push(key, value as string, head + encoded);
      return true;
    }
    case INTEGER:
    case LIMIT: {
      if (inRange(p, value, high)) {
        const s = String(value);
        out.push(key, s, head + s);
        return true;
      }
      const max = p.kind === LIMIT && value === 'max' ? p.max[high] : undefined;
      if (max === undefined) return false;
      out.push(key, max, head + max);
      return true;
    }
    case NAMESPACE: {
      if (!isNamespace(p, value, ns)) return false;
      const s = String(value);
      out.push(key, s, head + s);
      return true;
    }
    default:
      return encodeMulti(p, value, key, head, high, out, ns);
  }
}

function encodeMulti(
  p: FastParam,
  value: unknown,
  key: string,
  head: string,
  high: number,
  out: string[],
  ns: ReadonlySet<number> | undefined,
): boolean {
  if (!Array.isArray(value)) {
    if (p.all === undefined || value !== p.all) return false;
    out.push(key, value, head + encodeFormComponent(value));
    return true;
  }
  const n = value.length;
  // `['']` is sent as `|`: two values, counted against the cap.
  if ((n === 1 && value[0] === '' ? 2 : n) > p.cap) return false;
  // Concatenation beats Array#join at these sizes.
  let wire = '';
  let encoded = '';
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const v: unknown = value[i];
    let s: string;
    let e: string;
    switch (p.kind) {
      case ENUM_MULTI: {
        const hit = typeof v === 'string' ? p.values!.get(v) : undefined;
        if (hit === undefined) return false;
        s = v as string;
        e = hit;
        break;
      }
      case STRING_MULTI:
        if (typeof v !== 'string' || v.includes('|') || v.includes('\u001f') || (v === '' && p.required)) return false;
        if (cleanText(v) !== v) return false;
        s = v;
        e = encodeFormComponent(v);
        break;
      case INTEGER_MULTI:
        if (!inRange(p, v, high)) return false;
        s = String(v);
        e = s;
        break;
      default:
        if (!isNamespace(p, v, ns)) return false;
        s = String(v);
        e = s;
    }
    if (p.dedupe && i > 0 && seenBefore(value, v, i)) continue;
    if (kept > 0) {
      wire += '|';
      encoded += PIPE;
    }
    wire += s;
    encoded += e;
    kept++;
  }
  // implodeMultiValue: one empty value alone is written `|`.
  if (kept === 1 && wire === '') {
    wire = '|';
    encoded = PIPE;
  }
  out.push(key, wire, head + encoded);
  return true;
}

/**
 * One module's parameters on the fast path: `[key, wire, '&' + encoded key + '=' + encoded wire, …]`
 * in the module's order, exactly what `buildModule` would send (which then gives no warnings); or
 * `undefined` when the full path has to decide.
 */
export function fastModule(
  spec: ModuleSpec,
  input: Readonly<Record<string, unknown>>,
  generator: boolean,
  apihighlimits: boolean,
  /** The wiki's namespace numbers, when known ({@link namespaceSet}). */
  ns?: ReadonlySet<number>,
): string[] | undefined {
  const plan = planFor(spec);
  const high = apihighlimits ? 1 : 0;
  if (!plan.eligible[high]) return undefined;
  const g = generator ? 1 : 0;
  let names = Object.keys(input);
  // One pass, encoding as it goes, while the keys come in the module's order (the usual case); keys
  // out of that order are sorted into it and the pass starts again (the result does not depend on the
  // order the values are checked in, only on the order they are sent in).
  for (;;) {
    const out: string[] = [];
    let last = -1;
    let required = 0;
    let sorted = true;
    for (const name of names) {
      const value = input[name];
      if (value === undefined) continue;
      const p = plan.byName.get(name);
      if (p === undefined) return undefined;
      // `null` reads as absent.
      if (value === null) continue;
      if (p.kind === SLOW) return undefined;
      if (p.position < last) {
        sorted = false;
        break;
      }
      last = p.position;
      if (p.required) required++;
      if (!encodeValue(p, value, g, high, out, ns)) return undefined;
    }
    if (sorted) return required < plan.required ? undefined : out;
    const position = (name: string) => plan.byName.get(name)?.position ?? -1;
    names = names.sort((a, b) => position(a) - position(b));
  }
}
