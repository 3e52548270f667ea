/**
 * One typed `action=query` request: any number of list/prop/meta modules, at most one generator,
 * the page set (`titles`/`pageids`/`revids`), continuation and the main module's options.
 *
 * ```ts
 * const q = query({ list: [allpages({ limit: 'max', namespace: 0 })], generator: categorymembers.asGenerator({ title: 'Category:X' }) });
 * q.params; // { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext', list: 'allpages', … }
 * ```
 *
 * Decisions:
 * - `format=json&formatversion=2` always; `errorformat` defaults to `plaintext` (errors and warnings
 *   as `[{code, text, module}]` with MediaWiki's codes, no HTML); any of MediaWiki's formats may be chosen.
 * - The page set follows ApiPageSet: `titles`, `pageids`, `revids` are multi-valued with the query
 *   module's caps (50, 500 with apihighlimits → `toomanyvalues`); more than one of them → `multisource`;
 *   `revids` with `redirects` → warning `redirectsandrevids`.
 * - Two modules that share a prefix, or whose parameter names meet (a generator's `g`+prefix included,
 *   and the query/main parameters), throw `WikiParamError` code `prefixcollision`.
 * - `method` is `POST` once the URL-encoded query string exceeds {@link POST_THRESHOLD_BYTES} (8000 bytes,
 *   safely under the common 8 KiB request-line limits of proxies and servers); `GET` otherwise.
 */
import { buildModule, type QueryContext } from './build.js';
import { encodeForm } from './form.js';
import type { GeneratorUse, ModuleUse } from './module.js';
import type { BuildOptions, ModuleGroup, ModuleSpec, ParamInfo, WikiWarning } from './types.js';
import { WikiParamError } from './types.js';

/** The URL-encoded query string size above which a request goes as `POST`. */
export const POST_THRESHOLD_BYTES = 8000;

export type ErrorFormat = 'bc' | 'html' | 'none' | 'plaintext' | 'raw' | 'wikitext';

/** The default `errorformat`: machine-readable codes with plain-text messages. */
export const DEFAULT_ERROR_FORMAT: ErrorFormat = 'plaintext';

export interface QueryInput {
  /** `list=` modules. */
  list?: readonly ModuleUse<'list'>[];
  /** `prop=` modules. */
  prop?: readonly ModuleUse<'prop'>[];
  /** `meta=` modules. */
  meta?: readonly ModuleUse<'meta'>[];
  /** At most one generator: `module.asGenerator({...})`. */
  generator?: GeneratorUse;
  titles?: readonly string[];
  pageids?: readonly number[];
  revids?: readonly number[];
  redirects?: boolean;
  converttitles?: boolean;
  indexpageids?: boolean;
  export?: boolean;
  exportnowrap?: boolean;
  exportschema?: '0.10' | '0.11';
  iwurl?: boolean;
  /** The `continue` object of the previous response, sent back as is. */
  continue?: Readonly<Record<string, string | number>>;
  errorformat?: ErrorFormat;
  errorlang?: string;
  errorsuselocal?: boolean;
  uselang?: string;
  variant?: string;
  assert?: 'anon' | 'bot' | 'user';
  assertuser?: string;
  maxlag?: number;
  smaxage?: number;
  maxage?: number;
  requestid?: string;
  servedby?: boolean;
  curtimestamp?: boolean;
  responselanginfo?: boolean;
  origin?: string;
  crossorigin?: boolean;
  utf8?: boolean;
  ascii?: boolean;
}

export interface BuiltQuery {
  /** Every parameter as sent, in a stable order. */
  params: Record<string, string>;
  warnings: WikiWarning[];
  method: 'GET' | 'POST';
  /** The keys that came from `input.continue`: a client replaces them with each response's `continue`. */
  continuation: readonly string[];
  /** The URL-encoded form (`a=1&b=2`), as the GET query string or the POST body; equal to `toURLSearchParams().toString()`. */
  toString(): string;
  toURLSearchParams(): URLSearchParams;
}

