/**
 * Core modules' own request-only checks (how parameters combine), beyond ParamValidator's
 * per-parameter ones. The rules are data (`catalogue/rules.json`, each with the MediaWiki source it
 * comes from); the generator attaches to a module only the rules its paraminfo matches
 * ({@link rulesFor}), and `query()` applies them after the module's parameters validate, in the
 * table's order (the order the module checks them in), unless `BuildOptions.rules` is `false`.
 */

import type {
  ModuleRule,
  ModuleSpec,
  PageSetView,
  ParamInfo,
  RuleApplier,
  RuleTable,
  SiteContext,
  WikiWarning,
} from './types.js';
import { WikiParamError } from './types.js';
import { isIPv4, isIPv6 } from './validate/ip.js';
import { CANONICAL_NAMESPACES, decodeCharReferences, MalformedTitleError, parseTitle } from './validate/title.js';

export type { RuleTable } from './types.js';

/** The parameter names (and enum values) a rule relies on. */
function needs(rule: ModuleRule): { params: string[]; values: [string, string][] } {
  const params = 'params' in rule ? [...rule.params] : 'param' in rule && rule.param !== undefined ? [rule.param] : [];
  if (rule.rule === 'title-part' && rule.namespaceParam) params.push(rule.namespaceParam);
  if (rule.when) params.push(rule.when.param);
  if (rule.rule === 'pattern' && rule.unless !== undefined) params.push(rule.unless);
  const values: [string, string][] = [];
  if (rule.rule === 'missing-param-deprecation') {
    params.push(rule.ifAny.param);
    for (const v of rule.ifAny.values) values.push([rule.ifAny.param, v]);
  }
  if (rule.rule === 'cannot-use-with') {
    params.push(rule.values.param);
  }
  if (rule.rule === 'page-warning') {
    for (const p of [rule.unless, rule.ifGiven, rule.above?.param, rule.offset]) if (p !== undefined) params.push(p);
  }
  if (rule.rule === 'requires') {
    params.push(rule.requires.param);
    if (rule.requires.equals !== undefined) values.push([rule.requires.param, rule.requires.equals]);
  }
  if (rule.when) values.push([rule.when.param, rule.when.equals]);
  return { params, values };
}

/**
 * The rules of `table` for this module that its parameters match: every parameter a rule names
 * exists, and every value it names is among the enum's values. Other wikis' modules of the same
 * name that differ keep only the rules that still make sense.
 */
export function rulesFor(spec: Pick<ModuleSpec, 'name' | 'parameters'>, table: RuleTable): ModuleRule[] {
  const rules = table.modules[spec.name] ?? [];
  const byName = new Map(spec.parameters.map((p) => [p.name, p]));
  const hasValue = (p: string, v: string) => {
    const type = byName.get(p)?.type;
    return Array.isArray(type) ? type.includes(v) : type === 'boolean' && v === 'true';
  };
  const out: ModuleRule[] = [];
  for (const rule of rules) {
    const { params, values } = needs(rule);
    if (!params.every((p) => byName.has(p)) || !values.every(([p, v]) => hasValue(p, v))) continue;
    if (rule.rule === 'exclusive-values') {
      // Only the pairs whose values this module has: a wiki without `temp` accounts has no `!temp`.
      const pairs = rule.pairs.filter(([a, b]) => hasValue(rule.param, a) && hasValue(rule.param, b));
      if (pairs.length === 0) continue;
      out.push(pairs.length === rule.pairs.length ? rule : { ...rule, pairs });
    } else if (rule.rule === 'log-action') {
      const type = byName.get(rule.param)?.type;
      out.push(Array.isArray(type) ? { ...rule, values: type } : rule);
    } else if (rule.rule === 'cannot-use-with') {
      const values = rule.values.values.filter((v) => hasValue(rule.values.param, v));
      if (values.length === 0) continue;
      out.push(values.length === rule.values.values.length ? rule : { ...rule, values: { param: rule.values.param, values } });
    } else {
      out.push(rule);
    }
  }
  return out;
}

/**
 * `spec` with the rules of `table` its parameters match, and the parameters those rules validate
 * themselves read as strings (a `log-action` enum is paraminfo's help, not the request's type).
 */
