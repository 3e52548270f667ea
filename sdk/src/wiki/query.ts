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
 * - `method` is `POST` when a module must be posted (paraminfo's `mustbeposted`: MediaWiki refuses it by GET,
 *   `mustbeposted`), or once the URL-encoded query string exceeds {@link POST_THRESHOLD_BYTES} (8000 bytes,
 *   safely under the common 8 KiB request-line limits of proxies and servers); `GET` otherwise.
 * - A parameter that takes a token (paraminfo's `tokentype`) and is not given gets `BuildOptions.tokens`' token
 *   of its type, when there is one (`WikiClient` fetches them); `tokens` lists where each went.
 * - Speed: each module (and the main module's own parameters) first tries `fast-path.ts`, which validates
 *   and encodes the common case directly; anything it does not take goes through `buildModule` (the
 *   full path, `full-path.ts`), so results do not depend on which path ran. The query string is built
 *   alongside the params rather than encoded again at the end.
 */

import { fastModule, namespaceSet } from './fast-path.js';
import { encodeForm, encodeFormComponent } from './form.js';
import { type BuiltModule, buildModule, strictError, withEveryType, withWarnings } from './full-path.js';
import type {
  BuildOptions,
  GeneratorUse,
  ModuleGroup,
  ModuleSpec,
  ModuleUse,
  PageSetView,
  ParamInfo,
  QueryContext,
  RuleApplier,
  SiteContext,
  WikiWarning,
} from './types.js';
import { WikiParamError } from './types.js';
import { decodeCharReferences, MalformedTitleError, NS_SPECIAL, type ParsedTitle, parseTitle } from './validate/title.js';
import { nameOrTempUserDef } from './validate/user.js';

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
  readonly params: Readonly<Record<string, string>>;
  readonly warnings: WikiWarning[];
  readonly method: 'GET' | 'POST';
  /** The keys that came from `input.continue`: a client replaces them with each response's `continue`. */
  readonly continuation: readonly string[];
  /** The parameters given a token from `BuildOptions.tokens`, and its type: a client replaces a stale one. */
  readonly tokens?: readonly QueryToken[] | undefined;
  /** The URL-encoded form (`a=1&b=2`), as the GET query string or the POST body; equal to `toURLSearchParams().toString()`. */
  toString(): string;
  toURLSearchParams(): URLSearchParams;
}

/** A parameter that got its token from `BuildOptions.tokens`. */
export interface QueryToken {
  /** The prefixed parameter name (`cutoken`). */
  param: string;
  /** `meta=tokens`' type (`csrf`, `patrol`, …). */
  type: string;
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

// `assertuser` is the one parameter of a type beyond the core ones: every query carries a user validator,
// the one for its subtypes only (`name`, `temp`; equal to `userDef` there, `user.test.ts`).
const TOP_LEVEL_SPEC: ModuleSpec = {
  name: 'query',
  path: 'query',
  group: 'meta',
  prefix: '',
  parameters: TOP_LEVEL,
  types: { user: nameOrTempUserDef },
};

/**
 * Names that shape the request itself, which `query()` sets from its own input (or never sends): a module
 * parameter spelled the same always collides, and the main module's own are not validated as its parameters. The
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
/** `query()`'s input keys: `true` for the main module's parameters, `false` for the rest. */
const INPUT_KEYS = new Map<string, boolean>([
  ...['list', 'prop', 'meta', 'generator', 'continue'].map((k) => [k, false] as const),
  ...[...TOP_LEVEL_NAMES].map((k) => [k, true] as const),
]);

/** The main and query modules' parameters a query is validated against, and the input keys they make. */
interface TopLevel {
  spec: ModuleSpec;
  inputKeys: ReadonlyMap<string, boolean>;
}

const DEFAULT_TOP: TopLevel = { spec: TOP_LEVEL_SPEC, inputKeys: INPUT_KEYS };
const customTops = new WeakMap<readonly ParamInfo[], TopLevel>();

/** The target wiki's own main and query parameters (`BuildOptions.main`), as a module to validate. */
function topLevelOf(main: readonly ParamInfo[] | undefined): TopLevel {
  if (main === undefined) return DEFAULT_TOP;
  let top = customTops.get(main);
  if (top === undefined) {
    const parameters = main.filter((p) => !RESERVED.has(p.name));
    const spec = withEveryType({ name: 'query', path: 'query', group: 'meta', prefix: '', parameters });
    const inputKeys = new Map<string, boolean>([
      ...['list', 'prop', 'meta', 'generator', 'continue'].map((k) => [k, false] as const),
      ...parameters.map((p) => [p.name, true] as const),
    ]);
    top = { spec, inputKeys };
    customTops.set(main, top);
  }
  return top;
}

/** `POST` when the encoded request is over {@link POST_THRESHOLD_BYTES}, `GET` otherwise. */
export function methodFor(encoded: string): 'GET' | 'POST' {
  return encoded.length > POST_THRESHOLD_BYTES ? 'POST' : 'GET';
}

/** The size of `params` as a URL query string, in bytes. */
export function encodedLength(params: Readonly<Record<string, string>>): number {
  return encodeForm(params).length;
}

/** The fixed start of every request, encoded. */
const HEAD = 'action=query&format=json&formatversion=2';

/** A key a plain object enumerates where it was inserted (an array index or `__proto__` is not). */
function keepsPlace(key: string): boolean {
  return key !== '__proto__' && !(/^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1);
}

/** `[key, value, key, value, …]` as a plain object, in that order. */
function paramsOf(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) params[pairs[i]!] = pairs[i + 1]!;
  return params;
}

/**
 * A finished request: its params (given, or made from `[key, value, …]` pairs when first read: a caller that
 * only sends the encoded form never pays for the object), its encoded form, and the GET/POST choice that follows
 * from it. `form` must be what `encodeForm(params)` gives.
 */
class FinishedQuery implements BuiltQuery {
  readonly #warnings: WikiWarning[];
  readonly #method: 'GET' | 'POST';
  readonly #continuation: readonly string[];
  readonly #tokens: readonly QueryToken[] | undefined;
  readonly #form: string;
  readonly #pairs: readonly string[] | undefined;
  #params: Readonly<Record<string, string>> | undefined;

  // Read-only through getters, not frozen: freezing each built query cost about 3 % of building it.
  constructor(
    params: Record<string, string> | undefined,
    pairs: readonly string[] | undefined,
    form: string,
    warnings: WikiWarning[],
    continuation: readonly string[],
    posted: boolean,
    tokens: readonly QueryToken[] | undefined,
  ) {
    this.#params = params && Object.freeze(params);
    this.#pairs = pairs;
    this.#form = form;
    this.#warnings = warnings;
    this.#method = posted ? 'POST' : methodFor(form);
    this.#tokens = tokens;
    this.#continuation = continuation.length === 0 ? NO_CONTINUATION : Object.freeze([...continuation]);
  }

  get warnings(): WikiWarning[] {
    return this.#warnings;
  }

  get method(): 'GET' | 'POST' {
    return this.#method;
  }

  get continuation(): readonly string[] {
    return this.#continuation;
  }

  get tokens(): readonly QueryToken[] | undefined {
    return this.#tokens;
  }

  get params(): Readonly<Record<string, string>> {
    this.#params ??= Object.freeze(paramsOf(this.#pairs!));
    return this.#params;
  }

  toString(): string {
    return this.#form;
  }

  toURLSearchParams(): URLSearchParams {
    return new URLSearchParams(this.params);
  }

  /** What `JSON.stringify` writes: the getters, which it would leave out. */
  toJSON(): Pick<BuiltQuery, 'params' | 'warnings' | 'method' | 'continuation'> {
    const { params, warnings, method, continuation } = this;
    return { params, warnings, method, continuation };
  }
}

/** {@link FinishedQuery} from params or pairs; `encoded`, when given, is their encoded form (built alongside them). */
function finishQuery(
  given: Record<string, string> | readonly string[],
  warnings: WikiWarning[],
  continuation: readonly string[],
  encoded: string | undefined,
  posted: boolean,
  tokens: readonly QueryToken[] | undefined,
): BuiltQuery {
  const pairs = Array.isArray(given) ? (given as readonly string[]) : undefined;
  const params = pairs === undefined ? (given as Record<string, string>) : undefined;
  const form = encoded ?? encodeForm(params ?? paramsOf(pairs!));
  return new FinishedQuery(params, pairs, form, warnings, continuation, posted, tokens);
}

/** A descriptor's parameters that take a token, worked out once per descriptor. */
const tokenParams = new WeakMap<ModuleSpec, readonly ParamInfo[]>();
function tokenParamsOf(spec: ModuleSpec): readonly ParamInfo[] {
  let found = tokenParams.get(spec);
  if (found === undefined) {
    found = spec.parameters.filter((p) => typeof p.tokentype === 'string');
    tokenParams.set(spec, found);
  }
  return found;
}

/** Gives each use's token parameters the caller did not set the token of their type; returns where each went. */
function fillTokens(uses: Use[], tokens: Readonly<Record<string, string>>): QueryToken[] | undefined {
  let filled: QueryToken[] | undefined;
  for (const use of uses) {
    for (const p of tokenParamsOf(use.spec)) {
      const token = tokens[p.tokentype!];
      if (use.params[p.name] !== undefined || token === undefined) continue;
      use.params = { ...use.params, [p.name]: token };
      filled ??= [];
      filled.push({ param: use.prefix + p.name, type: p.tokentype! });
    }
  }
  return filled;
}

const NO_CONTINUATION: readonly string[] = Object.freeze([]);

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

/**
 * Combinations of modules already found free of collisions: a trie over the modules in order (as
 * module or as generator), each node keeping whether a module's parameter names meet the main
 * module's (then values are compared as they are set). Bounded: started afresh when it grows large.
 */
interface Combination {
  meetsTop?: boolean;
  modules?: WeakMap<ModuleSpec, Combination>;
  generators?: WeakMap<ModuleSpec, Combination>;
}
let combinations: Combination = {};
let combinationCount = 0;
const COMBINATION_CACHE_SIZE = 4096;

/** Throws on a collision; returns whether a module parameter shares a name with the main module's. */
function checkCollisions(uses: readonly Use[]): boolean {
  let node = combinations;
  for (const use of uses) {
    if (use.generator) node.generators ??= new WeakMap();
    else node.modules ??= new WeakMap();
    const next = (use.generator ? node.generators : node.modules)!;
    let child = next.get(use.spec);
    if (child === undefined) {
      if (++combinationCount > COMBINATION_CACHE_SIZE) {
        combinations = {};
        combinationCount = 0;
      }
      child = {};
      next.set(use.spec, child);
    }
    node = child;
  }
  node.meetsTop ??= findCollisions(uses);
  return node.meetsTop;
}

function findCollisions(uses: readonly Use[]): boolean {
  const byPrefix = new Map<string, Use>();
  const byName = new Map<string, Use>();
  const label = (u: Use) => (u.generator ? `generator=${u.spec.name}` : `${u.group}=${u.spec.name}`);
  let meetsTop = false;
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
      meetsTop ||= TOP_LEVEL_NAMES.has(name);
    }
  }
  return meetsTop;
}

