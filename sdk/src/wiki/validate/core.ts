/**
 * ParamValidator::getValue() / validateValue() on raw strings: absent values and defaults,
 * deprecated parameters, the non-multi U+001F check, and for multi-valued parameters the split,
 * the all-specifier, the cap on the number of values, per-value validation, dropping of
 * unrecognized values and of duplicates. The type-specific work is the TypeDefs'.
 */
import { type ParamInfo, WikiParamError, type WikiWarning } from '../types.js';
import {
  ACTION_API_POLICY,
  type Policy,
  type SiteContext,
  type TypeContext,
  type TypeDef,
  type ValidateContext,
  type Validated,
} from './context.js';
import { explodeMultiValue, MULTI_SEPARATOR_ALT } from './multi.js';
import { integerDef, limitDef } from './numeric.js';
import { timestampDef } from './timestamp.js';
import { titleDef } from './title.js';
import {
  booleanWordsDef,
  enumDef,
  namespaceDef,
  nullTypeDef,
  passThroughDef,
  presenceBooleanDef,
  stringTypeDef,
  submoduleDef,
} from './typedefs.js';
import { userDef } from './user.js';

/** The type name of the REST API's true/false-word boolean (BooleanDef); `boolean` is the Action API's presence boolean. */
export const BOOLEAN_WORDS_TYPE = 'boolean(BooleanDef)';

/** Built-in type definitions by paraminfo type name. */
export const TYPE_DEFS: Readonly<Record<string, TypeDef>> = Object.freeze({
  string: stringTypeDef,
  text: stringTypeDef,
  raw: stringTypeDef,
  password: stringTypeDef,
  NULL: nullTypeDef,
  integer: integerDef,
  limit: limitDef,
  boolean: presenceBooleanDef,
  checkbox: presenceBooleanDef,
  [BOOLEAN_WORDS_TYPE]: booleanWordsDef,
  timestamp: timestampDef,
  enum: enumDef,
  submodule: submoduleDef,
  namespace: namespaceDef,
  user: userDef,
  title: titleDef,
});

const NO_SITE: SiteContext = Object.freeze({});

/** The type definition for a parameter: enums by their value list, unknown types pass through. */
export function typeDefFor(settings: ParamInfo, custom?: Readonly<Record<string, TypeDef>>): TypeDef {
  const name = Array.isArray(settings.type) ? 'enum' : String(settings.type);
  return custom?.[name] ?? (Object.hasOwn(TYPE_DEFS, name) ? TYPE_DEFS[name]! : passThroughDef);
}

function defaultAsString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
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
  const def = typeDefFor(settings, ctx.typeDefs);
  const s = def.normalizeSettings ? def.normalizeSettings(settings) : settings;
  const options = ctx.options ?? {};
  const policy: Policy = ctx.policy ?? ACTION_API_POLICY;
  let warnings: WikiWarning[] = [];

  const fail = (code: string, message: string, data?: Record<string, unknown>): never => {
    throw new WikiParamError(code, ctx.param, message, ctx.module, data ?? {});
  };
  const typeContext = (isDefault: boolean, inMulti: boolean): TypeContext => ({
    param: ctx.param,
    module: ctx.module,
    options,
    policy,
    site: ctx.site ?? NO_SITE,
    parseLimit: ctx.parseLimit ?? true,
    useHighLimits: Boolean(options.apihighlimits),
    isDefault,
    inMulti,
    now: () => options.now?.() ?? Date.now(),
    warn(code, data) {
      const warning: WikiWarning = { code, param: ctx.param };
      if (ctx.module !== undefined) warning.module = ctx.module;
      if (data !== undefined) warning.data = data;
      warnings.push(warning);
    },
    fail,
  });

  const validateValue = (value: string, isDefault: boolean): unknown => {
    if (!s.multi) {
      if (value.startsWith(MULTI_SEPARATOR_ALT)) {
        fail('badvalue', `Parameter "${ctx.param}" does not take multiple values (U+001F-separated value given).`);
      }
      return def.validate(value, s, typeContext(isDefault, false));
    }

    const limit1 = typeof s.lowlimit === 'number' ? s.lowlimit : policy.multiLimits[0];
    const limit2 = Math.max(limit1, typeof s.highlimit === 'number' ? s.highlimit : policy.multiLimits[1]);
    const values = explodeMultiValue(value, limit2 + 1);
    const inMulti = typeContext(isDefault, true);

    const allSpecifier = typeof s.allspecifier === 'string' ? s.allspecifier : s.allspecifier === true ? '*' : undefined;
    if (allSpecifier !== undefined && values.length === 1 && values[0] === allSpecifier) {
      const all = def.allValues?.(s, inMulti) ?? def.enumValues?.(s, inMulti);
      if (all) return [...all];
    }

    const sizeLimit = limit2 > limit1 && values.length > limit1 && options.apihighlimits ? limit2 : limit1;
    if (values.length > sizeLimit) {
      fail('toomanyvalues', `Too many values supplied for parameter "${ctx.param}". The limit is ${sizeLimit}.`, {
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
    if (invalid.length) inMulti.warn('unrecognizedvalues', { values: invalid });

    if (s.allowsduplicates) return valid;
    const seen = new Set<string>();
    return valid.filter((v) => {
      const key = String(v);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };

  let value: unknown;
  if (raw === undefined) {
    const fallback = defaultAsString(s.default);
    if (def.presence) {
      value = false;
    } else if (fallback !== undefined) {
      try {
        value = validateValue(fallback, true);
      } catch (e) {
        if (!(e instanceof WikiParamError)) throw e;
        // The caller did not give this value: never fail on it; the server applies its own default.
        value = fallback;
        warnings = [];
      }
    } else if (s.required) {
      fail('missingparam', `The "${ctx.param}" parameter must be set.`);
    }
  } else {
    if (s.deprecated) typeContext(false, false).warn('param-deprecated');
    value = def.presence ? true : validateValue(raw, false);
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
