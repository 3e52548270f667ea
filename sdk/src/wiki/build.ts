/**
 * Builds one module's parameters: typed value → the raw string a browser would send → MediaWiki's own
 * validation (`validateParam`, so the builder gives exactly the API's verdict) → the normalized value,
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
 * The `info` conditions (see {@link checkInfoConditions}) report what the modules do at run time.
 */
import type { BuildOptions, ModuleSpec, ParamInfo, WikiWarning } from './types.js';
import { WikiParamError } from './types.js';
import type { Validated } from './validate/context.js';
import { validateParam } from './validate/core.js';
import { implodeMultiValue } from './validate/multi.js';
import { withAllTypes } from './validate/registry.js';

/** What the rest of the query tells a module's `info` conditions. */
export interface QueryContext {
  /** Number of titles plus page IDs given (after validation); `revids` counted apart. */
  pageCount: number;
  /** Number of revision IDs given. */
  revidCount: number;
  /** A generator supplies the pages (for a module that is not itself the generator). */
  generator: boolean;
}

export interface BuildModuleOptions {
  /** The prefix as sent: the module's own, or `g` + it when the module is the generator. */
  prefix: string;
  options?: BuildOptions;
  context?: QueryContext;
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
  /** The parameters that carry `info` conditions. */
  withInfo: readonly ParamInfo[];
  /** Each templated parameter's variables, in the order they appear in its name. */
  templateVars: ReadonlyMap<ParamInfo, readonly string[]>;
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
      withInfo: spec.parameters.filter((p) => p.info && p.info.length > 0),
      templateVars: new Map(templated.map((p) => [p, templateVariables(p.name)])),
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
export function apiWarning(w: WikiWarning, spec: ModuleSpec, prefix: string, raw: string | undefined): WikiWarning {
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

/** Placeholder names in a templated name, in the order they appear (`a-{m}-{t}` → `m`, `t`). */
export function templateVariables(name: string): string[] {
  return [...name.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

interface Expansion {
  /** Unprefixed expanded name. */
  name: string;
  /** Placeholder → value. */
  bindings: Record<string, string>;
}

/**
 * MediaWiki's expansion of one templated parameter against the values already read (ApiBase's
 * queue: a variable whose target is not read yet waits; a target without values ends it).
 */
function expandTemplate(
  settings: ParamInfo,
  values: Record<string, unknown>,
  onInvalid: (target: string, value: string) => void,
): Expansion[] {
  const out: Expansion[] = [];
  const queue: { name: string; targets: Record<string, string>; bindings: Record<string, string> }[] = [
    { name: settings.name, targets: { ...(settings.templatevars ?? {}) }, bindings: {} },
  ];
  while (queue.length > 0) {
    const { name, targets, bindings } = queue.shift()!;
    for (const [placeholder, target] of Object.entries(targets)) {
      if (!(target in values)) continue;
      const targetValues = values[target];
      if (!Array.isArray(targetValues) || targetValues.length === 0) break;
      const rest = { ...targets };
      delete rest[placeholder];
      const token = `{${placeholder}}`;
      for (const raw of targetValues) {
        const value = String(raw);
        if (/[{}]/.test(value)) {
          onInvalid(target, value);
          continue;
        }
        const newName = name.replaceAll(token, value);
        const newBindings = { ...bindings, [placeholder]: value };
        if (Object.keys(rest).length === 0) {
          out.push({ name: newName, bindings: newBindings });
        } else {
          const newTargets: Record<string, string> = {};
          for (const [k, v] of Object.entries(rest)) newTargets[k] = v.replaceAll(token, value);
          queue.push({ name: newName, targets: newTargets, bindings: newBindings });
        }
      }
      break;
    }
  }
  return out;
}

/**
 * Every expanded name a caller's nested record spells (`{main: 'x'}` under `contentformat-{slot}` →
 * `contentformat-main`), nesting in the order the variables appear in the name.
 */
function givenTemplatedValues(
  settings: ParamInfo,
  vars: readonly string[],
  given: unknown,
  param: string,
  module: string,
): { name: string; bindings: Record<string, string>; value: unknown }[] {
  const out: { name: string; bindings: Record<string, string>; value: unknown }[] = [];
  const walk = (node: unknown, depth: number, bindings: Record<string, string>) => {
    if (depth === vars.length) {
      let name = settings.name;
      for (const [k, v] of Object.entries(bindings)) name = name.replaceAll(`{${k}}`, v);
      out.push({ name, bindings, value: node });
      return;
    }
    if (node === undefined || node === null) return;
    if (!isRecord(node)) {
      throw new WikiParamError(
        'badvalue',
        param,
        `Templated parameter "${param}" takes a record keyed by the values of "${settings.templatevars?.[vars[depth]!] ?? vars[depth]}".`,
        module,
      );
    }
    for (const [key, child] of Object.entries(node)) walk(child, depth + 1, { ...bindings, [vars[depth]!]: key });
  };
  walk(given, 0, {});
  return out;
}

/** Whether a parameter counts as used: given, and (when it has a default) not at its default. */
function isUsed(settings: ParamInfo, given: boolean, value: unknown): boolean {
  if (!given || value === undefined || value === null || value === false) return false;
  if (settings.default === undefined) return true;
  const def = settings.default;
  if (Array.isArray(value)) return value.map(String).join('|') !== String(def);
  return String(value) !== String(def);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && !(Array.isArray(value) && value.length === 0);
}

/**
 * The `info` conditions of paraminfo, read as the modules enforce them (MediaWiki 1.39–1.46). Only
 * what the API itself reports is reported: where a module silently ignores a parameter, so does this.
 * - `useronly` / `nonuseronly` (alldeletedrevisions): used without / with the module's `user` →
 *   error `invalidparammix`, as the module dies.
 * - `modes` (deletedrevs): mode 1 = pages given (titles/pageids/revids or a generator), else mode 2 =
 *   `user` given, else mode 3. A parameter without a default used outside its modes → error
 *   `badparams` (the module dies for exactly those: from/to/prefix, start/end); one with a default
 *   set to another value is ignored by the module, silently.
 * - `singlepageonly` (ApiQueryRevisions::run): with `revids` → error `invalidparammix`; with more than
 *   one title/page ID → error `invalidparammix` (the module dies when more than one of them exists;
 *   the builder assumes they do). With a generator the page count is the wiki's: not checked.
 * - `preloadcontentonly` / `editintroonly` (info): ignored by the module when `prop` lacks
 *   `preloadcontent` / `editintro`, silently.
 */
export function checkInfoConditions(
  spec: ModuleSpec,
  prefix: string,
  given: ReadonlySet<string>,
  values: Record<string, unknown>,
  context: QueryContext,
): WikiWarning[] {
  const warnings: WikiWarning[] = [];
  if (planFor(spec).withInfo.length === 0) return warnings;
  const userGiven = present(values.user);
  const mode = context.pageCount + context.revidCount > 0 || context.generator ? 1 : userGiven ? 2 : 3;
  const fail = (code: string, param: string, message: string, data: Record<string, unknown>) => {
    throw new WikiParamError(code, prefix + param, message, spec.path, data);
  };
  for (const settings of planFor(spec).withInfo) {
    const name = settings.name;
    if (!isUsed(settings, given.has(name), values[name])) continue;
    for (const cond of settings.info ?? []) {
      switch (cond.name) {
        case 'useronly':
          if (!userGiven)
            fail('invalidparammix', name, `The "${prefix}${name}" parameter must be used with "${prefix}user".`, {
              condition: 'useronly',
              with: `${prefix}user`,
            });
          break;
        case 'nonuseronly':
          if (userGiven)
            fail('invalidparammix', name, `The "${prefix}${name}" parameter cannot be used with "${prefix}user".`, {
              condition: 'nonuseronly',
              with: `${prefix}user`,
            });
          break;
        case 'modes': {
          const modes = (cond.values ?? []).map(Number);
          if (modes.includes(mode)) break;
          if (settings.default === undefined) {
            fail('badparams', name, `The "${prefix}${name}" parameter cannot be used in mode ${mode}.`, {
              condition: 'modes',
              modes,
              mode,
            });
          }
          break;
        }
        case 'singlepageonly':
          if (context.revidCount > 0) {
            fail('invalidparammix', name, `The "${prefix}${name}" parameter cannot be used with revids.`, {
              condition: 'singlepageonly',
              revids: context.revidCount,
            });
          }
          if (context.pageCount > 1) {
            fail('invalidparammix', name, `The "${prefix}${name}" parameter may only be used with a single page.`, {
              condition: 'singlepageonly',
              pages: context.pageCount,
            });
          }
          break;
        default:
          break;
      }
    }
  }
  return warnings;
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

/** A descriptor given to a public entry point, completed with every built-in type (once per descriptor). */
const completed = new WeakMap<ModuleSpec, ModuleSpec>();
export function withEveryType(spec: ModuleSpec): ModuleSpec {
  let full = completed.get(spec);
  if (full === undefined) {
    const types = withAllTypes(spec.types);
    full = types === spec.types ? spec : Object.freeze({ ...spec, types });
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
  const { known, position, templateVars } = planFor(spec);

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

  const read = (settings: ParamInfo, name: string, typed: unknown) => {
    const param = prefix + name;
    const raw = toRaw(typed, param, module);
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

  try {
    for (const at of positions) {
      const settings = spec.parameters[at]!;
      read(settings, settings.name, input[settings.name]);
    }
    readTemplated();
    warnings.push(...checkInfoConditions(spec, prefix, given, values, context));
  } catch (e) {
    throw withWarnings(e, warnings);
  }

  function readTemplated(): void {
    // One warning per (target, value) across all templated parameters, as ApiBase keeps one `$warned`.
    const warned = new Set<string>();
    for (const settings of spec.templatedparameters ?? []) {
      const expansions = expandTemplate(settings, values, (target, value) => {
        const key = `${target}\u0000${value}`;
        if (warned.has(key)) return;
        warned.add(key);
        warnings.push({
          code: 'ignoring-invalid-templated-value',
          param: prefix + target,
          module,
          data: { value, template: prefix + settings.name },
        });
      });
      const byName = new Map(expansions.map((e) => [e.name, e]));
      const supplied = givenTemplatedValues(
        settings,
        templateVars.get(settings)!,
        input[settings.name],
        prefix + settings.name,
        module,
      );
      const suppliedByName = new Map(supplied.map((s) => [s.name, s.value]));
      for (const s of supplied) {
        if (!byName.has(s.name) && s.value !== undefined) {
          warnings.push({
            code: 'unrecognizedparams',
            param: prefix + s.name,
            module: 'main',
            data: { params: [prefix + s.name], module, template: prefix + settings.name, bindings: s.bindings },
          });
        }
      }
      for (const e of expansions) read(settings, e.name, suppliedByName.get(e.name));
    }
  }

  if (options?.strict && warnings.length > 0) {
    const w = warnings[0]!;
    throw new WikiParamError(w.code, w.param, `Warning treated as an error (strict): ${w.code} on "${w.param}".`, w.module, {
      ...(w.data ?? {}),
      warnings,
    });
  }
  return { params, warnings, values };
}