function addUses(uses: Use[], group: ModuleGroup, list: Iterable<ModuleUse> | null | undefined): void {
  if (list === undefined || list === null) return;
  // An index loop: for…of costs more here, on every request.
  if (Array.isArray(list)) for (let i = 0; i < list.length; i++) addUse(uses, group, list[i]);
  else for (const use of list) addUse(uses, group, use);
}

function addUse(uses: Use[], group: ModuleGroup, use: ModuleUse): void {
  if (use.kind !== 'module' || use.spec.group !== group) {
    throw new WikiParamError(
      'badvalue',
      group,
      `Module "${use.spec.name}" (${use.spec.group}) cannot be used as ${group}.`,
      'query',
      { value: use.spec.name, group: use.spec.group },
    );
  }
  uses.push({ spec: use.spec, params: use.params as Record<string, unknown>, prefix: use.spec.prefix, group, generator: false });
}

function moduleUses(input: QueryInput): Use[] {
  const uses: Use[] = [];
  addUses(uses, 'prop', input.prop);
  addUses(uses, 'list', input.list);
  addUses(uses, 'meta', input.meta);
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
  return buildQuery(input, options, true);
}

/**
 * {@link query}, with `fast: false` sending every module through the full validator and encoding the
 * finished params at the end: the reference the fast path (`fast-path.ts`) is tested against.
 * @internal
 */
