/**
 * The input of the wiki module generator: MediaWiki's `action=paraminfo` answer (formatversion=2),
 * checked and normalized, so the emitter can trust its shape.
 */
import type { ParamInfo } from '../types.js';

/** One module as paraminfo describes it. Keys the generator does not use pass through untouched. */
export interface ParamInfoModule {
  name: string;
  /** `query+allpages`, `main`, `json`, … */
  path: string;
  /** `list`, `prop`, `meta` for query submodules; `action`, `format`, … otherwise; absent for `main`. */
  group?: string;
  prefix: string;
  generator?: boolean;
  deprecated?: boolean;
  internal?: boolean;
  /** The extension (or `MediaWiki`) that provides the module. */
  sourcename?: string;
  helpurls?: readonly string[];
  /** Present unless fetched with `helpformat=none`: a string for `wikitext`/`html`, message objects for `raw`. */
  description?: unknown;
  parameters: readonly ParamInfo[];
  templatedparameters?: readonly ParamInfo[];
  [key: string]: unknown;
}

/** paraminfo's own envelope: `{"paraminfo":{"helpformat":"none","modules":[…]}}`. */
export interface ParamInfoDocument {
  paraminfo: {
    helpformat?: string;
    modules: readonly ParamInfoModule[];
    [key: string]: unknown;
  };
}

