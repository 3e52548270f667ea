/**
 * What one validation gets besides the raw string (`ValidateContext`) and gives back (`Validated`), and
 * the two policies it runs under: the Action API's and the bare library's. The type definitions it
 * dispatches to (`TypeDef`) are shared shapes, in `../types.ts`.
 */
import type { BuildOptions, Policy, SiteContext, TypeDef, WikiWarning } from '../types.js';

/** The Action API (`api.php`): what the request builder uses. */
export const ACTION_API_POLICY: Policy = /* @__PURE__ */ Object.freeze({
  clampRange: true,
  dropUnrecognized: true,
  multiLimits: /* @__PURE__ */ Object.freeze([50, 500] as const),
});

/** The bare ParamValidator library (`wikimedia/param-validator`), as its own tests exercise it. */
export const LIBRARY_POLICY: Policy = /* @__PURE__ */ Object.freeze({
  clampRange: false,
  dropUnrecognized: false,
  multiLimits: /* @__PURE__ */ Object.freeze([50, 500] as const),
});

export interface ValidateContext {
  /** The prefixed parameter name (`aplimit`), used in errors and warnings. */
  param: string;
  /** The module path (`query+allpages`), copied into errors and warnings. */
  module?: string | undefined;
  options?: BuildOptions | undefined;
  /** Defaults to {@link ACTION_API_POLICY}. */
  policy?: Policy;
  site?: SiteContext | undefined;
  /** `limit` only: `false` keeps `max` as the string `'max'` (LimitDef's `parse-limit` option). Default `true`. */
  parseLimit?: boolean;
  /** Extra or replacement type definitions by type name, like `ParamValidator::addTypeDef()`. */
  typeDefs?: Readonly<Record<string, TypeDef>>;
  /**
   * The built-in definitions beyond the core ones (`timestamp`, `user`, `title`, `boolean(BooleanDef)`)
   * that the parameters may use, as a module's descriptor supplies them. The exported `validateParam`
   * supplies all of them; the request builder, only the module's.
   */
  types?: Readonly<Record<string, TypeDef>> | undefined;
}

export interface Validated {
  /**
   * The normalized value: a number for `integer`/`limit`/`namespace` (a decimal string beyond
   * JS safe integers), a boolean for `boolean`, an ISO 8601 UTC string for `timestamp`, the
   * canonical name for `user`/`title`, the string for `string`/enums; an array of those for
   * multi-valued parameters; `undefined` when absent without a default.
   */
  value: unknown;
  warnings: WikiWarning[];
}
