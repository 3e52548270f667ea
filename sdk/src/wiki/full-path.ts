/**
 * The request builder's full path, for every value the fast path (`fast-path.ts`) leaves: one module's
 * parameters, typed value → the raw string a browser would send → MediaWiki's own validation
 * (`validateParam`, so the builder gives exactly the API's verdict) → the normalized value,
 * serialized. Absent parameters are not sent; defaults are applied by the validator only to reason
 * about the request (templated expansions, `info` conditions), never sent.
 *
 * What follows MediaWiki (ApiBase::extractRequestParams, ApiMain::reportUnusedParams):
 * - keys the module does not know produce an `unrecognizedparams` warning (module `main`) and are dropped;
 * - templated parameters (`contentformat-{slot}`) expand once per value of the parameter each variable
 *   names (`slots=main` → `contentformat-main`); a value containing `{` or `}` is skipped with one
 *   `ignoring-invalid-templated-value` warning; a target without values gives no expansions; a key
 *   the caller gave for a value that is not among the target's values is never read by MediaWiki, so
 *   it is an `unrecognizedparams` warning here too.
 *
 * Serialization: multi values joined with `|` (U+001F-prefixed when a value holds `|`), booleans as
 * `1` when true (absent otherwise), timestamps as `YYYY-MM-DDTHH:MM:SSZ`, `limit=max` as the number it
 * resolves to (`max`, or `highmax` with `apihighlimits`). Two exceptions keep the caller's words
 * because the server reads them better: a multi value equal to the all-specifier (`*`) is sent as
 * `*`, and a timestamp meaning "now" (`now`, and `''`/`0` with their `unclearnowtimestamp`
 * warning) is sent as `now`, so the server's clock decides and continuation stays stable.
 *
 * Templated parameters and the `info` conditions are read by `templated.ts` and `info.ts`, which a
 * descriptor that needs them carries (`readTemplated`, `checkInfo`): other modules' bundles do without.
 */
import { checkInfoConditions } from './info.js';
import { readTemplated } from './templated.js';
import type { BuildOptions, ModuleSpec, ParamInfo, QueryContext, WikiWarning } from './types.js';
import { WikiParamError } from './types.js';
import type { Validated } from './validate/context.js';
import { validateParam } from './validate/core.js';
import { implodeMultiValue } from './validate/multi.js';
import { withAllTypes } from './validate/registry.js';
import { cleanText } from './validate/text.js';

const hasInfo = (p: ParamInfo): boolean => p.info !== undefined && p.info.length > 0;

/** A descriptor's feature its parameters need; missing, a programming error rather than a check skipped. */
function need<F>(spec: ModuleSpec, feature: F | undefined, what: string, key: string): F {
  if (feature === undefined) {
    throw new TypeError(`Module "${spec.name}" has ${what} but no \`${key}\`: define it with defineModule().`);
  }
  return feature;
}

export interface BuildModuleOptions {
  /** The prefix as sent: the module's own, or `g` + it when the module is the generator. */
  prefix: string;
  options?: BuildOptions | undefined;
  context?: QueryContext | undefined;
}

export interface BuiltModule {
  /** Prefixed name → serialized value, only for parameters the caller gave. */
  params: Record<string, string>;
  warnings: WikiWarning[];
  /** Unprefixed name (templated ones expanded) → MediaWiki's normalized value, defaults included. */
  values: Record<string, unknown>;
}

const EMPTY_CONTEXT: QueryContext = { pageCount: 0, revidCount: 0, generator: false };

/** What a module's descriptor implies, worked out once per descriptor rather than on every build. */
interface ModulePlan {
  /** Unprefixed names the module reads (templated ones as written, `contentformat-{slot}`). */
  known: ReadonlySet<string>;
  /** Name → position in `parameters` (templated ones excluded). */
  position: ReadonlyMap<string, number>;
  /** Whether any parameter carries `info` conditions. */
  hasInfo: boolean;
  /** Per apihighlimits: every parameter's value when absent, for those whose absent value is fixed. */
  absent: [AbsentValues | undefined, AbsentValues | undefined];
}

