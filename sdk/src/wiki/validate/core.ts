/**
 * ParamValidator::getValue() / validateValue() on raw strings: absent values and defaults,
 * deprecated parameters, the non-multi U+001F check, and for multi-valued parameters the split,
 * the all-specifier, the cap on the number of values, per-value validation, dropping of
 * unrecognized values and of duplicates. The type-specific work is the TypeDefs'.
 */
import {
  type BuildOptions,
  type ParamInfo,
  type Policy,
  type SiteContext,
  type TypeContext,
  type TypeDef,
  WikiParamError,
  type WikiWarning,
} from '../types.js';
import { ACTION_API_POLICY, type ValidateContext, type Validated } from './context.js';
import { explodeMultiValue, MULTI_SEPARATOR_ALT } from './multi.js';
import { integerDef, limitDef } from './numeric.js';
import {
  enumDef,
  namespaceDef,
  nullTypeDef,
  passThroughDef,
  presenceBooleanDef,
  stringTypeDef,
  submoduleDef,
} from './typedefs.js';

/** The type name of the REST API's true/false-word boolean (BooleanDef); `boolean` is the Action API's presence boolean. */
export const BOOLEAN_WORDS_TYPE = 'boolean(BooleanDef)';

/**
 * The core type definitions, always at hand: those the query module's own parameters need, and the
 * cheap ones. The others (`timestamp`, `user`, `title`, the REST API's boolean) come with the module
 * that uses them ({@link ValidateContext.types}, a module descriptor's `types`), so a bundle carries
 * only the validators its modules' parameters need; `registry.ts` has them all.
 */
export const CORE_DEFS: Readonly<Record<string, TypeDef>> = /* @__PURE__ */ Object.freeze({
  string: stringTypeDef,
  text: stringTypeDef,
  raw: stringTypeDef,
  password: stringTypeDef,
  NULL: nullTypeDef,
  integer: integerDef,
  limit: limitDef,
  boolean: presenceBooleanDef,
  checkbox: presenceBooleanDef,
  enum: enumDef,
  submodule: submoduleDef,
  namespace: namespaceDef,
});

/** The built-in types that are not core: a descriptor whose parameters use one must supply it. */
export const SUPPLIED_TYPES: readonly string[] = ['timestamp', 'user', 'title', BOOLEAN_WORDS_TYPE];

const NO_SITE: SiteContext = Object.freeze({});

/**
 * The type definition for a parameter: `custom` first, then `types` (the module's), then the core
 * ones; enums by their value list; types this port does not check pass through. A built-in type
 * that is neither core nor supplied is a programming error, not a value to let through unchecked.
 */
export function resolveTypeDef(
  settings: ParamInfo,
  custom: Readonly<Record<string, TypeDef>> | undefined,
  types: Readonly<Record<string, TypeDef>> | undefined,
): TypeDef {
  const name = Array.isArray(settings.type) ? 'enum' : String(settings.type);
  const def =
    (custom !== undefined && Object.hasOwn(custom, name) ? custom[name] : undefined) ??
    (types !== undefined && Object.hasOwn(types, name) ? types[name] : undefined) ??
    (Object.hasOwn(CORE_DEFS, name) ? CORE_DEFS[name] : undefined);
  if (def !== undefined) return def;
  if (SUPPLIED_TYPES.includes(name)) {
    throw new TypeError(
      `No validator for type "${name}" (parameter "${settings.name}"): give it in the module's \`types\` (the generator does), or define the module with defineModule().`,
    );
  }
  return passThroughDef;
}

function defaultAsString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * One validation's {@link TypeContext}; a class so that a call allocates one object, not a set of
 * closures. Its fields are assigned, not declared (`declare`), so a bundle does not spell them twice.
 */
class ParamContext implements TypeContext {
  declare readonly param: string;
  declare readonly module: string | undefined;
  declare readonly options: BuildOptions;
  declare readonly policy: Policy;
  declare readonly site: SiteContext;
  declare readonly parseLimit: boolean;
  declare readonly isDefault: boolean;
  declare readonly inMulti: boolean;
  /** Shared by every context of one call. */
  declare readonly warnings: WikiWarning[];

  constructor(
    param: string,
    module: string | undefined,
    options: BuildOptions,
    policy: Policy,
    site: SiteContext,
    parseLimit: boolean,
    isDefault: boolean,
    inMulti: boolean,
    warnings: WikiWarning[],
  ) {
    this.param = param;
    this.module = module;
    this.options = options;
    this.policy = policy;
    this.site = site;
    this.parseLimit = parseLimit;
    this.isDefault = isDefault;
    this.inMulti = inMulti;
    this.warnings = warnings;
  }

  get useHighLimits(): boolean {
    return Boolean(this.options.apihighlimits);
  }

  now(): number {
    return this.options.now?.() ?? Date.now();
  }

  warn(code: string, data?: Record<string, unknown>): void {
    const warning: WikiWarning = { code, param: this.param };
    if (this.module !== undefined) warning.module = this.module;
    if (data !== undefined) warning.data = data;
    this.warnings.push(warning);
  }

  fail(code: string, message: string, data?: Record<string, unknown>): never {
    throw new WikiParamError(code, this.param, message, this.module, data ?? {});
  }

  with(isDefault: boolean, inMulti: boolean): ParamContext {
    if (isDefault === this.isDefault && inMulti === this.inMulti) return this;
    const { param, module, options, policy, site, parseLimit, warnings } = this;
    return new ParamContext(param, module, options, policy, site, parseLimit, isDefault, inMulti, warnings);
  }
}

