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
  /** The module needs the `read` right (most do). */
  readrights?: boolean;
  /** The module writes: it needs the wiki's write rights (`writeapi`). */
  writerights?: boolean;
  /** The module refuses a GET (`mustbeposted`). */
  mustbeposted?: boolean;
  /** The module reads parameters beyond those listed (they depend on other parameters' values): `true`, or its help. */
  dynamicparameters?: unknown;
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

export interface ParseOptions {
  /**
   * Where the reader says what it could not use and left out (a value of a shape it does not know, a
   * parameter without a name, a type no MediaWiki release documents): one line per kind of problem,
   * naming the first place. Nothing is ever left out silently; without this, the lines are dropped.
   */
  warnings?: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** formatversion=1 marks `true` with `""` and omits `false`; these keys are booleans in formatversion=2. */
const BOOLEAN_PARAM_KEYS = ['required', 'multi', 'deprecated', 'sensitive', 'allowsduplicates'] as const;
const BOOLEAN_MODULE_KEYS = ['generator', 'deprecated', 'internal', 'readrights', 'writerights', 'mustbeposted'] as const;
const NUMBER_PARAM_KEYS = ['index', 'lowlimit', 'highlimit', 'limit', 'min', 'max', 'highmax', 'maxbytes', 'maxchars'] as const;
const STRING_LIST_PARAM_KEYS = ['subtypes', 'deprecatedvalues', 'internalvalues'] as const;

/**
 * The parameter types MediaWiki documents (ParamValidator's and the Action API's, 1.35 to 1.47). Any
 * other is a type a later release adds: read as a string, with a warning.
 */
export const KNOWN_TYPES: ReadonlySet<string> = new Set([
  'boolean',
  'checkbox',
  'enum',
  'expiry',
  'float',
  'integer',
  'limit',
  'namespace',
  'NULL',
  'password',
  'raw',
  'string',
  'submodule',
  'tags',
  'text',
  'timestamp',
  'title',
  'upload',
  'user',
  'boolean(BooleanDef)',
]);

/** Collects the reader's warnings: the first place of each kind, and how many more. */
class Notes {
  readonly #byKind = new Map<string, { first: string; more: number }>();
  note(kind: string, place: string): void {
    const seen = this.#byKind.get(kind);
    if (seen) seen.more++;
    else this.#byKind.set(kind, { first: place, more: 0 });
  }
  lines(): string[] {
    return [...this.#byKind].map(([kind, { first, more }]) => `${kind}: ${first}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
}

/** `true` for formatversion=1's `""`; another non-boolean is left out, with a note. */
function booleans(target: Record<string, unknown>, keys: readonly string[], where: string, notes: Notes): void {
  for (const key of keys) {
    const value = target[key];
    if (value === undefined || typeof value === 'boolean') continue;
    if (value === '') target[key] = true;
    else {
      notes.note(`${key} is not a boolean; left out`, `${where} (${JSON.stringify(value)})`);
      delete target[key];
    }
  }
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * paraminfo's default as the request would carry it: a string, number or boolean as given; a list
 * (newer releases give a multi-valued parameter's default as an array) joined the way the request
 * joins values, `|`, or with U+001F first when a value holds a `|`; `[]` is `''`. Anything else: none.
 */
function requestDefault(value: unknown): string | number | boolean | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value))
    return value as string | number | boolean;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || Number.isFinite(v))) {
    const parts = value.map(String);
    return parts.some((v) => v.includes('|')) ? `\u001f${parts.join('\u001f')}` : parts.join('|');
  }
  return undefined;
}

/** One parameter as the emitter may trust it, or `undefined` when it cannot be used at all (with a note). */
function checkParam(raw: unknown, where: string, templated: boolean, notes: Notes): ParamInfo | undefined {
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
    notes.note('a parameter without a name; left out', where);
    return undefined;
  }
  const param: Record<string, unknown> = { ...raw };
  const at = `${where} (${param.name as string})`;
  // Values are strings on the wire; an enum PHP declared with integers comes out of formatversion=2 as numbers.
  for (const key of ['type', ...STRING_LIST_PARAM_KEYS] as const) {
    const list = param[key];
    if (Array.isArray(list) && list.every((v) => typeof v === 'string' || Number.isFinite(v))) param[key] = list.map(String);
  }
  if (typeof param.type !== 'string' && !stringList(param.type)) {
    notes.note('a parameter without a type; read as a string', at);
    param.type = 'string';
  } else if (typeof param.type === 'string' && !KNOWN_TYPES.has(param.type)) {
    // Kept as it is: the runtime reads a type it does not know as a string, and the docs name it.
    notes.note(`type "${param.type}" is not one MediaWiki documents; read as a string`, at);
  }
  booleans(param, BOOLEAN_PARAM_KEYS, at, notes);
  for (const key of NUMBER_PARAM_KEYS) {
    const value = param[key];
    if (value === undefined || (typeof value === 'number' && Number.isFinite(value))) continue;
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) param[key] = Number(value);
    else {
      notes.note(`${key} is not a number; left out`, `${at} (${JSON.stringify(value)})`);
      delete param[key];
    }
  }
  for (const key of STRING_LIST_PARAM_KEYS) {
    if (param[key] !== undefined && !stringList(param[key])) {
      notes.note(`${key} is not a list of strings; left out`, at);
      delete param[key];
    }
  }
  if (param.default !== undefined) {
    const def = requestDefault(param.default);
    if (def === undefined) {
      notes.note('a default of a shape the request cannot carry; left out', `${at} (${JSON.stringify(param.default)})`);
      delete param.default;
    } else param.default = def;
  }
  if (param.allspecifier !== undefined && typeof param.allspecifier !== 'string') {
    notes.note('allspecifier is not a string; left out', at);
    delete param.allspecifier;
  }
  const extra = param.extranamespaces;
  if (extra !== undefined && !(Array.isArray(extra) && extra.every((n) => Number.isInteger(n)))) {
    notes.note('extranamespaces is not a list of integers; left out', at);
    delete param.extranamespaces;
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
    notes.note('info is not a list of { name, values? }; left out', at);
    delete param.info;
  }
  const vars = param.templatevars;
  if (templated) {
    const name = param.name as string;
    if (
      !isObject(vars) ||
      Object.keys(vars).length === 0 ||
      !Object.values(vars).every((v) => typeof v === 'string') ||
      !Object.keys(vars).every((v) => name.includes(`{${v}}`))
    ) {
      notes.note('a templated parameter whose template variables do not match its name; left out', at);
      return undefined;
    }
  } else if (vars !== undefined) {
    notes.note('templatevars on a plain parameter; left out', at);
    delete param.templatevars;
  }
  return param as ParamInfo;
}