interface AbsentValues {
  /**
   * Name → value when absent (the validated default, or `undefined`/`false`) for every parameter not
   * in `volatile`; without a prototype, as each build's values inherit from it.
   */
  values: Readonly<Record<string, unknown>>;
  /**
   * Parameters validated on every build even when absent: required ones (`missingparam`), timestamps
   * (a default of `now` moves), and defaults that warn: their positions in `parameters`, ascending.
   */
  volatile: readonly number[];
}

const plans = new WeakMap<ModuleSpec, ModulePlan>();

function planFor(spec: ModuleSpec): ModulePlan {
  let plan = plans.get(spec);
  if (!plan) {
    const templated = spec.templatedparameters ?? [];
    plan = {
      known: new Set([...spec.parameters.map((p) => p.name), ...templated.map((p) => p.name)]),
      position: new Map(spec.parameters.map((p, i) => [p.name, i])),
      hasInfo: spec.parameters.some(hasInfo),
      absent: [undefined, undefined],
    };
    plans.set(spec, plan);
  }
  return plan;
}

function absentValuesFor(spec: ModuleSpec, highLimits: boolean): AbsentValues {
  const plan = planFor(spec);
  const index = highLimits ? 1 : 0;
  let absent = plan.absent[index];
  if (!absent) {
    const values: Record<string, unknown> = Object.create(null);
    const volatile: number[] = [];
    spec.parameters.forEach((settings, position) => {
      if (settings.required || settings.type === 'timestamp') {
        volatile.push(position);
        return;
      }
      const options = { apihighlimits: highLimits };
      const validated = validateParam(settings, undefined, {
        param: settings.name,
        module: spec.path,
        options,
        types: spec.types,
      });
      if (validated.warnings.length > 0) {
        volatile.push(position);
      } else {
        // Shared by every build: a multi default must not be changed through one of them.
        values[settings.name] = Array.isArray(validated.value) ? Object.freeze(validated.value) : validated.value;
      }
    });
    absent = { values, volatile };
    plan.absent[index] = absent;
  }
  return absent;
}

/**
 * A validator warning as the Action API reports it (ApiParamValidatorCallbacks::recordCondition):
 * ParamValidator's `param-deprecated` and `deprecated-value` become `deprecation` with the feature
 * used; the rest keep their codes.
 */
function apiWarning(w: WikiWarning, spec: ModuleSpec, prefix: string, raw: string | undefined): WikiWarning {
  if (w.code !== 'param-deprecated' && w.code !== 'deprecated-value') return w;
  const generator = prefix !== spec.prefix;
  const head = `action=query&${generator ? 'generator' : spec.group}=${spec.name}&`;
  const value = w.code === 'deprecated-value' ? `=${String(w.data?.value ?? raw)}` : '';
  return { ...w, code: 'deprecation', libraryCode: w.code, data: { ...(w.data ?? {}), feature: `${head}${w.param}${value}` } };
}

/**
 * An error with the warnings raised before it, as MediaWiki returns them beside it. Main-module
 * `unrecognizedparams` is left out: ApiMain reports unused parameters only after a module succeeds.
 */
export function withWarnings<E>(e: E, before: readonly WikiWarning[]): E {
  if (!(e instanceof WikiParamError) || before.length === 0) return e;
  e.warnings = [...before.filter((w) => w.code !== 'unrecognizedparams'), ...e.warnings];
  return e;
}

/** `YYYY-MM-DDTHH:MM:SSZ`, the form MediaWiki answers in (sub-second precision is dropped). */
export function formatTimestamp(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) return 'Invalid Date';
  return `${new Date(ms - (((ms % 1000) + 1000) % 1000)).toISOString().slice(0, 19)}Z`;
}

function scalarToRaw(value: unknown, param: string, module: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '';
  if (value instanceof Date) return formatTimestamp(value);
  throw new WikiParamError('badvalue', param, `Parameter "${param}" got an unsupported value (${typeof value}).`, module, {
    value: typeof value,
  });
}