export function withRuleTable<S extends Pick<ModuleSpec, 'name' | 'parameters'> & { rules?: ModuleSpec['rules'] }>(
  spec: S,
  table: RuleTable,
): S {
  const rules = rulesFor(spec, table);
  if (rules.length === 0) return spec;
  return { ...spec, parameters: relaxedParameters(spec.parameters, rules), rules };
}

/** The parameters as the request reads them: a `log-action` parameter is a plain string. */
export function relaxedParameters<P extends ParamInfo>(parameters: readonly P[], rules: readonly ModuleRule[]): P[] {
  const own = new Set(rules.filter((r) => r.rule === 'log-action').map((r) => (r as { param: string }).param));
  return parameters.map((p) => (own.has(p.name) ? { ...p, type: 'string' } : p));
}

const isGiven = (v: unknown): boolean => v !== undefined && v !== null && v !== false;

/** The value a module reads: the caller's, else the default. */
function readValue(params: Readonly<Record<string, unknown>>, settings: ParamInfo | undefined, name: string): unknown {
  const v = params[name];
  return isGiven(v) ? v : settings?.default;
}

function fail(code: string, param: string, message: string, spec: ModuleSpec, rule: ModuleRule, data = {}): never {
  const e = new WikiParamError(code, param, message, spec.path, { ...data, rule: rule.rule, source: rule.source });
  e.libraryCode = `module-rule:${rule.rule}`;
  throw e;
}

/**
 * Plain words need no title parser: no namespace or interwiki prefix (no `:`), no fragment, nothing
 * Title rejects, not `.`-relative, short. The common case, checked on every request, so kept cheap:
 * `/^[A-Za-z0-9][A-Za-z0-9 ,'()_-]{0,200}$/` as a character loop (a third of the regex's time).
 */
export function isPlainTitle(value: string): boolean {
  const n = value.length;
  if (n === 0 || n > 201) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) continue;
    // space , ' ( ) _ - after the first character
    if (i > 0 && (c === 32 || c === 44 || c === 39 || c === 40 || c === 41 || c === 95 || c === 45)) continue;
    return false;
  }
  return true;
}

/** Not a namespace: what {@link titleNamespace} gives an interwiki title when those are accepted. */
const EXTERNAL = -1000;

/** A namespace's local name, from the site or MediaWiki's canonical ones. */
function namespaceName(id: number, site: SiteContext | undefined): string | undefined {
  return (site?.namespaces ?? CANONICAL_NAMESPACES).find((n) => n.id === id)?.name;
}

/** Whether `text` is a title MediaWiki accepts (Title::newFromText), and its namespace (-1000 for an external one). */
function titleNamespace(
  text: string,
  defaultNamespace: number,
  site: SiteContext | undefined,
  external = false,
): number | undefined {
  try {
    const t = parseTitle(text, defaultNamespace, site);
    if (t.interwiki) return external ? EXTERNAL : undefined;
    return t.namespace;
  } catch (e) {
    if (e instanceof MalformedTitleError) return undefined;
    throw e;
  }
}

/** A parameter's settings by its unprefixed name (a module-level function: no closure per request). */
function settingsOf(spec: ModuleSpec, name: string): ParamInfo | undefined {
  return spec.parameters.find((p) => p.name === name);
}

/** One kind of rule's check: throws the API's `WikiParamError` when the rule fails. */
export type RuleCheck<K extends ModuleRule['rule'] = ModuleRule['rule']> = (
  rule: Extract<ModuleRule, { rule: K }>,
  spec: ModuleSpec,
  params: Readonly<Record<string, unknown>>,
  prefix: string,
  site: SiteContext | undefined,
  warnings: WikiWarning[],
  /** The module runs as the generator of a query that resolves redirects. */
  generatorRedirects: boolean,
  /** What the request tells of the module's pages, when it has any. */
  view: PageSetView | undefined,
) => void;

/** A check per kind of rule: the generator gives each module the checks of its own rules' kinds only. */
export type RuleChecks = { readonly [K in ModuleRule['rule']]?: RuleCheck<K> };

