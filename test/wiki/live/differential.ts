/**
 * The differential suite's cases and scoring: valid and invalid requests for every query module of a
 * live wiki, generated from that wiki's own paraminfo, run through the builders and through the API,
 * and compared on the first error's code and the set of warning codes.
 *
 * Case kinds, scored apart:
 * - `param`: ParamValidator's per-parameter checks (types, limits, max, multi-value caps, U+001F,
 *   duplicates, deprecated parameters and values, unknown parameters, generator mode, namespaces).
 * - `rule`: the module's own request-only checks (`catalogue/rules.json`).
 * - `state`: the module cannot run for this client at all (its valid baseline request fails: a right,
 *   a login or a configuration is missing), so the API's answer says nothing about validation.
 */

import { parseParamInfoDocument } from '../../../sdk/src/wiki/codegen/document.js';
import { planModules } from '../../../sdk/src/wiki/codegen/emit.js';
import { encodeForm } from '../../../sdk/src/wiki/form.js';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { query } from '../../../sdk/src/wiki/query.js';
import { type RuleTable, withRuleTable } from '../../../sdk/src/wiki/rules.js';
import type { GeneratorUse, ModuleGroup, ModuleSpec, ModuleUse, ParamInfo, SiteContext } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';

/** api.php's JSON answer to `params`, posted as a form (no URL length limit, as the builders' POST). */
export function poster(api: () => string): (params: Record<string, string>) => Promise<Record<string, unknown>> {
  return async (params) => {
    const res = await fetch(api(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encodeForm(params),
    });
    return (await res.json()) as Record<string, unknown>;
  };
}

export type CaseKind = 'param' | 'rule' | 'state' | 'server-error';

export interface Case {
  kind: CaseKind;
  module: string;
  label: string;
  /** Unprefixed raw parameters of the module. */
  params: Record<string, string>;
  generator: boolean;
}

export interface Verdict {
  error?: string;
  warnings: string[];
}

export interface Outcome {
  case: Case;
  builder: Verdict;
  api: Verdict;
  agree: boolean;
}

/** Values the seeded test wiki has: a page, a category, a user. */
const PAGE = 'Apple';

/** A valid raw value for one parameter, or undefined when none can be made up. */
function validValue(p: ParamInfo, spec: ModuleSpec): string | undefined {
  const lower = p.name.toLowerCase();
  if (Array.isArray(p.type)) {
    const deprecated = new Set(p.deprecatedvalues ?? []);
    // Values that need a right (patrol flags) would test permissions, not validation.
    const usable = p.type.filter((v) => !deprecated.has(v) && v !== '' && !v.includes('|'));
    return usable.find((v) => !v.includes('patrol')) ?? usable[0];
  }
  switch (p.type) {
    case 'string':
    case 'text':
      // Values the modules' own semantics accept (a category where one is expected, a hash's format…).
      if (lower === 'title' && spec.name === 'categorymembers') return 'Category:Fruit';
      if (lower === 'categories') return 'Category:Fruit';
      if (lower === 'templates') return 'Template:Infobox';
      if (lower === 'images') return 'File:Example.png';
      if (lower === 'diffto') return 'prev';
      if (lower === 'ip') return '127.0.0.1';
      if (lower === 'code' && spec.name === 'languageinfo') return 'en';
      if (lower === 'title' && spec.name === 'imageusage') return 'File:Example.png';
      if (lower === 'sha1') return 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
      if (lower === 'sha1base36') return 'phoiac9h4m842xq45sp7s6u21eteeq1';
      if (lower.includes('continue')) return undefined;
      return PAGE;
    case 'integer': {
      const min = typeof p.min === 'number' ? p.min : 1;
      return String(Math.max(min, Math.min(1, typeof p.max === 'number' ? p.max : 1)));
    }
    case 'limit':
      return '5';
    case 'boolean':
      return '1';
    case 'timestamp':
      return '2024-01-01T00:00:00Z';
    case 'namespace':
      return '0';
    case 'user':
      return 'Admin';
    case 'title':
      return PAGE;
    default:
      return undefined;
  }
}

/** The baseline: required parameters and one of each only-one-of group, with valid values. */
function baseline(spec: ModuleSpec): Record<string, string> {
  const base: Record<string, string> = {};
  for (const p of spec.parameters) {
    if (!p.required) continue;
    const v = validValue(p, spec);
    if (v !== undefined) base[p.name] = v;
  }
  for (const rule of spec.rules ?? []) {
    if (rule.rule !== 'only-one-of') continue;
    const pick = rule.params.find((n) => n === 'title' || n === 'user') ?? rule.params[0];
    const first = spec.parameters.find((p) => p.name === pick);
    const v = first ? validValue(first, spec) : undefined;
    if (first && v !== undefined) base[first.name] = first.name === 'user' ? 'Admin' : v;
  }
  return base;
}

