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
import { type BuiltQuery, query } from './query.js';
import type { BuildOptions, ModuleGroup, ModuleSpec } from './types.js';

/** Parameters as a caller gives them, unprefixed (`from`, not `apfrom`). */
export type ModuleParams = Readonly<Record<string, unknown>>;

/** One module with its parameters, as `query({ list: [...] })` takes it. */
export interface ModuleUse<G extends ModuleGroup = ModuleGroup, P extends object = object> {
  readonly kind: 'module';
  readonly group: G;
  readonly spec: ModuleSpec;
  readonly params: P;
}

export type ListUse = ModuleUse<'list'>;
export type PropUse = ModuleUse<'prop'>;
export type MetaUse = ModuleUse<'meta'>;

/** A generator module with its parameters, serialized as `generator=<name>` and `g<prefix><param>`. */
export interface GeneratorUse<G extends ModuleGroup = ModuleGroup, P extends object = object> {
  readonly kind: 'generator';
  readonly group: G;
  readonly spec: ModuleSpec;
  readonly params: P;
}

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
 */
export function defineModule<P extends object, G extends ModuleGroup, Gen extends boolean>(
  spec: ModuleSpec,
): WikiModule<P, G, Gen> {
  const group = spec.group as G;
  const use = (params?: P): ModuleUse<G, P> =>
    Object.freeze({ kind: 'module' as const, group, spec, params: (params ?? {}) as P });
  const build = (params?: P, options?: BuildOptions): BuiltQuery =>
    query({ [group]: [use(params)] } as Parameters<typeof query>[0], options);
  const handle = Object.assign(use, { spec, group, build }) as unknown as WikiModuleBase<P, G> & Partial<GeneratorMethods<P, G>>;
  if (spec.generator) {
    handle.asGenerator = (params?: P): GeneratorUse<G, P> =>
      Object.freeze({ kind: 'generator' as const, group, spec, params: (params ?? {}) as P });
  }
  Object.defineProperty(handle, 'name', { value: spec.name });
  return handle as WikiModule<P, G, Gen>;
}