/** A module's rules made ready once: each rule's check, and the parameters whose presence it needs. */
interface CompiledRules {
  checks: RuleCheck[];
  /**
   * Per rule: the parameters one of which must be given for it to do anything; `undefined`: always run
   * it; `null`: only for a generator of a query with `redirects`.
   */
  triggers: (readonly string[] | undefined | null)[];
}

/**
 * The parameters a rule needs given to act: without any of them its check returns at once, so the
 * applier skips it without a call. `undefined` for the kinds that act on absence (a missing parameter
 * of `only-one-of`, `missing-param-deprecation`); `null` for `generator-redirects`, which acts on the query.
 */
function triggersOf(rule: ModuleRule): readonly string[] | undefined | null {
  const kind = rule.rule;
  if (kind === 'generator-redirects') return null;
  if (kind === 'only-one-of' || kind === 'missing-param-deprecation' || kind === 'page-warning') return undefined;
  return 'params' in rule ? rule.params : [rule.param];
}

/**
 * The rule applier for the kinds in `checks`: applies a module's rules to the parameters as given
 * (typed, unprefixed), in order; pushes the warnings of the rules that warn onto `warnings` and
 * throws the first failing rule's `WikiParamError`, with the API's code. A rule of a kind without a check is a programming error (a `TypeError` on the module's first request), never skipped.
 * Each rules array is compiled once (its checks, and the parameters each rule needs): a rule none of
 * whose parameters is given costs one property read per parameter, no call and no allocation.
 */
export function ruleApplier(checks: RuleChecks): RuleApplier {
  // A generated module's applier sees one rules array; `applyRules` (defineModule) sees many: cached per array.
  let lastRules: readonly ModuleRule[] | undefined;
  let last: CompiledRules | undefined;
  const compiled = new WeakMap<readonly ModuleRule[], CompiledRules>();
  return (spec, rules, params, prefix, site, warnings, pages, titleNamespaces, generatorRedirects = false, view) => {
    if (rules !== lastRules) {
      last = compiled.get(rules);
      if (last === undefined) {
        const found = rules.map((rule) => checks[rule.rule] as RuleCheck);
        const missing = found.indexOf(undefined as unknown as RuleCheck);
        // Refused before any request goes out, whether or not the rule would act on this one.
        if (missing !== -1)
          throw new TypeError(`Module "${spec.name}" has a "${rules[missing]!.rule}" rule but no check for it.`);
        last = { checks: found, triggers: rules.map(triggersOf) };
        compiled.set(rules, last);
      }
      lastRules = rules;
    }
    const { checks: found, triggers } = last!;
    for (let i = 0; i < rules.length; i++) {
      const trigger = triggers[i];
      if (trigger === null) {
        if (!generatorRedirects) continue;
      } else if (trigger !== undefined) {
        let given = false;
        for (let t = 0; t < trigger.length && !given; t++) given = params[trigger[t]!] !== undefined;
        if (!given) continue;
      }
      const rule = rules[i]!;
      if (rule.pages !== undefined && (pages === false || (pages === 'special' && rule.pages !== 'or-special'))) continue;
      if (rule.pagesIn !== undefined && !titleNamespaces?.().has(rule.pagesIn)) continue;
      if (rule.unlessAllWarned !== undefined && allWarned(rule.unlessAllWarned, params, warnings, spec)) continue;
      if (rule.unlessNoTitleKept !== undefined && noTitleKept(rule.unlessNoTitleKept, params, site)) continue;
      if (rule.unlessEmpty !== undefined) {
        const v = params[rule.unlessEmpty];
        if (Array.isArray(v) ? v.length === 0 : v === '') continue;
      }
      if (
        rule.when &&
        (String(readValue(params, settingsOf(spec, rule.when.param), rule.when.param)) === rule.when.equals) ===
          (rule.when.not === true)
      )
        continue;
      found[i]!(rule, spec, params, prefix, site, warnings, generatorRedirects, view);
    }
  };
}

/** Whether every value of a given parameter was skipped with a warning `code` of this module. */
function allWarned(
  { param, code }: { param: string; code: string },
  params: Readonly<Record<string, unknown>>,
  warnings: readonly WikiWarning[],
  spec: ModuleSpec,
): boolean {
  const value = params[param];
  if (!isGiven(value)) return false;
  const values = Array.isArray(value) ? value.map(String) : String(value).split('|');
  const warned = new Set(warnings.filter((w) => w.code === code && w.module === spec.path).map((w) => String(w.data?.value)));
  return values.every((v) => warned.has(v));
}

