/** The simpler types: strings, enumerations, booleans, namespaces. */
import type { ParamInfo, TypeContext, TypeDef } from '../types.js';
import { asciiLower, codePointLength, utf8Length } from './text.js';

const maxSetting = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** StringDef: `''` is missing when required (unless allowEmptyWhenRequired), maxbytes / maxchars. */
function stringDef(allowEmptyWhenRequired: boolean): TypeDef {
  return {
    validate(value, settings, ctx) {
      if (!allowEmptyWhenRequired && value === '' && settings.required) {
        ctx.fail('missingparam', `The "${ctx.param}" parameter must be set.`);
      }
      const maxbytes = maxSetting(settings.maxbytes);
      const maxchars = maxSetting(settings.maxchars);
      const data = { maxbytes: maxbytes ?? null, maxchars: maxchars ?? null };
      const bytes = utf8Length(value);
      if (maxbytes !== undefined && bytes > maxbytes) {
        ctx.fail('maxbytes', `Parameter "${ctx.param}" cannot be longer than ${maxbytes} bytes; it has ${bytes}.`, data);
      }
      const chars = codePointLength(value);
      if (maxchars !== undefined && chars > maxchars) {
        ctx.fail('maxchars', `Parameter "${ctx.param}" cannot be longer than ${maxchars} characters; it has ${chars}.`, data);
      }
      return value;
    },
  };
}

export const stringTypeDef = stringDef(false);
/** Type `NULL` (settings with neither type nor default): a string that may be empty even when required. */
export const nullTypeDef = stringDef(true);

/** EnumDef over the values `getValues` gives: values listed in `deprecatedvalues` warn unless they come from the default. */
function makeEnumDef(getValues: (settings: ParamInfo) => readonly unknown[]): TypeDef {
  return {
    enumValues: getValues,
    validate(value, settings, ctx) {
      const values = getValues(settings);
      if (values.includes(value)) {
        if (!ctx.isDefault && Array.isArray(settings.deprecatedvalues) && settings.deprecatedvalues.includes(value)) {
          ctx.warn('deprecated-value', { value });
        }
        return value;
      }
      return badValue(value, values, ctx);
    },
  };
}

function badValue(value: string, values: readonly unknown[], ctx: TypeContext): never {
  // Without a site context a namespace has no list to give: no empty "Allowed: ." then.
  const list = values.length > 0 && values.length <= 20 ? ` Allowed: ${values.map(String).join(', ')}.` : '';
  return ctx.fail(
    'badvalue',
    ctx.inMulti
      ? `Unrecognized value for parameter "${ctx.param}": ${value}.${list}`
      : `Unrecognized value for parameter "${ctx.param}": ${value}. Only one value may be given.${list}`,
  );
}

/** An enumeration: paraminfo gives the allowed values as the type. */
export const enumDef = makeEnumDef((settings) => (Array.isArray(settings.type) ? settings.type : []));

/** A submodule parameter: paraminfo lists the names as the type, or in `submodules` (name → path). */
export const submoduleDef = makeEnumDef((settings) => {
  if (Array.isArray(settings.type)) return settings.type;
  const map = settings.submodules;
  return map && typeof map === 'object' ? Object.keys(map) : [];
});

/** PresenceBooleanDef, the Action API's `boolean`: true when present, whatever the value; false when absent. */
export const presenceBooleanDef: TypeDef = {
  presence: true,
  validate() {
    return true;
  },
};

const TRUE_WORDS = ['true', 't', 'yes', 'y', 'on', '1'];
const FALSE_WORDS = ['false', 'f', 'no', 'n', 'off', '0', ''];

/** BooleanDef (the REST API's boolean): true/false words, case-insensitive. */
export const booleanWordsDef: TypeDef = {
  validate(value, _settings, ctx) {
    const word = asciiLower(value);
    if (TRUE_WORDS.includes(word)) return true;
    if (FALSE_WORDS.includes(word)) return false;
    return ctx.fail('badbool', `Invalid value "${value}" for boolean parameter "${ctx.param}": use true or false.`);
  },
};

const INT32_MAX = 2 ** 31 - 1;

function extraNamespaces(settings: ParamInfo): number[] {
  return Array.isArray(settings.extranamespaces) ? settings.extranamespaces.filter((n) => typeof n === 'number') : [];
}

/** The wiki's valid namespace numbers plus the parameter's extra ones, or undefined when the wiki's are unknown. */
function namespaceValues(settings: ParamInfo, ctx: TypeContext): number[] | undefined {
  const known = ctx.site.namespaces;
  if (!known) return undefined;
  const ids = new Set([...known.map((ns) => ns.id).filter((id) => id >= 0), ...extraNamespaces(settings)]);
  return [...ids].sort((a, b) => a - b);
}

/**
 * NamespaceDef: a namespace number. With the wiki's namespaces known, one of them (or of
 * `extranamespaces`); otherwise any number from 0 up, or an extra one. `*` always means all
 * namespaces of a multi-valued parameter: their numbers, or `['*']` when they are unknown.
 */
export const namespaceDef: TypeDef = {
  normalizeSettings(settings) {
    return settings.multi ? { ...settings, allspecifier: '*' } : settings;
  },
  enumValues: namespaceValues,
  allValues(settings, ctx) {
    return namespaceValues(settings, ctx) ?? ['*'];
  },
  validate(value, settings, ctx) {
    const values = namespaceValues(settings, ctx);
    if (/^[+-]?\d+$/.test(value)) {
      const n = Number(value);
      const ok = values ? values.includes(n) : (n >= 0 && n <= INT32_MAX) || extraNamespaces(settings).includes(n);
      if (ok) return n === 0 ? 0 : n;
    }
    return badValue(value, values ?? [], ctx);
  },
};

/** Types this port does not check (`expiry`, `upload`, extension types): the value goes to the server as it is. */
export const passThroughDef: TypeDef = {
  validate(value) {
    return value;
  },
};