const times = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('|');

/** Invalid and edge values for one parameter: label → raw value. */
function paramCases(p: ParamInfo, spec: ModuleSpec): [string, string][] {
  const out: [string, string][] = [];
  const valid = validValue(p, spec);
  if (valid !== undefined) out.push(['valid', valid]);
  if (p.deprecated && valid !== undefined) out.push(['deprecated parameter', valid]);
  const low = typeof p.lowlimit === 'number' ? p.lowlimit : 50;
  if (Array.isArray(p.type)) {
    out.push(['unknown value', 'nosuchvalue']);
    for (const v of p.deprecatedvalues ?? []) out.push([`deprecated value ${v}`, v]);
    if (p.multi && valid !== undefined) {
      out.push(['duplicates', `${valid}|${valid}`]);
      out.push(['too many values', times(low + 1, () => valid)]);
      if (typeof p.allspecifier === 'string') out.push(['all-specifier', p.allspecifier]);
      out.push(['known and unknown', `${valid}|nosuchvalue`]);
    }
  } else {
    switch (p.type) {
      case 'integer':
      case 'limit':
        out.push(['not a number', 'abc']);
        if (typeof p.max === 'number') out.push(['above max', String(p.max + 1)]);
        if (typeof p.highmax === 'number') out.push(['above highmax', String(p.highmax + 1)]);
        if (typeof p.min === 'number') out.push(['below min', String(p.min - 1)]);
        if (p.type === 'limit') out.push(['max', 'max'], ['zero', '0']);
        if (p.multi) out.push(['too many values', times(low + 1, (i) => String(i + 1))]);
        break;
      case 'timestamp':
        out.push(['bad timestamp', 'garbage'], ['now', 'now'], ['empty timestamp', ''], ['unix', '1700000000']);
        break;
      case 'namespace':
        out.push(['unknown namespace', '9999'], ['negative', '-5']);
        if (p.multi) out.push(['known and unknown namespaces', '0|9999'], ['all namespaces', '*']);
        break;
      case 'user':
        out.push(['bad user', 'Foo#Bar'], ['IP', '127.0.0.1']);
        break;
      case 'title':
        out.push(['bad title', 'a[b']);
        break;
      case 'string':
        if (p.multi) {
          out.push(['too many values', times(low + 1, (i) => `V${i}`)]);
          out.push(['duplicates', valid !== undefined ? `${valid}|${valid}` : 'A|A']);
        }
        if (typeof p.maxbytes === 'number') out.push(['too long', 'x'.repeat(p.maxbytes + 1)]);
        break;
      default:
        break;
    }
  }
  // U+001F: a multi value in MediaWiki's alternative separator; on a single-valued parameter, refused.
  if (valid !== undefined && p.type !== 'boolean') {
    out.push(['U+001F', p.multi ? `\u001f${valid}\u001f${valid}` : `\u001f${valid}\u001f${valid}`]);
  }
  return out;
}

/** Another value of an enum than `not` (undefined when it has none). */
function otherValue(spec: ModuleSpec, name: string, not: string): string | undefined {
  const type = spec.parameters.find((p) => p.name === name)?.type;
  return Array.isArray(type) ? type.find((v) => v !== not) : undefined;
}