/** Whether the titles given in `param` leave none: each invalid, external or outside `namespaceParam`'s namespaces. */
function noTitleKept(
  { param, namespaceParam }: { param: string; namespaceParam: string },
  params: Readonly<Record<string, unknown>>,
  site: SiteContext | undefined,
): boolean {
  const value = params[param];
  const titles = Array.isArray(value) ? value.map(String) : isGiven(value) && value !== '' ? String(value).split('|') : [];
  if (titles.length === 0) return false;
  const ns = params[namespaceParam];
  const filter = Array.isArray(ns) && ns.length > 0 ? new Set(ns.map(Number)) : undefined;
  return titles.every((t) => {
    const n = titleNamespace(decodeCharReferences(t), 0, site);
    return n === undefined || (filter !== undefined && !filter.has(n));
  });
}

/** `exclusive-values`: two values of a multi parameter that may not be given together. */
export const exclusiveValuesRule: RuleCheck<'exclusive-values'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!Array.isArray(value)) return;
  const set = new Set(value.map(String));
  const pair = rule.pairs.find(([a, b]) => set.has(a) && set.has(b));
  if (pair) {
    fail(rule.code, prefix + rule.param, 'Incorrect parameter - mutually exclusive values may not be supplied.', spec, rule, {
      values: pair,
    });
  }
};

/** `only-one-of` (exactly one) and `max-one-of` (at most one) of a group of parameters. */
export const oneOfRule: RuleCheck<'only-one-of'> & RuleCheck<'max-one-of'> = (
  rule: Extract<ModuleRule, { rule: 'only-one-of' | 'max-one-of' }>,
  spec: ModuleSpec,
  params: Readonly<Record<string, unknown>>,
  prefix: string,
) => {
  const given = rule.params.filter((p) => isGiven(params[p]));
  if (given.length > 1) {
    const used = given.map((p) => `"${prefix}${p}"`).join(' and ');
    fail('invalidparammix', prefix + given[1]!, `The parameters ${used} can not be used together.`, spec, rule, {
      params: given.map((p) => prefix + p),
    });
  }
  if (given.length === 0 && rule.rule === 'only-one-of') {
    const names = rule.params.map((p) => `"${prefix}${p}"`);
    fail('missingparam', prefix + rule.params[0]!, `One of the parameters ${names.join(', ')} is required.`, spec, rule, {
      params: rule.params.map((p) => prefix + p),
    });
  }
};

/** PHP's whitespace before (and, in PHP 8, after) a numeric string. */
const PHP_NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;
const INT64_MAX = 2n ** 63n - 1n;

/** `strval((int)$x) === $x`: the canonical decimal form of a 64-bit integer. */
export function isPhpIntString(x: string): boolean {
  if (!/^(?:0|-?[1-9]\d*)$/.test(x)) return false;
  if (x.length < 19) return true;
  const n = BigInt(x);
  return n <= INT64_MAX && n >= -INT64_MAX - 1n;
}

/** `(int)$x == $x` in PHP 8: a numeric string whose value is an integer (beyond 64 bits the wiki decides). */
export function isPhpLooseInt(x: string): boolean {
  if (!PHP_NUMERIC.test(x)) return false;
  const n = Number(x);
  return Number.isInteger(n) || !Number.isFinite(n) || Math.abs(n) >= 2 ** 63;
}

/** PHP's explode('|', $value, $limit): at most `limit` parts, the last one keeping the rest. */
function explode(value: string, limit: number | undefined): string[] {
  const parts = value.split('|');
  if (limit === undefined || parts.length <= limit) return parts;
  return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join('|')];
}

/**
 * `continue`: the value read as the module reads it (ApiQuery*.php: explode, then dieContinueUsageIf on
 * the number of parts and on each part's form) → `badcontinue`. Only what the request shows is
 * checked: a part the module compares with the database (a timestamp, a title) is the wiki's.
 */
