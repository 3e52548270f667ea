/**
 * A typed handle on one `query+<name>` module. The generator emits one per module:
 *
 * ```ts
 * export interface AllpagesParams { from?: string; limit?: WikiLimit; namespace?: number; … }
 * export const allpages = defineModule<AllpagesParams, 'list', true>({ name: 'allpages', … });
 * ```
 *
 * `allpages({ limit: 10 })` is a {@link ModuleUse} for {@link query}; `allpages.asGenerator({…})` (only
 * on generator modules) is a {@link GeneratorUse} whose parameters take the `g` prefix (`gapfrom`);
 * `allpages.build({…})` builds a standalone request carrying just this module.
 */
import { moduleRules } from '../generated/wiki-rules.js';
import { withEveryType } from './full-path.js';
import { type BuiltQuery, query } from './query.js';
import { applyRules, withRuleTable } from './rules.js';
import type { BuildOptions, GeneratorUse, ModuleGroup, ModuleSpec, ModuleUse, RuleTable } from './types.js';
import { SUPPLIED_TYPES } from './validate/core.js';

/** Parameters are optional as a whole when none of them is required. */
export type ParamsArg<P> = Partial<P> extends P ? [params?: P] : [params: P];

interface WikiModuleBase<P extends object, G extends ModuleGroup> {
  /** A use of this module for `query()`. */
  (...args: ParamsArg<P>): ModuleUse<G, P>;
  readonly spec: ModuleSpec;
  readonly group: G;
  /** A standalone `action=query` request carrying just this module (validated; throws `WikiParamError`). */
  build(...args: [...ParamsArg<P>, options?: BuildOptions]): BuiltQuery;
}

interface GeneratorMethods<P extends object, G extends ModuleGroup> {
  /** This module as the query's generator: `generator=<name>`, parameters prefixed with `g`. */
  asGenerator(...args: ParamsArg<P>): GeneratorUse<G, P>;
}

/** A module handle: callable, with `spec`, `build()`, and `asGenerator()` only when `Gen` is `true`. */
export type WikiModule<P extends object, G extends ModuleGroup, Gen extends boolean> = WikiModuleBase<P, G> &
  (Gen extends true ? GeneratorMethods<P, G> : unknown);

/**
 * Wraps a module's descriptor in a typed, callable handle. `P` is the module's unprefixed
 * parameters, `G` its group, `Gen` whether it can be a generator (`asGenerator` exists only then).
 *
 * Any descriptor works (any wiki's paraminfo): one that does not supply the validators of the types
 * it uses (`spec.types`) or the rule checker of its rules (`spec.applyRules`) gets them here, and then
 * the handle's `spec` is a completed copy. A descriptor without `rules` (one read from paraminfo) gets
 * the rules of the SDK's table its parameters match, as the generated builders do. That brings every
 * validator and the whole rules table into a bundle; generated modules use {@link defineTypedModule} instead.
 */
export function defineModule<P extends object, G extends ModuleGroup, Gen extends boolean>(
  spec: ModuleSpec,
  options: DefineOptions = {},
): WikiModule<P, G, Gen> {
  const table = options.rules ?? moduleRules;
  return defineTypedModule(completeSpec(table !== false && spec.rules === undefined ? withRules(spec, table) : spec));
}

export interface DefineOptions {
  /**
   * The module rules to match against a descriptor that has none (one read from a wiki's paraminfo):
   * by default the SDK's own table (`moduleRules`, also exported by `@consilium/sdk/wiki/rules`), the one
   * its generated builders carry; the module gets the rules its parameters match ({@link rulesFor}).
   * `false` attaches none (`query()`'s `rules: false` turns them off per request instead).
   */
  rules?: RuleTable | false;
}

/** Descriptors given rules by {@link defineModule}, per table: one descriptor and table always give the same copy. */
const ruledSpecs = new WeakMap<RuleTable, WeakMap<ModuleSpec, ModuleSpec>>();

function withRules(spec: ModuleSpec, table: RuleTable): ModuleSpec {
  let byTable = ruledSpecs.get(table);
  if (byTable === undefined) {
    byTable = new WeakMap();
    ruledSpecs.set(table, byTable);
  }
  let ruled = byTable.get(spec);
  if (ruled === undefined) {
    const found = withRuleTable(spec, table);
    ruled = found === spec ? spec : Object.freeze(found);
    byTable.set(spec, ruled);
  }
  return ruled;
}

/** Descriptors completed by {@link defineModule}, so that one descriptor always gives the same (cached) copy. */
const completedSpecs = new WeakMap<ModuleSpec, ModuleSpec>();

/**
 * `spec`, or a copy with every validator (and `applyRules`, `readTemplated`, `checkInfo` if it has
 * rules, templated parameters, `info` conditions) when it lacks what its parameters need.
 */
function completeSpec(spec: ModuleSpec): ModuleSpec {
  let full = completedSpecs.get(spec);
  if (full !== undefined) return full;
  const needsTypes = [...spec.parameters, ...(spec.templatedparameters ?? [])].some(
    (p) => typeof p.type === 'string' && SUPPLIED_TYPES.includes(p.type) && !(spec.types && Object.hasOwn(spec.types, p.type)),
  );
  const needsRules = spec.rules !== undefined && spec.rules.length > 0 && spec.applyRules === undefined;
  const needsReaders =
    (spec.readTemplated === undefined && (spec.templatedparameters?.length ?? 0) > 0) ||
    (spec.checkInfo === undefined && spec.parameters.some((p) => p.info !== undefined && p.info.length > 0));
  full = needsTypes || needsReaders ? withEveryType(spec) : spec;
  if (needsRules) full = Object.freeze({ ...full, applyRules });
  completedSpecs.set(spec, full);
  return full;
}

/**
 * {@link defineModule} for a descriptor that supplies what its parameters need beyond the core
 * validators: `types` (`{ timestamp: timestampDef, … }`) and, with rules, `applyRules`. The generator
 * emits this, so a module's bundle carries only its own validators. A missing validator is a
 * `TypeError` when the module is built, never a value let through unchecked.
 */
export function defineTypedModule<P extends object, G extends ModuleGroup, Gen extends boolean>(
  spec: ModuleSpec,
): WikiModule<P, G, Gen> {
  const group = spec.group as G;
  // Read-only by type, not frozen: freezing each use cost about 5 % of building a query.
  const use = (params?: P): ModuleUse<G, P> => ({ kind: 'module' as const, group, spec, params: (params ?? {}) as P });
  const build = (params?: P, options?: BuildOptions): BuiltQuery =>
    query({ [group]: [use(params)] } as Parameters<typeof query>[0], options);
  const handle = Object.assign(use, { spec, group, build }) as unknown as WikiModuleBase<P, G> & Partial<GeneratorMethods<P, G>>;
  if (spec.generator) {
    handle.asGenerator = (params?: P): GeneratorUse<G, P> => ({
      kind: 'generator' as const,
      group,
      spec,
      params: (params ?? {}) as P,
    });
  }
  Object.defineProperty(handle, 'name', { value: spec.name });
  return handle as WikiModule<P, G, Gen>;
}