/** Cases for a module's own rules (`catalogue/rules.json`). */
function ruleCases(spec: ModuleSpec): [string, Record<string, string | undefined>][] {
  const out: [string, Record<string, string | undefined>][] = [];
  for (const rule of spec.rules ?? []) {
    switch (rule.rule) {
      case 'exclusive-values':
        for (const [a, b] of rule.pairs) out.push([`${rule.param}=${a}|${b}`, { [rule.param]: `${a}|${b}` }]);
        break;
      case 'only-one-of': {
        out.push([`none of ${rule.params.join('/')}`, Object.fromEntries(rule.params.map((p) => [p, undefined]))]);
        const two = rule.params.slice(0, 2);
        const values = two.map((n) => {
          const p = spec.parameters.find((x) => x.name === n)!;
          return validValue(p, spec) ?? '1';
        });
        out.push([`both ${two.join(' and ')}`, Object.fromEntries(two.map((n, i) => [n, values[i]]))]);
        break;
      }
      case 'max-one-of': {
        const two = rule.params.slice(0, 2);
        const values = two.map((n) => validValue(spec.parameters.find((x) => x.name === n)!, spec) ?? '1');
        out.push([`both ${two.join(' and ')}`, Object.fromEntries(two.map((n, i) => [n, values[i]]))]);
        break;
      }
      case 'continue': {
        if (rule.when?.not) break;
        const when = rule.when ? { [rule.when.param]: rule.when.equals } : {};
        const parts = typeof rule.parts === 'number' ? rule.parts : Math.max(...rule.parts);
        out.push([`continue with ${parts + 1} parts`, { ...when, [rule.param]: times(parts + 1, () => 'x') }]);
        if (parts > 1) out.push([`continue with 1 part`, { ...when, [rule.param]: 'x' }]);
        break;
      }
      case 'title':
        for (const p of rule.params) {
          out.push([`${p} bad syntax`, { [p]: 'a[b' }], [`${p} empty`, { [p]: '' }]);
          if (rule.namespace !== undefined) out.push([`${p} outside namespace ${rule.namespace}`, { [p]: 'Apple' }]);
        }
        break;
      case 'requires': {
        const p = rule.params[0]!;
        const v = validValue(spec.parameters.find((x) => x.name === p)!, spec) ?? '1';
        const other =
          rule.requires.equals === undefined ? undefined : otherValue(spec, rule.requires.param, rule.requires.equals);
        out.push([
          `${p} without ${rule.requires.param}${rule.requires.equals ? `=${rule.requires.equals}` : ''}`,
          { [p]: v, [rule.requires.param]: other },
        ]);
        break;
      }
      case 'title-part':
        for (const p of rule.params) {
          out.push([`${p} bad syntax`, { [p]: 'a|b' }], [`${p} fragment`, { [p]: 'a#b' }]);
          out.push([`${p} namespace prefix`, { [p]: 'Talk:X' }]);
        }
        break;
      case 'iprange': {
        // The range alone: the module's one-of group (user, userids, …) would fail first.
        const others: Record<string, undefined> = {};
        for (const r of spec.rules ?? []) if (r.rule === 'only-one-of') for (const p of r.params) others[p] = undefined;
        for (const v of ['nope', '10.0.0.1', '10.0.0.0/8', '10.0.0.0/16', '2001:db8::/16', '2001:db8::/32', '1.2.3.4/33'])
          out.push([`${rule.param}=${v}`, { ...others, [rule.param]: v }]);
        break;
      }
      case 'pattern': {
        const when = rule.when ? { [rule.when.param]: rule.when.equals } : {};
        for (const v of ['zz', 'abc', 'AB01']) out.push([`${rule.param}=${v}`, { ...when, [rule.param]: v }]);
        break;
      }
      case 'title-warning':
        out.push([`${rule.param} bad syntax`, { [rule.param]: 'a[b' }], [`${rule.param}=Apple`, { [rule.param]: 'Apple' }]);
        out.push([`${rule.param} bad and good`, { [rule.param]: 'a[b|Category:Fruit|File:X.png|Talk:Apple' }]);
        break;
      case 'missing-param-deprecation':
        for (const v of rule.ifAny.values.slice(0, 2)) {
          out.push([`${rule.ifAny.param}=${v} without ${rule.param}`, { [rule.ifAny.param]: v, [rule.param]: undefined }]);
        }
        out.push([
          `${rule.ifAny.param}=${rule.ifAny.values[0]} with ${rule.param}`,
          { [rule.ifAny.param]: rule.ifAny.values[0], [rule.param]: 'main' },
        ]);
        break;
    }
  }
  return out;
}

/** Every case for one module: the baseline, each parameter's, an unknown parameter, generator mode, the rules'. */
export function casesFor(spec: ModuleSpec, maxPerModule: number): Case[] {
  const base = baseline(spec);
  const cases: Case[] = [{ kind: 'param', module: spec.name, label: 'baseline', params: base, generator: false }];
  const add = (kind: CaseKind, label: string, params: Record<string, string | undefined>, generator = false) => {
    const merged: Record<string, string> = { ...base };
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) delete merged[k];
      else merged[k] = v;
    }
    cases.push({ kind, module: spec.name, label, params: merged, generator });
  };
  for (const rule of ruleCases(spec)) add('rule', rule[0], rule[1]);
  add('param', 'unknown parameter', { nosuchparam: '1' });
  if (spec.generator) {
    add('param', 'generator baseline', {}, true);
    const limit = spec.parameters.find((p) => p.type === 'limit');
    if (limit) add('param', `generator ${limit.name}=abc`, { [limit.name]: 'abc' }, true);
  }
  for (const p of spec.parameters) {
    for (const [label, value] of paramCases(p, spec)) add('param', `${p.name}: ${label}`, { [p.name]: value });
  }
  return cases.slice(0, maxPerModule);
}