export const continueRule: RuleCheck<'continue'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const text = String(value);
  if (rule.truthy && (text === '' || text === '0')) return;
  const parts = explode(text, rule.limit);
  const n = parts.length;
  const part = (i: number) => parts[i < 0 ? n + i : i];
  const ok =
    (typeof rule.parts === 'number' ? n === rule.parts : rule.parts.includes(n)) &&
    (rule.ints ?? []).every((i) => {
      const p = part(i);
      return p === undefined || isPhpIntString(p);
    }) &&
    (rule.looseInts ?? []).every((i) => {
      const p = part(i);
      return p === undefined || isPhpLooseInt(p);
    }) &&
    (rule.patterns ?? []).every(({ part: i, pattern }) => {
      const p = part(i);
      return p === undefined || new RegExp(pattern).test(p);
    });
  if (!ok) {
    fail(
      'badcontinue',
      prefix + rule.param,
      'Invalid continue param. You should pass the original value returned by the previous query.',
      spec,
      rule,
      { parts: rule.parts },
    );
  }
};

/** `title`: a valid title (Title::newFromText), in a given namespace when the rule names one. */
export const titleRule: RuleCheck<'title'> = (rule, spec, params, prefix, site) => {
  for (const name of rule.params) {
    const value = params[name];
    if (!isGiven(value)) continue;
    // A plain title is in the main namespace; only a namespace requirement needs the parser.
    if (rule.namespace === undefined && isPlainTitle(String(value))) continue;
    const ns = titleNamespace(decodeCharReferences(String(value)), 0, site, rule.external === true);
    if (ns === undefined) fail('invalidtitle', prefix + name, `Bad title "${String(value)}".`, spec, rule);
    if (rule.namespace !== undefined && ns !== rule.namespace) {
      fail(rule.code ?? 'invalidtitle', prefix + name, `"${String(value)}" is not in namespace ${rule.namespace}.`, spec, rule);
    }
  }
};

/** `requires`: parameters that may only be used with another one (or with it at a value). */
export const requiresRule: RuleCheck<'requires'> = (rule, spec, params, prefix) => {
  const { param, equals } = rule.requires;
  const other = equals === undefined ? params[param] : readValue(params, settingsOf(spec, param), param);
  const met = equals === undefined ? isGiven(other) : String(other) === equals;
  if (met) return;
  let used: string | undefined;
  for (let i = 0; i < rule.params.length && used === undefined; i++) {
    const name = rule.params[i]!;
    const v = params[name];
    if (isGiven(v) && (rule.except?.[name] === undefined || String(v) !== rule.except[name])) used = name;
  }
  if (used !== undefined) {
    const need = `${prefix}${param}${equals === undefined ? '' : `=${equals}`}`;
    fail(
      rule.code ?? 'invalidparammix',
      prefix + used,
      `The "${prefix}${used}" parameter may only be used with "${need}".`,
      spec,
      rule,
      {
        with: need,
      },
    );
  }
};

/** `title-part`: titlePartToKey, the part of a title behind a namespace's name. */
export const titlePartRule: RuleCheck<'title-part'> = (rule, spec, params, prefix, site) => {
  for (const name of rule.params) {
    const value = params[name];
    if (!isGiven(value)) continue;
    // titlePartToKey: Title::makeTitleSafe($namespace, $part . 'x'), that is the part behind the
    // namespace's name: valid, no fragment, still in that namespace, not an interwiki link.
    if (isPlainTitle(String(value))) continue;
    // Read only for a part that is not plain: the common request never needs it.
    const nsValue = rule.namespaceParam
      ? readValue(params, settingsOf(spec, rule.namespaceParam), rule.namespaceParam)
      : undefined;
    const namespace = rule.namespace ?? (nsValue === undefined ? 0 : Number(nsValue));
    const nsName = namespace === 0 ? '' : namespaceName(namespace, site);
    if (nsName === undefined) continue;
    const text = nsName ? `${nsName}:${String(value)}x` : `${String(value)}x`;
    let ok = false;
    try {
      const t = parseTitle(text, 0, site);
      ok = !t.interwiki && !t.fragment && t.namespace === namespace;
    } catch (e) {
      if (!(e instanceof MalformedTitleError)) throw e;
    }
    if (!ok) fail('invalidtitle', prefix + name, `Bad title "${String(value)}".`, spec, rule);
  }
};