export function buildQuery(input: QueryInput, options: BuildOptions | undefined, fast: boolean): BuiltQuery {
  const warnings: WikiWarning[] = [];
  try {
    return buildQueryInto(warnings, input, options, fast);
  } catch (e) {
    if (e instanceof WikiParamError) withWarnings(e, warnings).warnings = withDeprecationHelp(e.warnings);
    throw e;
  }
}

/**
 * ApiMain::reportUnusedParams, once the module has run: one `unrecognizedparams`, last, naming every parameter
 * nothing read (the builder notes each where it meets it).
 */
function unusedLast(warnings: WikiWarning[]): void {
  let first: WikiWarning | undefined;
  const params: unknown[] = [];
  for (let i = 0; i < warnings.length; i++) {
    const w = warnings[i]!;
    if (w.code !== 'unrecognizedparams') continue;
    first ??= w;
    params.push(...((w.data?.params as unknown[] | undefined) ?? [w.param]));
    warnings.splice(i--, 1);
  }
  if (first !== undefined) warnings.push({ ...first, data: { ...first.data, params } });
}

/**
 * The Action API adds the main module's `deprecation-help` (where to follow deprecations) right after
 * the first `deprecation` warning of a request, once.
 */
function withDeprecationHelp(warnings: WikiWarning[]): WikiWarning[] {
  for (let i = 0; i < warnings.length; i++) {
    if (warnings[i]!.code !== 'deprecation') continue;
    if (warnings.some((w) => w.code === 'deprecation-help')) return warnings;
    warnings.splice(i + 1, 0, { code: 'deprecation-help', param: '', module: 'main' });
    return warnings;
  }
  return warnings;
}