/**
 * The raw request string for a typed value, or `undefined` when the parameter is not sent:
 * numbers in decimal, `true` present and `false` absent (booleans), `Date` as ISO, arrays joined
 * (`|`, or U+001F-prefixed when a value holds `|`), `'max'` kept for the validator.
 */
export function toRaw(value: unknown, param: string, module: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? '1' : undefined;
  if (Array.isArray(value)) return implodeMultiValue(value.map((v) => scalarToRaw(v, param, module)));
  return scalarToRaw(value, param, module);
}

/** The normalized value as MediaWiki would read it back, or `undefined` when nothing is sent. */
export function serialize(value: unknown, settings: ParamInfo): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (settings.type === 'boolean' || typeof value === 'boolean') return value ? '1' : undefined;
  if (Array.isArray(value)) return implodeMultiValue(value.map((v) => serializeScalar(v, settings)));
  return serializeScalar(value, settings);
}

function serializeScalar(value: unknown, settings: ParamInfo): string {
  if (value instanceof Date) return formatTimestamp(value);
  // A title without text (`#`, `#Section`: a fragment alone) normalizes to `''`, which MediaWiki
  // reads as no title at all (`badtitle`); `#` is read back as that same empty title.
  if (settings.type === 'title' && value === '') return '#';
  return String(value);
}

/**
 * Validates and serializes one module's parameters. Throws `WikiParamError` on MediaWiki's errors
 * (and, with `options.strict`, on the first warning).
 */
export function buildModuleParams(
  spec: ModuleSpec,
  input: Readonly<Record<string, unknown>>,
  options: BuildModuleOptions,
): BuiltModule {
  const built = buildModule(withEveryType(spec), input, options);
  const values: Record<string, unknown> = {};
  for (const name in built.values) values[name] = built.values[name];
  return { ...built, values };
}

/**
 * A descriptor given to a public entry point, completed with every built-in type and, when its
 * parameters need them, the templated-parameter reader and the `info` checker (once per descriptor).
 */
const completed = new WeakMap<ModuleSpec, ModuleSpec>();
export function withEveryType(spec: ModuleSpec): ModuleSpec {
  let full = completed.get(spec);
  if (full === undefined) {
    const types = withAllTypes(spec.types);
    const readsTemplated = spec.readTemplated === undefined && (spec.templatedparameters?.length ?? 0) > 0;
    const checksInfo = spec.checkInfo === undefined && spec.parameters.some(hasInfo);
    full =
      types === spec.types && !readsTemplated && !checksInfo
        ? spec
        : Object.freeze({
            ...spec,
            types,
            ...(readsTemplated ? { readTemplated } : {}),
            ...(checksInfo ? { checkInfo: checkInfoConditions } : {}),
          });
    completed.set(spec, full);
  }
  return full;
}

/**
 * {@link buildModuleParams} as `query()` runs it: the descriptor supplies its own non-core types
 * (`spec.types`), and the absent parameters' values are inherited (read them, do not enumerate them).
 */