/** `iprange` (ApiQueryUserContribs): a CIDR range of an IP family, no broader than its limit. */
export const ipRangeRule: RuleCheck<'iprange'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const range = String(value);
  const name = prefix + rule.param;
  // IPUtils::isIPv4 / isIPv6 take an address with an optional prefix; parseCIDR then needs the prefix.
  const family = isIPv4(range) ? 'IPv4' : isIPv6(range) ? 'IPv6' : undefined;
  const slash = range.indexOf('/');
  if (family === undefined || (slash === -1 && !rule.cidrOptional)) {
    fail(rule.code ?? 'invalidiprange', name, `Invalid CIDR range "${range}".`, spec, rule, { value: range });
  }
  if (slash === -1) return;
  const limit = rule.limits[family];
  if (Number(range.slice(slash + 1)) < limit) {
    fail('cidrtoobroad', name, `${family} CIDR ranges broader than /${limit} are not accepted.`, spec, rule, {
      family,
      limit,
    });
  }
};

/** `pattern`: the value must match (unless `unless` is given) → `badvalue_<param>` (apierror-badparameter). */
export const patternRule: RuleCheck<'pattern'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value) || (rule.unless !== undefined && isGiven(params[rule.unless]))) return;
  if (new RegExp(rule.pattern).test(String(value))) return;
  const name = prefix + rule.param;
  fail(rule.code ?? `badvalue_${name}`, name, `Invalid value for parameter "${name}".`, spec, rule, { pattern: rule.pattern });
};

/** `nonempty`: a multi parameter given empty, or with an empty value (ApiQueryUserContribs) → `paramempty_<param>`. */
export const nonEmptyRule: RuleCheck<'nonempty'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const values = Array.isArray(value) ? value.map(String) : String(value) === '' ? [] : String(value).split('|');
  if (values.length > 0 && !values.includes('')) return;
  const name = prefix + rule.param;
  fail(rule.code ?? `paramempty_${name}`, name, `The "${name}" parameter may not be empty.`, spec, rule);
};

/** `positive`: each value of a multi integer parameter above 0 (ApiQueryUserContribs' userids → invaliduserid). */
export const positiveRule: RuleCheck<'positive'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const values = Array.isArray(value) ? value : String(value).split('|');
  const bad = values.find((v) => !(Number(v) > 0));
  if (bad === undefined) return;
  fail(rule.code, prefix + rule.param, `Invalid value "${String(bad)}" for parameter "${prefix}${rule.param}".`, spec, rule, {
    value: bad,
  });
};

/**
 * `title-warning`: each value that is not a title (Title::newFromText), is an interwiki one, or (with
 * `namespace`) is not in that namespace, is skipped with the warning `code`: the module goes on.
 */
export const titleWarningRule: RuleCheck<'title-warning'> = (rule, spec, params, prefix, site, warnings) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const values = Array.isArray(value) ? value.map(String) : String(value).split('|');
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) continue;
    seen.add(v);
    if (rule.namespace === undefined && isPlainTitle(v)) continue;
    let ok = false;
    try {
      const t = parseTitle(decodeCharReferences(v), 0, site);
      ok = !t.interwiki && (rule.namespace === undefined || t.namespace === rule.namespace);
    } catch (e) {
      if (!(e instanceof MalformedTitleError)) throw e;
    }
    if (!ok) warnings.push({ code: rule.code, param: prefix + rule.param, module: spec.path, data: { value: v } });
  }
};

/**
 * `missing-param-deprecation` (apiwarn-deprecation-missingparam): a module that answers in a legacy
 * format when `param` is absent and one of `ifAny`'s values is asked for warns `deprecation`.
 */
export const missingParamDeprecationRule: RuleCheck<'missing-param-deprecation'> = (
  rule,
  spec,
  params,
  prefix,
  _site,
  warnings,
) => {
  if (isGiven(params[rule.param])) return;
  const asked = readValue(params, settingsOf(spec, rule.ifAny.param), rule.ifAny.param);
  const list = Array.isArray(asked) ? asked.map(String) : isGiven(asked) ? String(asked).split('|') : [];
  if (!rule.ifAny.values.some((v) => list.includes(v)) && !rule.ifAny.orGiven?.some((p) => isGiven(params[p]))) return;
  const name = prefix + rule.param;
  warnings.push({
    code: 'deprecation',
    param: name,
    module: spec.path,
    data: { feature: `action=query&${spec.group}=${spec.name}&!${name}` },
  });
};