function buildQueryInto(
  warnings: WikiWarning[],
  input: QueryInput,
  options: BuildOptions | undefined,
  fast: boolean,
): BuiltQuery {
  const highLimits = Boolean(options?.apihighlimits);
  const topLevel = topLevelOf(options?.main);
  const topSpec = topLevel.spec;

  let topInput: Record<string, unknown> | undefined;
  for (const key of Object.keys(input)) {
    const typed = (input as Record<string, unknown>)[key];
    if (typed === undefined) continue;
    const isTop = topLevel.inputKeys.get(key);
    if (isTop) {
      topInput ??= { errorformat: DEFAULT_ERROR_FORMAT };
      topInput[key] = typed;
    } else if (isTop === undefined) {
      warnings.push({ code: 'unrecognizedparams', param: key, module: 'main', data: { params: [key] } });
    }
  }

  const uses = moduleUses(input);
  const tokens = options?.tokens ? fillTokens(uses, options.tokens) : undefined;
  // Unless a module's parameter names meet the main module's, a fast module's keys are not set yet:
  // modules' declared names never meet (checked), and fast-path keys are never inherited ones.
  let checkKeys = checkCollisions(uses) || topLevel !== DEFAULT_TOP;

  // The main module's own parameters as `[key, wire, encoded, …]`: from the fast path, or the full path's result.
  let top: readonly string[] | undefined;
  if (fast) {
    if (topInput) top = fastModule(topSpec, topInput, false, highLimits);
    else
      top =
        topLevel === DEFAULT_TOP
          ? defaultTop(highLimits)
          : fastModule(topSpec, { errorformat: DEFAULT_ERROR_FORMAT }, false, highLimits);
  }
  const ns = namespaceSet(options?.site);
  topInput ??= { errorformat: DEFAULT_ERROR_FORMAT };
  let topBuilt: BuiltModule | undefined;
  if (top === undefined) {
    topBuilt = buildModule(topSpec, topInput, { prefix: '', options: nonStrict(options) });
    warnings.push(...topBuilt.warnings);
    top = triples(topBuilt.params);
  }

  // Every key and value as sent, in order (`[key, value, …]`); `seen` maps them once keys may meet.
  const sent = ['action', 'query', 'format', 'json', 'formatversion', '2'];
  let seen: Map<string, string> | undefined;
  // The query string, built alongside the params: it is theirs while every key keeps its insertion place.
  let encoded = HEAD;
  let ordered = fast;

  // `errorformat` first, then the modules, then the main module's other parameters.
  for (let i = 0; i < top.length; i += 3) {
    if (top[i] === 'errorformat') {
      sent.push('errorformat', top[i + 1]!);
      encoded += top[i + 2]!;
    }
  }
  let generatorUse: Use | undefined;
  for (const group of GROUPS) {
    let names: string | undefined;
    for (const use of uses) {
      if (use.generator) generatorUse = use;
      else if (use.group === group) names = names === undefined ? use.spec.name : `${names}|${use.spec.name}`;
    }
    if (names !== undefined) {
      sent.push(group, names);
      encoded += `&${group}=${encodeFormComponent(names)}`;
    }
  }
  // A deprecated module (list=deletedrevs) is not a deprecated value of list/prop/meta: MediaWiki 1.39
  // says nothing when one is selected (the module itself may warn when it runs).
  if (generatorUse) {
    sent.push('generator', generatorUse.spec.name);
    encoded += `&generator=${encodeFormComponent(generatorUse.spec.name)}`;
  }
  for (let i = 0; i < top.length; i += 3) {
    if (top[i] === 'errorformat') continue;
    sent.push(top[i]!, top[i + 1]!);
    encoded += top[i + 2]!;
  }

  // ApiPageSet reads its sources before any module runs; with a generator, once the generator's parameters are read.
  if (generatorUse === undefined) pageSetSources(input, warnings);

  const applyModuleRules = options?.rules !== false;
  // The modules a top-level `continue` says are done do not run (their parameters are still read).
  const skipped = applyModuleRules ? skippedModules(input.continue?.continue, uses, generatorUse) : undefined;
  // What the page set's own sources may hold, read once a module with rules asks.
  let pageSet: boolean | 'special' | undefined;
  let pageContext: QueryContext | undefined;
  let ownPages: PageSetView | undefined;
  // Known only when titles are all the pages: no page IDs, revision IDs or generator.
  const titleNamespaces =
    nonEmpty(input.titles) && !nonEmpty(input.pageids) && !nonEmpty(input.revids) && generatorUse === undefined
      ? namespacesOf(input.titles!, options?.site)
      : undefined;
  // ApiQuery runs the generator first (ApiPageSet::execute), then the prop, list and meta modules: its
  // warnings come before their errors, and its error before theirs. Its parameters are still sent last.
  const order = generatorUse !== undefined && uses.length > 1 ? [generatorUse, ...uses.slice(0, -1)] : uses;
  let generatorOut: readonly string[] | undefined;
  for (let u = 0; u < order.length; u++) {
    const use = order[u]!;
    // The module's own checks run once its parameters validate (ApiBase::extractRequestParams, then execute()),
    // those of a prop module only when it has pages: from the page set, or from a generator other than itself.
    const hasRules = applyModuleRules && skipped?.has(use) !== true && use.spec.rules !== undefined && use.spec.rules.length > 0;
    let pages: boolean | 'special' = false;
    if (hasRules && generatorUse !== undefined && generatorUse !== use) pages = true;
    else if (hasRules) {
      pageSet ??= pageSetOf(input, options?.site);
      pages = pageSet;
    }
    const rules = hasRules && (pages !== false || !onlyWithPages(use.spec.rules!)) ? use.spec.rules : undefined;
    let out = fast ? fastModule(use.spec, use.params, use.generator, highLimits, ns) : undefined;
    // On the fast path the rules read the caller's values (no multi value to split); else the module's, as it reads them.
    let values = use.params;
    if (out === undefined) {
      // A full-path module's templated names are not among the declared ones: from now on, compare every key.
      checkKeys = true;
      // What the page set tells the modules' `info` conditions (after a fast top level, the full path
      // gives the same values, without a warning).
      pageContext ??= pageContextOf(
        topBuilt ?? buildModule(topSpec, topInput, { prefix: '', options: nonStrict(options) }),
        options?.site,
      );
      const built = buildModule(use.spec, use.params, {
        prefix: use.prefix,
        context: { ...pageContext, generator: !use.generator && generatorUse !== undefined },
        options: nonStrict(options),
      });
      warnings.push(...built.warnings);
      if (rules !== undefined) {
        const given: Record<string, unknown> = {};
        for (const name in use.params) if (use.params[name] !== undefined) given[name] = built.values[name];
        values = given;
      }
      out = triples(built.params);
      ordered &&= Object.keys(built.params).every(keepsPlace);
    }
    if (use.generator) pageSetSources(input, warnings);
    // allpages and allimages refuse the query's `redirects` as a generator (executeGenerator), before they run.
    if (rules !== undefined) {
      const redirects = use.generator && input.redirects === true;
      let view: PageSetView | undefined;
      if (pages !== false && generatorUse !== undefined && generatorUse !== use) view = GENERATED_PAGES;
      else if (pages !== false) {
        ownPages ??= pageViewOf(input, options?.site);
        view = ownPages;
      }
      rulesOf(use.spec)(use.spec, rules, values, use.prefix, options?.site, warnings, pages, titleNamespaces, redirects, view);
    }
    // The generator's parameters are sent after the other modules'.
    if (checkKeys) seen ??= mapOf(sent);
    if (use.generator && order !== uses) generatorOut = out;
    else encoded += writeOut(sent, seen, out, use);
  }
  if (generatorOut !== undefined) encoded += writeOut(sent, seen, generatorOut, generatorUse!);

  let params: Record<string, string> | undefined;
  if (input.continue) {
    params = paramsOf(sent);
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
      // A key already present keeps its place with the new value: encode the finished params instead.
      ordered = false;
    }
  }

  if (warnings.length > 0) {
    unusedLast(warnings);
    withDeprecationHelp(warnings);
  }
  if (options?.strict && warnings.length > 0) throw strictError(warnings, [...warnings]);
  const continuation = input.continue ? Object.keys(input.continue) : NO_CONTINUATION;
  let posted = false;
  for (let i = 0; i < uses.length && !posted; i++) posted = uses[i]!.spec.mustbeposted === true;
  return finishQuery(params ?? sent, warnings, continuation, ordered ? encoded : undefined, posted, tokens);
}