interface Prepared {
  def: TypeDef;
  settings: ParamInfo;
  /** The `types` it was resolved with. */
  types: Readonly<Record<string, TypeDef>> | undefined;
}

/** Each settings object's type definition and normalized settings, for calls without custom types. */
const prepared = new WeakMap<ParamInfo, Prepared>();

function prepare(
  settings: ParamInfo,
  custom: Readonly<Record<string, TypeDef>> | undefined,
  types: Readonly<Record<string, TypeDef>> | undefined,
): Prepared {
  const hit = custom ? undefined : prepared.get(settings);
  if (hit && hit.types === types) return hit;
  const def = resolveTypeDef(settings, custom, types);
  const result = { def, settings: def.normalizeSettings ? def.normalizeSettings(settings) : settings, types };
  if (!custom) prepared.set(settings, result);
  return result;
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of values) {
    const key = String(v);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function validateValue(def: TypeDef, s: ParamInfo, value: string, ctx: ParamContext): unknown {
  if (!s.multi) {
    if (value.startsWith(MULTI_SEPARATOR_ALT)) {
      ctx.fail('badvalue', `Parameter "${ctx.param}" does not take multiple values (U+001F-separated value given).`);
    }
    return def.validate(value, s, ctx);
  }

  const { policy, options } = ctx;
  const limit1 = typeof s.lowlimit === 'number' ? s.lowlimit : policy.multiLimits[0];
  const limit2 = Math.max(limit1, typeof s.highlimit === 'number' ? s.highlimit : policy.multiLimits[1]);
  const values = explodeMultiValue(value, limit2 + 1);
  const inMulti = ctx.with(ctx.isDefault, true);

  const allSpecifier = typeof s.allspecifier === 'string' ? s.allspecifier : s.allspecifier === true ? '*' : undefined;
  if (allSpecifier !== undefined && values.length === 1 && values[0] === allSpecifier) {
    const all = def.allValues?.(s, inMulti) ?? def.enumValues?.(s, inMulti);
    if (all) return [...all];
  }

  const sizeLimit = limit2 > limit1 && values.length > limit1 && options.apihighlimits ? limit2 : limit1;
  if (values.length > sizeLimit) {
    ctx.fail('toomanyvalues', `Too many values supplied for parameter "${ctx.param}". The limit is ${sizeLimit}.`, {
      parameter: ctx.param,
      limit: sizeLimit,
      lowlimit: limit1,
      highlimit: limit2,
    });
  }

  const explicit = s['x-ignoreUnrecognizedValues'];
  const dropUnrecognized = explicit !== undefined ? Boolean(explicit) : policy.dropUnrecognized;
  const valid: unknown[] = [];
  const invalid: string[] = [];
  for (const v of values) {
    try {
      valid.push(def.validate(v, s, inMulti));
    } catch (e) {
      if (!(e instanceof WikiParamError) || e.code !== 'badvalue' || !dropUnrecognized) throw e;
      invalid.push(v);
    }
  }
  if (invalid.length > 0) inMulti.warn('unrecognizedvalues', { values: invalid });
  return s.allowsduplicates ? valid : dedupe(valid);
}

/**
 * Validate one parameter's raw request value against its paraminfo settings, the way MediaWiki
 * would, and normalize it. Throws {@link WikiParamError} with MediaWiki's code; non-fatal
 * conditions come back as warnings (or throw too, with `options.strict`).
 *
 * `raw === undefined` means the parameter is absent: its default applies (validated as a default,
 * so deprecated values do not warn; a default that does not validate comes back as given), or
 * `missingparam` when required, or `undefined`.
 */
export function validateParam(settings: ParamInfo, raw: string | undefined, ctx: ValidateContext): Validated {
  const { def, settings: s } = prepare(settings, ctx.typeDefs, ctx.types);
  const fallback = raw === undefined ? defaultAsString(settings.default) : undefined;
  // Absent, optional and without a default: nothing to validate (the common case, so no context is built).
  if (raw === undefined && fallback === undefined && !settings.required) {
    return { value: def.presence ? false : undefined, warnings: [] };
  }
  const options = ctx.options ?? {};
  const warnings: WikiWarning[] = [];
  const context = new ParamContext(
    ctx.param,
    ctx.module,
    options,
    ctx.policy ?? ACTION_API_POLICY,
    ctx.site ?? NO_SITE,
    ctx.parseLimit ?? true,
    raw === undefined,
    false,
    warnings,
  );

  let value: unknown;
  if (raw === undefined) {
    if (def.presence) {
      value = false;
    } else if (fallback !== undefined) {
      try {
        value = validateValue(def, s, fallback, context);
      } catch (e) {
        if (!(e instanceof WikiParamError)) throw e;
        // The caller did not give this value: never fail on it; the server applies its own default.
        value = fallback;
        warnings.length = 0;
      }
    } else {
      context.fail('missingparam', `The "${ctx.param}" parameter must be set.`);
    }
  } else {
    if (s.deprecated) context.warn('param-deprecated');
    try {
      value = def.presence ? true : validateValue(def, s, raw, context);
    } catch (e) {
      // MediaWiki keeps what it recorded before failing (a deprecated parameter's warning).
      if (e instanceof WikiParamError && warnings.length > 0) e.warnings = [...warnings, ...e.warnings];
      throw e;
    }
  }

  if (options.strict && warnings.length) {
    const first = warnings[0]!;
    throw new WikiParamError(
      first.code,
      ctx.param,
      `Warning "${first.code}" for parameter "${ctx.param}" (strict mode).`,
      ctx.module,
      first.data ?? {},
    );
  }
  return { value, warnings };
}