/** `cannot-use-with`: a boolean parameter set together with one of a multi parameter's values. */
export const cannotUseWithRule: RuleCheck<'cannot-use-with'> = (rule, spec, params, prefix) => {
  if (!isGiven(params[rule.param])) return;
  const asked = readValue(params, settingsOf(spec, rule.values.param), rule.values.param);
  const list = Array.isArray(asked) ? asked.map(String) : isGiven(asked) ? String(asked).split('|') : [];
  const matches = rule.values.values.filter((v) => list.includes(v));
  if (matches.length === 0) return;
  const other = `${prefix}${rule.values.param}=${matches.join('|')}`;
  fail(
    'invalidparammix',
    prefix + rule.param,
    `The parameters "${other}" and "${prefix}${rule.param}" can not be used together.`,
    spec,
    rule,
    {
      with: other,
    },
  );
};

/** `log-action`: ApiQueryLogEvents' own check of `leaction` (`type/action`, or a listed `type/*`). */
export const logActionRule: RuleCheck<'log-action'> = (rule, spec, params, prefix) => {
  const value = params[rule.param];
  if (!isGiven(value) || rule.values === undefined) return;
  const text = String(value);
  const slash = text.indexOf('/');
  if (slash !== -1 && (rule.values.includes(text) || rule.values.includes(`${text.slice(0, slash)}/*`))) return;
  const name = prefix + rule.param;
  fail(`unknown_${name}`, name, `Unrecognized value for parameter "${name}": ${text}.`, spec, rule, { value: text });
};

/** `generator-redirects`: ApiQueryAllPages/AllImages::executeGenerator refuse `redirects` before they run. */
export const generatorRedirectsRule: RuleCheck<'generator-redirects'> = (
  rule,
  spec,
  _params,
  prefix,
  _site,
  _warnings,
  generatorRedirects,
) => {
  if (generatorRedirects) fail(rule.code, 'redirects', `Use "${prefix}filterredir" instead of "redirects".`, spec, rule);
};

/** `miser-mode`: a parameter a `$wgMiserMode` wiki refuses; only when the site context says it is one. */
export const miserModeRule: RuleCheck<'miser-mode'> = (rule, spec, params, prefix, site) => {
  if (site?.miserMode !== true || params[rule.param] === undefined || params[rule.param] === null) return;
  fail(rule.code, prefix + rule.param, `"${prefix}${rule.param}" is disabled in miser mode.`, spec, rule);
};

/**
 * `known-values` (ApiQueryLanguageinfo): the values the wiki does not know are dropped with
 * `unrecognizedvalues`, each listed once, in the order given. Only with the known values in the site context.
 */
export const knownValuesRule: RuleCheck<'known-values'> = (rule, spec, params, prefix, site, warnings) => {
  const known = site?.[rule.from];
  const value = params[rule.param];
  if (known === undefined || value === undefined || value === null) return;
  const values = Array.isArray(value) ? value.map(String) : String(value) === '' ? [] : String(value).split('|');
  if (rule.allValue !== undefined && values.length === 1 && values[0] === rule.allValue) return;
  const set = new Set(known);
  const unknown = [...new Set(values.filter((v) => !set.has(v)))];
  if (unknown.length === 0) return;
  warnings.push({ code: 'unrecognizedvalues', param: prefix + rule.param, module: spec.path, data: { values: unknown } });
};