const GROUPS = ['prop', 'list', 'meta'] as const;

/** `[key, value, …]` as a map, for the collision checks. */
function mapOf(pairs: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i < pairs.length; i += 2) map.set(pairs[i]!, pairs[i + 1]!);
  return map;
}

/**
 * Appends a module's `[key, wire, encoded, …]` to `sent` and returns the encoded text they add. With
 * `seen` (the keys sent so far), a key already set to another value is a collision, and one set to the same
 * value is not sent twice. (Module-level, not a closure: the query's locals it would capture would then live
 * on the heap, on every request.)
 */
function writeOut(sent: string[], seen: Map<string, string> | undefined, out: readonly string[], use: Use): string {
  let encoded = '';
  for (let i = 0; i < out.length; i += 3) {
    const k = out[i]!;
    const v = out[i + 1]!;
    const prev = seen?.get(k);
    if (prev === undefined) {
      seen?.set(k, v);
      sent.push(k, v);
      encoded += out[i + 2]!;
    } else if (prev !== v) {
      throw collisionError(`"${k}" is given as "${prev}" and, by ${use.spec.name}, as "${v}".`, k, {
        param: k,
        modules: ['query', use.spec.name],
      });
    }
  }
  return encoded;
}

/** ApiPageSet: only one of titles, pageids and revids (`multisource`); `revids` with `redirects` warns. */
function pageSetSources(input: QueryInput, warnings: WikiWarning[]): void {
  if ((input.titles !== undefined ? 1 : 0) + (input.pageids !== undefined ? 1 : 0) + (input.revids !== undefined ? 1 : 0) > 1) {
    throw multisourceError(input);
  }
  if (input.revids !== undefined && input.redirects) {
    warnings.push({ code: 'redirectsandrevids', param: 'redirects', module: 'query' });
  }
}