const pageSetCaps = { multi: true, lowlimit: 50, highlimit: 500, limit: 50 } as const;

/** The query and main modules' own parameters (paraminfo of MediaWiki 1.46), as the validator reads them. */
const TOP_LEVEL: readonly ParamInfo[] = [
  { name: 'titles', type: 'string', ...pageSetCaps },
  { name: 'pageids', type: 'integer', ...pageSetCaps },
  { name: 'revids', type: 'integer', ...pageSetCaps },
  { name: 'redirects', type: 'boolean' },
  { name: 'converttitles', type: 'boolean' },
  { name: 'indexpageids', type: 'boolean' },
  { name: 'export', type: 'boolean' },
  { name: 'exportnowrap', type: 'boolean' },
  { name: 'exportschema', type: ['0.10', '0.11'], default: '0.11' },
  { name: 'iwurl', type: 'boolean' },
  { name: 'errorformat', type: ['bc', 'html', 'none', 'plaintext', 'raw', 'wikitext'], default: 'bc' },
  { name: 'errorlang', type: 'string', default: 'uselang' },
  { name: 'errorsuselocal', type: 'boolean' },
  { name: 'uselang', type: 'string', default: 'user' },
  { name: 'variant', type: 'string' },
  { name: 'assert', type: ['anon', 'bot', 'user'] },
  { name: 'assertuser', type: 'user', subtypes: ['name', 'temp'] },
  { name: 'maxlag', type: 'integer' },
  { name: 'smaxage', type: 'integer', default: 0, min: 0 },
  { name: 'maxage', type: 'integer', default: 0, min: 0 },
  { name: 'requestid', type: 'string' },
  { name: 'servedby', type: 'boolean' },
  { name: 'curtimestamp', type: 'boolean' },
  { name: 'responselanginfo', type: 'boolean' },
  { name: 'origin', type: 'string' },
  { name: 'crossorigin', type: 'boolean' },
  { name: 'utf8', type: 'boolean' },
  { name: 'ascii', type: 'boolean' },
];

const TOP_LEVEL_SPEC: ModuleSpec = { name: 'query', path: 'query', group: 'meta', prefix: '', parameters: TOP_LEVEL };

/**
 * Names that shape the request itself: a module parameter spelled the same always collides. The
 * query/main options (`titles`, `iwurl`, `uselang`, …) may share a name with a module parameter —
 * MediaWiki has one such pair, `prop=iwlinks`'s deprecated `iwurl` and the query module's `iwurl`,
 * both reading the same request key — so those collide only when both are given different values.
 */
const RESERVED = new Set([
  'action',
  'format',
  'formatversion',
  'callback',
  'list',
  'prop',
  'meta',
  'generator',
  'continue',
  'rawcontinue',
]);

const TOP_LEVEL_NAMES = new Set(TOP_LEVEL.map((p) => p.name));
const INPUT_KEYS = new Set<string>(['list', 'prop', 'meta', 'generator', 'continue', ...TOP_LEVEL_NAMES]);

/** `POST` when the encoded request is over {@link POST_THRESHOLD_BYTES}, `GET` otherwise. */
export function methodFor(encoded: string): 'GET' | 'POST' {
  return encoded.length > POST_THRESHOLD_BYTES ? 'POST' : 'GET';
}

/** The size of `params` as a URL query string, in bytes. */
export function encodedLength(params: Readonly<Record<string, string>>): number {
  return encodeForm(params).length;
}

/** A finished request: its params frozen, its encoded form, and the GET/POST choice that follows from it. */
function finishQuery(params: Record<string, string>, warnings: WikiWarning[], continuation: readonly string[] = []): BuiltQuery {
  const frozen = Object.freeze(params);
  const encoded = encodeForm(frozen);
  return Object.freeze({
    params: frozen,
    warnings,
    method: methodFor(encoded),
    continuation: Object.freeze([...continuation]),
    toString: () => encoded,
    toURLSearchParams: () => new URLSearchParams(frozen),
  }) as BuiltQuery;
}