/** The input is not a paraminfo document; the message names the place. */
export class ParamInfoFormatError extends Error {
  override name = 'ParamInfoFormatError';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** formatversion=1 marks `true` with `""` and omits `false`; these keys are booleans in formatversion=2. */
const BOOLEAN_PARAM_KEYS = ['required', 'multi', 'deprecated', 'sensitive', 'allowsduplicates'] as const;
const BOOLEAN_MODULE_KEYS = ['generator', 'deprecated', 'internal', 'readrights', 'writerights', 'mustbeposted'] as const;
const NUMBER_PARAM_KEYS = ['index', 'lowlimit', 'highlimit', 'limit', 'min', 'max', 'highmax', 'maxbytes', 'maxchars'] as const;
const STRING_LIST_PARAM_KEYS = ['subtypes', 'deprecatedvalues', 'internalvalues'] as const;

function booleans(target: Record<string, unknown>, keys: readonly string[], where: string): void {
  for (const key of keys) {
    const value = target[key];
    if (value === '') target[key] = true;
    else if (value !== undefined && typeof value !== 'boolean') {
      throw new ParamInfoFormatError(`${where}.${key} must be a boolean, not ${JSON.stringify(value)}`);
    }
  }
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function checkParam(raw: unknown, where: string, templated: boolean): ParamInfo {
  if (!isObject(raw)) throw new ParamInfoFormatError(`${where} must be an object`);
  const param: Record<string, unknown> = { ...raw };
  if (typeof param.name !== 'string' || param.name === '') {
    throw new ParamInfoFormatError(`${where}.name must be a non-empty string`);
  }
  const at = `${where} (${param.name})`;
  // Values are strings on the wire; an enum PHP declared with integers comes out of formatversion=2 as numbers.
  for (const key of ['type', ...STRING_LIST_PARAM_KEYS] as const) {
    const list = param[key];
    if (Array.isArray(list) && list.every((v) => typeof v === 'string' || Number.isFinite(v))) param[key] = list.map(String);
  }
  if (typeof param.type !== 'string' && !stringList(param.type)) {
    throw new ParamInfoFormatError(`${at}.type must be a type name or an array of allowed values`);
  }
  booleans(param, BOOLEAN_PARAM_KEYS, at);
  for (const key of NUMBER_PARAM_KEYS) {
    if (param[key] !== undefined && (typeof param[key] !== 'number' || !Number.isFinite(param[key]))) {
      throw new ParamInfoFormatError(`${at}.${key} must be a number, not ${JSON.stringify(param[key])}`);
    }
  }
  for (const key of STRING_LIST_PARAM_KEYS) {
    if (param[key] !== undefined && !stringList(param[key])) {
      throw new ParamInfoFormatError(`${at}.${key} must be an array of strings`);
    }
  }
  const def = param.default;
  if (def !== undefined && typeof def !== 'string' && typeof def !== 'boolean' && !Number.isFinite(def)) {
    throw new ParamInfoFormatError(`${at}.default must be a string, number or boolean, not ${JSON.stringify(def)}`);
  }
  if (param.allspecifier !== undefined && typeof param.allspecifier !== 'string') {
    throw new ParamInfoFormatError(`${at}.allspecifier must be a string`);
  }
  const extra = param.extranamespaces;
  if (extra !== undefined && !(Array.isArray(extra) && extra.every((n) => Number.isInteger(n)))) {
    throw new ParamInfoFormatError(`${at}.extranamespaces must be an array of integers`);
  }
  const info = param.info;
  if (
    info !== undefined &&
    !(
      Array.isArray(info) &&
      info.every(
        (i) =>
          isObject(i) &&
          typeof i.name === 'string' &&
          (i.values === undefined || (Array.isArray(i.values) && i.values.every((v) => ['string', 'number'].includes(typeof v)))),
      )
    )
  ) {
    throw new ParamInfoFormatError(`${at}.info must be an array of { name, values? }`);
  }
  const vars = param.templatevars;
  if (templated) {
    if (!isObject(vars) || Object.keys(vars).length === 0 || !Object.values(vars).every((v) => typeof v === 'string')) {
      throw new ParamInfoFormatError(`${at}.templatevars must map each template variable to a parameter name`);
    }
    for (const name of Object.keys(vars)) {
      if (!param.name.includes(`{${name}}`)) {
        throw new ParamInfoFormatError(`${at}: template variable {${name}} does not occur in the name`);
      }
    }
  } else if (vars !== undefined) {
    throw new ParamInfoFormatError(`${at}.templatevars belongs in templatedparameters`);
  }
  return param as ParamInfo;
}

function checkModule(raw: unknown, where: string): ParamInfoModule {
  if (!isObject(raw)) throw new ParamInfoFormatError(`${where} must be an object`);
  const module: Record<string, unknown> = { ...raw };
  for (const key of ['name', 'path'] as const) {
    if (typeof module[key] !== 'string' || module[key] === '') {
      throw new ParamInfoFormatError(`${where}.${key} must be a non-empty string`);
    }
  }
  const at = `${where} (${module.path as string})`;
  if (module.prefix === undefined) module.prefix = '';
  if (typeof module.prefix !== 'string') throw new ParamInfoFormatError(`${at}.prefix must be a string`);
  if (module.group !== undefined && typeof module.group !== 'string') {
    throw new ParamInfoFormatError(`${at}.group must be a string`);
  }
  booleans(module, BOOLEAN_MODULE_KEYS, at);
  if (module.helpurls !== undefined && !stringList(module.helpurls)) {
    throw new ParamInfoFormatError(`${at}.helpurls must be an array of strings`);
  }
  if (module.sourcename !== undefined && typeof module.sourcename !== 'string') {
    throw new ParamInfoFormatError(`${at}.sourcename must be a string`);
  }
  const seen = new Set<string>();
  for (const key of ['parameters', 'templatedparameters'] as const) {
    const list = module[key] ?? (key === 'parameters' ? [] : undefined);
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ParamInfoFormatError(`${at}.${key} must be an array`);
    module[key] = list.map((p, i) => {
      const param = checkParam(p, `${at}.${key}[${i}]`, key === 'templatedparameters');
      if (seen.has(param.name)) throw new ParamInfoFormatError(`${at}: parameter ${param.name} appears twice`);
      seen.add(param.name);
      return param;
    });
  }
  return module as ParamInfoModule;
}

/**
 * Checks a parsed paraminfo answer and returns it in the API's envelope. Accepts the envelope
 * (`{"paraminfo":{"modules":[…]}}`) or its inside (`{"modules":[…]}`); formatversion=1's `""`
 * markers become `true`. Throws {@link ParamInfoFormatError} naming the first problem.
 */
export function parseParamInfoDocument(json: unknown): ParamInfoDocument {
  if (isObject(json) && isObject(json.error)) {
    throw new ParamInfoFormatError(`this is a MediaWiki API error, not paraminfo: ${JSON.stringify(json.error)}`);
  }
  const inner = isObject(json) && isObject(json.paraminfo) ? json.paraminfo : json;
  if (!isObject(inner) || !Array.isArray(inner.modules)) {
    throw new ParamInfoFormatError('not an action=paraminfo answer: expected {"paraminfo":{"modules":[…]}}');
  }
  const seen = new Set<string>();
  const modules = inner.modules.map((m, i) => {
    const module = checkModule(m, `modules[${i}]`);
    if (seen.has(module.path)) throw new ParamInfoFormatError(`modules[${i}]: module ${module.path} appears twice`);
    seen.add(module.path);
    return module;
  });
  if (inner.helpformat !== undefined && typeof inner.helpformat !== 'string') {
    throw new ParamInfoFormatError('paraminfo.helpformat must be a string');
  }
  return { paraminfo: { ...inner, modules } };
}