/** The namespaces of the titles, read once and only when a rule asks (a title that does not parse has none). */
function namespacesOf(titles: readonly string[], site: SiteContext | undefined): () => ReadonlySet<number> {
  let found: Set<number> | undefined;
  return () => {
    if (found) return found;
    found = new Set();
    for (const t of titles) {
      try {
        found.add(parseTitle(decodeCharReferences(String(t)), 0, site).namespace);
      } catch (e) {
        if (!(e instanceof MalformedTitleError)) throw e;
      }
    }
    return found;
  };
}

/**
 * ApiContinuationManager's reading of the top-level `continue` (`<generator keys or ->||<done modules>`):
 * not exactly one `||` → `badcontinue`; the modules named after it are not executed, nor, when the
 * generator is done (`-`), the generator and every prop module. Undefined when nothing is skipped.
 */
function skippedModules(value: unknown, uses: readonly Use[], generatorUse: Use | undefined): Set<Use> | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if (text === '') return undefined;
  const halves = text.split('||');
  if (halves.length !== 2) {
    throw new WikiParamError(
      'badcontinue',
      'continue',
      'Invalid continue param. You should pass the original value returned by the previous query.',
      'main',
      { value: text },
    );
  }
  const done = new Set(halves[1]!.split('|'));
  const generatorDone = halves[0] === '-';
  let out: Set<Use> | undefined;
  for (const use of uses) {
    const skip = use === generatorUse ? generatorDone : done.has(use.spec.name) || (generatorDone && use.spec.group === 'prop');
    if (!skip) continue;
    out ??= new Set();
    out.add(use);
  }
  return out;
}