function checkModule(raw: unknown, where: string, notes: Notes): ParamInfoModule | undefined {
  if (!isObject(raw)) {
    notes.note('a module that is not an object; left out', where);
    return undefined;
  }
  const module: Record<string, unknown> = { ...raw };
  if (typeof module.path !== 'string' || module.path === '' || (typeof module.name !== 'string' && module.name !== undefined)) {
    notes.note('a module without a path; left out', where);
    return undefined;
  }
  // Old releases omit `name` where it is the path's last part.
  if (typeof module.name !== 'string' || module.name === '') module.name = (module.path as string).split('+').pop();
  const at = `${where} (${module.path as string})`;
  if (module.prefix === undefined) module.prefix = '';
  if (typeof module.prefix !== 'string') {
    notes.note('a module whose prefix is not a string; left out', at);
    return undefined;
  }
  if (module.group !== undefined && typeof module.group !== 'string') {
    notes.note('group is not a string; left out', at);
    delete module.group;
  }
  booleans(module, BOOLEAN_MODULE_KEYS, at, notes);
  if (module.helpurls !== undefined && !stringList(module.helpurls)) {
    notes.note('helpurls is not a list of strings; left out', at);
    delete module.helpurls;
  }
  if (module.sourcename !== undefined && typeof module.sourcename !== 'string') {
    notes.note('sourcename is not a string; left out', at);
    delete module.sourcename;
  }
  const seen = new Set<string>();
  for (const key of ['parameters', 'templatedparameters'] as const) {
    const list = module[key] ?? (key === 'parameters' ? [] : undefined);
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      notes.note(`${key} is not a list; left out`, at);
      module[key] = key === 'parameters' ? [] : undefined;
      if (key === 'templatedparameters') delete module[key];
      continue;
    }
    const params: ParamInfo[] = [];
    list.forEach((p, i) => {
      const param = checkParam(p, `${at}.${key}[${i}]`, key === 'templatedparameters', notes);
      if (param === undefined) return;
      if (seen.has(param.name)) notes.note('a parameter given twice; the second left out', `${at}: ${param.name}`);
      else {
        seen.add(param.name);
        params.push(param);
      }
    });
    module[key] = params;
  }
  return module as ParamInfoModule;
}

/**
 * Checks a parsed paraminfo answer and returns it in the API's envelope. Accepts the envelope
 * (`{"paraminfo":{"modules":[…]}}`) or its inside (`{"modules":[…]}`); formatversion=1's `""`
 * markers become `true`. Whatever MediaWiki release wrote it, it reads: a value of a shape it cannot
 * use is left out and said so in `options.warnings`, never a failure. Throws {@link ParamInfoFormatError}
 * only when the input is no paraminfo at all.
 */
export function parseParamInfoDocument(json: unknown, options: ParseOptions = {}): ParamInfoDocument {
  if (isObject(json) && isObject(json.error)) {
    throw new ParamInfoFormatError(`this is a MediaWiki API error, not paraminfo: ${JSON.stringify(json.error)}`);
  }
  const inner = isObject(json) && isObject(json.paraminfo) ? json.paraminfo : json;
  if (!isObject(inner) || !Array.isArray(inner.modules)) {
    throw new ParamInfoFormatError('not an action=paraminfo answer: expected {"paraminfo":{"modules":[…]}}');
  }
  const notes = new Notes();
  const seen = new Set<string>();
  const modules: ParamInfoModule[] = [];
  inner.modules.forEach((m, i) => {
    const module = checkModule(m, `modules[${i}]`, notes);
    if (module === undefined) return;
    if (seen.has(module.path)) notes.note('a module given twice; the second left out', `modules[${i}] (${module.path})`);
    else {
      seen.add(module.path);
      modules.push(module);
    }
  });
  const out: ParamInfoDocument['paraminfo'] = { ...inner, modules };
  if (out.helpformat !== undefined && typeof out.helpformat !== 'string') {
    notes.note('helpformat is not a string; left out', 'paraminfo.helpformat');
    delete out.helpformat;
  }
  options.warnings?.push(...notes.lines());
  return { paraminfo: out };
}