/** `page-warning`: a warning the module gives for the pages it reads, once per request, whenever they may be there. */
export const pageWarningRule: RuleCheck<'page-warning'> = (rule, spec, params, prefix, _site, warnings, _g, view) => {
  if (rule.unless !== undefined && isGiven(readValue(params, settingsOf(spec, rule.unless), rule.unless))) return;
  if (rule.ifGiven !== undefined && !isGiven(params[rule.ifGiven])) return;
  if (rule.above !== undefined) {
    const v = readValue(params, settingsOf(spec, rule.above.param), rule.above.param);
    if (!(v === 'max' || Number(v) > rule.above.value)) return;
  }
  if (rule.several && !(view !== undefined && view.maxPages() > 1)) return;
  if (
    rule.offset !== undefined &&
    isGiven(params[rule.offset]) &&
    Math.trunc(Number(params[rule.offset])) >= (view?.maxPages() ?? 0)
  )
    return;
  if (rule.inNamespace !== undefined && view?.namespaces()?.has(rule.inNamespace) !== true) return;
  if (rule.codeTitle && view?.codeTitle() !== true) return;
  if (rule.outsideNamespace !== undefined) {
    const namespaces = view?.namespaces();
    if (namespaces !== undefined && ![...namespaces].some((n) => n !== rule.outsideNamespace)) return;
  }
  // MediaWiki keeps one of each warning a module gives, however many pages give it.
  if (warnings.some((w) => w.code === rule.code && w.module === spec.path)) return;
  warnings.push({ code: rule.code, param: rule.param === undefined ? '' : prefix + rule.param, module: spec.path });
};

/** `page-continue`: a continue value the module refuses for whichever of the request's pages exist → `badcontinue`. */
export const pageContinueRule: RuleCheck<'page-continue'> = (rule, spec, params, prefix, _site, _w, _g, view) => {
  const value = params[rule.param];
  if (!isGiven(value) || view === undefined) return;
  // intval(): the integer part (the parameter is an integer, validated before).
  const n = Math.trunc(Number(value));
  if (!Number.isFinite(n)) return;
  let bad: boolean;
  if (rule.mode === 'offset') bad = n < 0 || n > view.maxPages();
  else if (n === 0) bad = true;
  else if (n < 0) {
    // Negative IDs are those of missing File: pages: with titles alone and none in File:, none can match.
    const namespaces = view.namespaces();
    bad = namespaces !== undefined && !namespaces.has(NS_FILE);
  } else {
    // With page IDs alone, the set's IDs are among them, the lowest first (the order the wiki reads them in).
    const ids = view.pageids();
    bad = ids !== undefined && (!ids.includes(n) || n === Math.min(...ids));
  }
  if (bad) {
    fail(
      'badcontinue',
      prefix + rule.param,
      'Invalid continue param. You should pass the original value returned by the previous query.',
      spec,
      rule,
      { value: String(value) },
    );
  }
};

/** `value-warning`: one warning when a value of the parameter does not match the pattern (the module skips it). */
export const valueWarningRule: RuleCheck<'value-warning'> = (rule, spec, params, prefix, _site, warnings) => {
  const value = params[rule.param];
  if (!isGiven(value)) return;
  const values = Array.isArray(value) ? value.map(String) : String(value) === '' ? [] : String(value).split('|');
  const pattern = new RegExp(rule.pattern);
  if (values.every((v) => pattern.test(v))) return;
  warnings.push({ code: rule.code, param: prefix + rule.param, module: spec.path, data: { values } });
};

const NS_FILE = 6;

/** The check of each kind of rule, by kind. */
const RULE_CHECKS: RuleChecks = {
  'exclusive-values': exclusiveValuesRule,
  'only-one-of': oneOfRule,
  'max-one-of': oneOfRule,
  continue: continueRule,
  title: titleRule,
  requires: requiresRule,
  'title-part': titlePartRule,
  iprange: ipRangeRule,
  pattern: patternRule,
  'title-warning': titleWarningRule,
  'missing-param-deprecation': missingParamDeprecationRule,
  'cannot-use-with': cannotUseWithRule,
  nonempty: nonEmptyRule,
  positive: positiveRule,
  'log-action': logActionRule,
  'generator-redirects': generatorRedirectsRule,
  'miser-mode': miserModeRule,
  'known-values': knownValuesRule,
  'page-warning': pageWarningRule,
  'page-continue': pageContinueRule,
  'value-warning': valueWarningRule,
};

/**
 * Applies a module's rules to the parameters as given (typed, unprefixed), every kind of rule
 * included: for hand-written descriptors (`defineModule()`). Throws the first failing rule's
 * `WikiParamError`, with the API's code.
 */
export const applyRules: RuleApplier = /* @__PURE__ */ ruleApplier(RULE_CHECKS);