const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/**
 * What the query's own page set may hold (ApiPageSet::processTitlesArray): `true` with page or revision IDs, or
 * once a title may be a page (local, in a namespace >= 0; or a Special: page that `redirects` may resolve to one);
 * else `'special'` when a title is a Special: or Media: one; else `false` (none, or all invalid or interwiki).
 */
function pageSetOf(input: QueryInput, site: SiteContext | undefined): boolean | 'special' {
  if (nonEmpty(input.pageids) || nonEmpty(input.revids)) return true;
  if (!nonEmpty(input.titles)) return false;
  let special = false;
  for (const t of input.titles!) {
    let title: ParsedTitle;
    try {
      title = parseTitle(decodeCharReferences(String(t)), 0, site);
    } catch (e) {
      if (e instanceof MalformedTitleError) continue;
      throw e;
    }
    if (title.interwiki !== '') continue;
    if (title.namespace >= 0 || (title.namespace === NS_SPECIAL && input.redirects === true)) return true;
    special = true;
  }
  return special ? 'special' : false;
}

/** The pages a generator gives: any number, of any namespace. */
const GENERATED_PAGES: PageSetView = Object.freeze({
  maxPages: () => Number.POSITIVE_INFINITY,
  namespaces: () => undefined,
  pageids: () => undefined,
  codeTitle: () => false,
});

/** ContentHandler::getDefaultModelFor: MediaWiki: pages and user subpages ending .css, .js or .json are not wikitext. */
const isCodeTitle = (namespace: number, dbkey: string): boolean =>
  (namespace === 8 || (namespace === 2 && dbkey.includes('/'))) && /\.(?:css|js|json)$/.test(dbkey);