interface Use {
  spec: ModuleSpec;
  params: Readonly<Record<string, unknown>>;
  prefix: string;
  group: ModuleGroup;
  generator: boolean;
}

function collisionError(message: string, param: string, data: Record<string, unknown>): WikiParamError {
  return new WikiParamError('prefixcollision', param, message, undefined, data);
}

function declaredNames(use: Use): string[] {
  return use.spec.parameters.map((p) => use.prefix + p.name);
}

/** Ids of module descriptors, so a combination of them can be named by a string. */
const specIds = new WeakMap<ModuleSpec, number>();
let nextSpecId = 0;
/** Combinations of modules already found free of collisions (bounded: cleared when full). */
const collisionFree = new Set<string>();
const COLLISION_CACHE_SIZE = 1024;

function combinationKey(uses: readonly Use[]): string {
  let key = '';
  for (const use of uses) {
    let id = specIds.get(use.spec);
    if (id === undefined) {
      id = nextSpecId++;
      specIds.set(use.spec, id);
    }
    key += `${use.generator ? 'g' : ''}${id},`;
  }
  return key;
}

function checkCollisions(uses: readonly Use[]): void {
  const key = combinationKey(uses);
  if (collisionFree.has(key)) return;
  findCollisions(uses);
  if (collisionFree.size >= COLLISION_CACHE_SIZE) collisionFree.clear();
  collisionFree.add(key);
}

function findCollisions(uses: readonly Use[]): void {
  const byPrefix = new Map<string, Use>();
  const byName = new Map<string, Use>();
  const label = (u: Use) => (u.generator ? `generator=${u.spec.name}` : `${u.group}=${u.spec.name}`);
  for (const use of uses) {
    const other = byPrefix.get(use.prefix);
    if (other) {
      throw collisionError(`${label(other)} and ${label(use)} share the parameter prefix "${use.prefix}".`, use.prefix, {
        prefix: use.prefix,
        modules: [label(other), label(use)],
      });
    }
    byPrefix.set(use.prefix, use);
    for (const name of declaredNames(use)) {
      if (RESERVED.has(name)) {
        throw collisionError(`${label(use)}'s parameter "${name}" collides with the query module's own.`, name, {
          param: name,
          modules: ['query', label(use)],
        });
      }
      const owner = byName.get(name);
      if (owner && owner !== use) {
        throw collisionError(`${label(owner)} and ${label(use)} both spell the parameter "${name}".`, name, {
          param: name,
          modules: [label(owner), label(use)],
        });
      }
      byName.set(name, use);
    }
  }
}

function moduleUses(input: QueryInput): Use[] {
  const uses: Use[] = [];
  for (const group of ['prop', 'list', 'meta'] as const) {
    for (const use of input[group] ?? []) {
      if (use.kind !== 'module' || use.spec.group !== group) {
        throw new WikiParamError(
          'badvalue',
          group,
          `Module "${use.spec.name}" (${use.spec.group}) cannot be used as ${group}.`,
          'query',
          { value: use.spec.name, group: use.spec.group },
        );
      }
      uses.push({
        spec: use.spec,
        params: use.params as Record<string, unknown>,
        prefix: use.spec.prefix,
        group,
        generator: false,
      });
    }
  }
  if (input.generator) {
    const g = input.generator;
    if (g.kind !== 'generator' || !g.spec.generator) {
      throw new WikiParamError('badvalue', 'generator', `Module "${g.spec.name}" cannot be used as a generator.`, 'query', {
        value: g.spec.name,
      });
    }
    uses.push({
      spec: g.spec,
      params: g.params as Record<string, unknown>,
      prefix: `g${g.spec.prefix}`,
      group: g.spec.group,
      generator: true,
    });
  }
  return uses;
}

/**
 * Builds one `action=query` request. Throws `WikiParamError` for MediaWiki's errors (and every
 * warning with `options.strict`); warnings come back on the result.
 */