export function buildModule(
  spec: ModuleSpec,
  input: Readonly<Record<string, unknown>>,
  { prefix, options, context = EMPTY_CONTEXT }: BuildModuleOptions,
): BuiltModule {
  const params: Record<string, string> = {};
  const warnings: WikiWarning[] = [];
  const absent = absentValuesFor(spec, Boolean(options?.apihighlimits));
  // Absent parameters' values come through the prototype: copying them costs more than all the rest.
  const values: Record<string, unknown> = Object.create(absent.values);
  const given = new Set<string>();
  const module = spec.path;
  const { known, position, hasInfo: hasInfoConditions } = planFor(spec);

  // The parameters to read, in the module's order: those given, and those whose absence needs a look.
  let toRead: number[] | undefined;
  for (const key of Object.keys(input)) {
    if (input[key] === undefined) continue;
    const at = position.get(key);
    if (at !== undefined) {
      toRead ??= [...absent.volatile];
      toRead.push(at);
    } else if (!known.has(key)) {
      warnings.push({
        code: 'unrecognizedparams',
        param: prefix + key,
        module: 'main',
        data: { params: [prefix + key], module },
      });
    }
  }
  const positions: readonly number[] = toRead ? toRead.sort((a, b) => a - b) : absent.volatile;

  const read = (settings: ParamInfo, name: string, value: unknown) => {
    const param = prefix + name;
    let typed = value;
    // A list for a single value is what a PHP-style form sends as `name[]=…`: ApiMain::getVal ignores it and says so.
    if (Array.isArray(typed) && !settings.multi) {
      warnings.push({ code: 'unsupportedarray', param, module: 'main', data: { param } });
      typed = undefined;
    }
    let raw = toRaw(typed, param, module);
    if (raw !== undefined) {
      // MediaWiki reads the cleaned value (invalid or forbidden characters → U+FFFD, NFC), and says so first.
      const clean = cleanText(raw);
      if (clean !== raw) {
        warnings.push({ code: 'badutf8', param, module, data: { value: clean } });
        raw = clean;
      }
    }
    // Only templated expansions need a copy under their expanded name (validators never mutate settings).
    const named = settings.name === name ? settings : { ...settings, name };
    let validated: Validated;
    try {
      validated = validateParam(named, raw, { param, module, options, site: options?.site, types: spec.types });
    } catch (e) {
      if (e instanceof WikiParamError) e.warnings = e.warnings.map((w) => apiWarning(w, spec, prefix, raw));
      throw e;
    }
    values[name] = validated.value;
    if (validated.warnings.length > 0) for (const w of validated.warnings) warnings.push(apiWarning(w, spec, prefix, raw));
    if (raw === undefined) return;
    given.add(name);
    const wire =
      settings.multi && settings.allspecifier !== undefined && raw === settings.allspecifier
        ? settings.allspecifier
        : settings.type === 'timestamp' && !settings.multi && (raw === 'now' || raw === '' || raw === '0')
          ? 'now'
          : serialize(validated.value, settings);
    if (wire !== undefined) params[param] = wire;
  };

  // ApiBase::extractRequestParams reads every parameter, keeping a failure as that parameter's result, and
  // throws the first failure only once all are read: the warnings of the parameters after it come with it.
  let failed: WikiParamError | undefined;
  const readOn = (settings: ParamInfo, name: string, typed: unknown) => {
    try {
      read(settings, name, typed);
    } catch (e) {
      if (!(e instanceof WikiParamError)) throw e;
      warnings.push(...e.warnings);
      e.warnings = [];
      failed ??= e;
    }
  };
  try {
    let last = -1;
    for (const at of positions) {
      // A given parameter may also be a volatile absent one: read it once (its warnings once).
      if (at === last) continue;
      last = at;
      const settings = spec.parameters[at]!;
      readOn(settings, settings.name, input[settings.name]);
    }
    if (spec.templatedparameters !== undefined && spec.templatedparameters.length > 0) {
      need(spec, spec.readTemplated, 'templated parameters', 'readTemplated')(spec, prefix, input, values, warnings, readOn);
    }
    if (failed !== undefined) throw failed;
    if (hasInfoConditions) {
      warnings.push(...need(spec, spec.checkInfo, '`info` conditions', 'checkInfo')(spec, prefix, given, values, context));
    }
  } catch (e) {
    throw withWarnings(e, warnings);
  }

  if (options?.strict && warnings.length > 0) throw strictError(warnings, warnings);
  return { params, warnings, values };
}

/** The error `strict` makes of the first warning, listing `listed` in its data (`query()` lists a copy). */
export function strictError(warnings: readonly WikiWarning[], listed: WikiWarning[]): WikiParamError {
  const w = warnings[0]!;
  return new WikiParamError(w.code, w.param, `Warning treated as an error (strict): ${w.code} on "${w.param}".`, w.module, {
    ...(w.data ?? {}),
    warnings: listed,
  });
}