/** What the query's own page set tells of its pages, each part worked out when a rule first asks. */
function pageViewOf(input: QueryInput, site: SiteContext | undefined): PageSetView {
  let titles: { count: number; namespaces: Set<number>; code: boolean } | undefined;
  // The titles that may be pages: local, in a namespace that holds pages; one page however it is spelled.
  const readTitles = () => {
    if (titles) return titles;
    const keys = new Set<string>();
    const namespaces = new Set<number>();
    let code = false;
    for (const t of input.titles ?? []) {
      try {
        const title = parseTitle(decodeCharReferences(String(t)), 0, site);
        if (title.interwiki !== '' || title.namespace < 0) continue;
        keys.add(`${title.namespace}:${title.dbkey}`);
        namespaces.add(title.namespace);
        code ||= isCodeTitle(title.namespace, title.dbkey);
      } catch (e) {
        if (!(e instanceof MalformedTitleError)) throw e;
      }
    }
    titles = { count: keys.size, namespaces, code };
    return titles;
  };
  const distinct = (ids: readonly number[] | undefined) => new Set((ids ?? []).map(Number)).size;
  return {
    maxPages: () =>
      nonEmpty(input.titles) ? readTitles().count : nonEmpty(input.pageids) ? distinct(input.pageids) : distinct(input.revids),
    namespaces: () => (nonEmpty(input.titles) ? readTitles().namespaces : undefined),
    pageids: () =>
      nonEmpty(input.pageids) && !nonEmpty(input.titles) && !nonEmpty(input.revids) && input.redirects !== true
        ? [...new Set(input.pageids!.map(Number))]
        : undefined,
    codeTitle: () => nonEmpty(input.titles) && readTitles().code,
  };
}

/** Whether every rule of a module applies only with pages (then, without any, none is run). Cached per rule list. */
type Rules = NonNullable<ModuleSpec['rules']>;
const pagesOnly = new WeakMap<Rules, boolean>();
function onlyWithPages(rules: Rules): boolean {
  let only = pagesOnly.get(rules);
  if (only === undefined) {
    only = rules.every((r) => r.pages !== undefined);
    pagesOnly.set(rules, only);
  }
  return only;
}

/**
 * The rule checker a descriptor with rules carries (`applyRules`, which the generator and `defineModule()`
 * give): the runtime does not import it, so a bundle without such a module does not carry it.
 */
function rulesOf(spec: ModuleSpec): RuleApplier {
  if (spec.applyRules === undefined) {
    throw new TypeError(`Module "${spec.name}" has rules but no applyRules: define it with defineModule().`);
  }
  return spec.applyRules;
}

/**
 * The options the full path validates a module with: warnings are collected from every module first,
 * so strict applies once, at the end. Made only when the full path runs: spreading the caller's
 * options on every request cost the fast path about as much as a whole module.
 */
function nonStrict(options: BuildOptions | undefined): BuildOptions | undefined {
  return options ? { ...options, strict: false } : undefined;
}

/** ApiPageSet: only one of titles, pageids and revids. (Apart, so `query()` keeps no closure over its input.) */
function multisourceError(input: QueryInput): WikiParamError {
  const sources = (['titles', 'pageids', 'revids'] as const).filter((s) => input[s] !== undefined);
  return new WikiParamError(
    'multisource',
    sources[1]!,
    `The "${sources[1]}" parameter cannot be used with "${sources[0]}".`,
    'query',
    { sources },
  );
}

/** The full path's params as the fast path gives them: `[key, wire, '&' + encoded key + '=' + encoded wire, …]`. */
function triples(params: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const k in params) out.push(k, params[k]!, `&${encodeFormComponent(k)}=${encodeFormComponent(params[k]!)}`);
  return out;
}

function pageContextOf(top: BuiltModule, site: SiteContext | undefined): QueryContext {
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const { values } = top;
  const context: QueryContext = {
    pageCount: count(values.titles) + count(values.pageids),
    revidCount: count(values.revids),
    generator: false,
  };
  if (Array.isArray(values.titles)) context.titles = values.titles;
  if (Array.isArray(values.pageids)) context.pageids = values.pageids;
  if (site !== undefined) context.site = site;
  return context;
}

/** The main module's parameters when the input gives none of them (`errorformat=plaintext`), per apihighlimits. */
const defaultTops: [readonly string[] | undefined, readonly string[] | undefined] = [undefined, undefined];
function defaultTop(highLimits: boolean): readonly string[] | undefined {
  const i = highLimits ? 1 : 0;
  defaultTops[i] ??= fastModule(TOP_LEVEL_SPEC, { errorformat: DEFAULT_ERROR_FORMAT }, false, highLimits);
  return defaultTops[i];
}