export function query(input: QueryInput, options?: BuildOptions): BuiltQuery {
  const warnings: WikiWarning[] = [];

  const topInput: Record<string, unknown> = { errorformat: DEFAULT_ERROR_FORMAT };
  for (const key of Object.keys(input)) {
    const typed = (input as Record<string, unknown>)[key];
    if (typed === undefined) continue;
    if (TOP_LEVEL_NAMES.has(key)) topInput[key] = typed;
    else if (!INPUT_KEYS.has(key)) {
      warnings.push({ code: 'unrecognizedparams', param: key, module: 'main', data: { params: [key] } });
    }
  }

  const uses = moduleUses(input);
  checkCollisions(uses);

  const params: Record<string, string> = {
    action: 'query',
    format: 'json',
    formatversion: '2',
  };
  const moduleOptions = options ? { options: { ...options, strict: false } } : {};
  const topBuilt = buildModule(TOP_LEVEL_SPEC, topInput, { prefix: '', ...moduleOptions });
  warnings.push(...topBuilt.warnings);
  const top = topBuilt.params;
  const values = topBuilt.values;

  const sources = (['titles', 'pageids', 'revids'] as const).filter((s) => input[s] !== undefined);
  if (sources.length > 1) {
    throw new WikiParamError(
      'multisource',
      sources[1]!,
      `The "${sources[1]}" parameter cannot be used with "${sources[0]}".`,
      'query',
      { sources },
    );
  }
  if (input.revids !== undefined && input.redirects) {
    warnings.push({ code: 'redirectsandrevids', param: 'redirects', module: 'query' });
  }

  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const pageContext: QueryContext = {
    pageCount: count(values.titles) + count(values.pageids),
    revidCount: count(values.revids),
    generator: false,
  };

  const errorformat = top.errorformat;
  if (errorformat !== undefined) params.errorformat = errorformat;
  for (const group of ['prop', 'list', 'meta'] as const) {
    const names = uses.filter((u) => !u.generator && u.group === group).map((u) => u.spec.name);
    if (names.length > 0) params[group] = names.join('|');
  }
  // Deprecated modules are deprecated values of the query's list/prop/meta/generator parameters.
  for (const use of uses) {
    if (use.spec.deprecated) {
      warnings.push({
        code: 'deprecated-value',
        param: use.generator ? 'generator' : use.group,
        module: 'query',
        data: { value: use.spec.name },
      });
    }
  }
  const generatorUse = uses.find((u) => u.generator);
  if (generatorUse) params.generator = generatorUse.spec.name;
  for (const k in top) if (k !== 'errorformat') params[k] = top[k]!;

  for (const use of uses) {
    const built = buildModule(use.spec, use.params, {
      prefix: use.prefix,
      context: { ...pageContext, generator: !use.generator && generatorUse !== undefined },
      ...moduleOptions,
    });
    warnings.push(...built.warnings);
    for (const k in built.params) {
      const v = built.params[k]!;
      if (params[k] !== undefined && params[k] !== v) {
        throw collisionError(`"${k}" is given as "${params[k]}" and, by ${use.spec.name}, as "${v}".`, k, {
          param: k,
          modules: ['query', use.spec.name],
        });
      }
      params[k] = v;
    }
  }

  if (input.continue) {
    for (const [k, v] of Object.entries(input.continue)) {
      if (typeof v !== 'string' && typeof v !== 'number') {
        throw new WikiParamError(
          'badvalue',
          k,
          `Continuation parameter "${k}" must be a string or a number, as the response's "continue" gives it.`,
          'query',
          { value: typeof v },
        );
      }
      params[k] = String(v);
    }
  }

  if (options?.strict && warnings.length > 0) {
    const w = warnings[0]!;
    throw new WikiParamError(w.code, w.param, `Warning treated as an error (strict): ${w.code} on "${w.param}".`, w.module, {
      ...(w.data ?? {}),
      warnings,
    });
  }
  return finishQuery(params, warnings, Object.keys(input.continue ?? {}));
}