/** Module specs from a paraminfo answer, with the rules the table has for them. */
export function specsFrom(paraminfo: unknown, table: RuleTable): ModuleSpec[] {
  const doc = parseParamInfoDocument(paraminfo);
  return planModules(doc).modules.map(({ module, group }) => {
    const spec: ModuleSpec = {
      name: module.name,
      path: module.path,
      group,
      prefix: module.prefix,
      parameters: module.parameters,
      ...(module.generator ? { generator: true } : {}),
      ...(module.deprecated ? { deprecated: true } : {}),
      ...(module.mustbeposted ? { mustbeposted: true } : {}),
      ...(module.templatedparameters ? { templatedparameters: module.templatedparameters } : {}),
    };
    return withRuleTable(spec, table);
  });
}

/** Pages for prop modules (and for prop generators): a prop module does nothing without them. */
function needsPages(spec: ModuleSpec): boolean {
  return spec.group === 'prop';
}

/** The builder's verdict on a case. */
export function builderVerdict(spec: ModuleSpec, c: Case, site: SiteContext): Verdict {
  // A descriptor read from paraminfo: defineModule() gives it every validator and the rule checker.
  const module = defineModule<Record<string, unknown>, ModuleGroup, true>(spec);
  const use = c.generator ? module.asGenerator(c.params) : module(c.params);
  const input: Record<string, unknown> = needsPages(spec) ? { titles: [PAGE] } : {};
  if (c.generator) input.generator = use as GeneratorUse;
  else input[spec.group] = [use as ModuleUse];
  try {
    const built = query(input, { site });
    return { warnings: distinct(built.warnings.map((w) => w.code)) };
  } catch (e) {
    if (e instanceof WikiParamError) return { error: e.code, warnings: distinct(e.warnings.map((w) => w.code)) };
    return { error: `threw ${e instanceof Error ? e.name : typeof e}`, warnings: [] };
  }
}

/** The raw request the API gets for a case (the same raw values, prefixed as MediaWiki reads them). */
export function apiParams(spec: ModuleSpec, c: Case): Record<string, string> {
  const prefix = c.generator ? `g${spec.prefix}` : spec.prefix;
  const params: Record<string, string> = {
    action: 'query',
    format: 'json',
    formatversion: '2',
    errorformat: 'plaintext',
  };
  if (needsPages(spec)) params.titles = PAGE;
  if (c.generator) params.generator = spec.name;
  else params[spec.group] = spec.name;
  for (const [k, v] of Object.entries(c.params)) params[prefix + k] = v;
  return params;
}

/** The API's verdict, minus the warnings the module gives on its valid baseline (run-time notices, not validation). */
export function apiVerdict(response: Record<string, unknown>, baselineWarnings: readonly string[]): Verdict {
  const errors = Array.isArray(response.errors) ? (response.errors as { code: string }[]) : [];
  const warnings = Array.isArray(response.warnings) ? (response.warnings as { code: string }[]).map((w) => w.code) : [];
  const remaining = [...baselineWarnings];
  const kept: string[] = [];
  for (const code of warnings) {
    const i = remaining.indexOf(code);
    if (i >= 0) remaining.splice(i, 1);
    else kept.push(code);
  }
  const verdict: Verdict = { warnings: distinct(kept) };
  if (errors[0]) verdict.error = errors[0].code;
  return verdict;
}

function distinct(codes: readonly string[]): string[] {
  return [...new Set(codes)].sort();
}

export function agree(a: Verdict, b: Verdict): boolean {
  return a.error === b.error && a.warnings.join(',') === b.warnings.join(',');
}

/** Agreement per kind, as `agreed/total (percent)`. */
export function score(outcomes: readonly Outcome[]): Record<CaseKind, { agreed: number; total: number; percent: number }> {
  const out = {} as Record<CaseKind, { agreed: number; total: number; percent: number }>;
  for (const kind of ['param', 'rule', 'state', 'server-error'] as const) {
    const of = outcomes.filter((o) => o.case.kind === kind);
    const agreed = of.filter((o) => o.agree).length;
    out[kind] = { agreed, total: of.length, percent: of.length ? (100 * agreed) / of.length : 100 };
  }
  return out;
}
