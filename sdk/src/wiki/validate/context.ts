/**
 * The shapes of the validator: what a call gets (settings, raw string, context), what it returns,
 * and the pluggable type definitions (MediaWiki's `TypeDef`s) the core dispatches to.
 */
import type { BuildOptions, ParamInfo, WikiWarning } from '../types.js';

/**
 * Which layer's rules apply where MediaWiki's library and its Action API differ.
 *
 * The Action API wraps the ParamValidator library with its own defaults (`ApiParamValidator`):
 * out-of-range numbers clamp with an `outofrange` warning instead of failing, and unrecognized
 * values of a multi-valued parameter are dropped with an `unrecognizedvalues` warning instead of
 * failing. A parameter's own `x-ignoreRange` / `x-rangeEnforce` / `x-ignoreUnrecognizedValues`
 * settings (server-side knobs that paraminfo does not show) override the policy.
 */
export interface Policy {
  /** Out-of-range `integer`/`limit` values clamp with an `outofrange` warning (`true`) or fail (`false`). */
  readonly clampRange: boolean;
  /** Unrecognized values of a multi-valued parameter are dropped with a warning (`true`) or fail with `badvalue` (`false`). */
  readonly dropUnrecognized: boolean;
  /** Default caps on the number of values of a multi-valued parameter: `[lowlimit, highlimit]`. */
  readonly multiLimits: readonly [number, number];
}

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

/** One namespace as `meta=siteinfo&siprop=namespaces|namespacealiases` describes it. */
export interface SiteNamespace {
  id: number;
  /** The local name (`Benutzer` on de.wikipedia); `''` for the main namespace. */
  name: string;
  /** The canonical English name (`User`). */
  canonical?: string;
  aliases?: readonly string[];
  /** `case-sensitive` when the first letter of titles is not forced to upper case. */
  case?: 'first-letter' | 'case-sensitive';
}

/**
 * What the validator may know about the target wiki. All of it is optional: without it, checks
 * that need the wiki's state are lenient (any non-negative namespace number passes, no interwiki
 * prefix is recognized, names are not classified as temporary accounts) and the server decides.
 */
export interface SiteContext {
  /** The wiki's namespaces (siteinfo). Without them: MediaWiki's canonical English names, any id >= 0 valid. */
  namespaces?: readonly SiteNamespace[];
  /** Interwiki prefixes (siteinfo `interwikimap`), matched case-insensitively. */
  interwikiPrefixes?: readonly string[];
  /** Temporary account patterns such as `~2$1` (siteinfo `general.autocreatetempuser.matchPatterns`). */
  tempUserPatterns?: readonly string[];
}

export interface ValidateContext {
  /** The prefixed parameter name (`aplimit`), used in errors and warnings. */
  param: string;
  /** The module path (`query+allpages`), copied into errors and warnings. */
  module?: string;
  options?: BuildOptions;
  /** Defaults to {@link ACTION_API_POLICY}. */
  policy?: Policy;
  site?: SiteContext;
  /** `limit` only: `false` keeps `max` as the string `'max'` (LimitDef's `parse-limit` option). Default `true`. */
  parseLimit?: boolean;
  /** Extra or replacement type definitions by type name, like `ParamValidator::addTypeDef()`. */
  typeDefs?: Readonly<Record<string, TypeDef>>;
  /**
   * The built-in definitions beyond the core ones (`timestamp`, `user`, `title`, `boolean(BooleanDef)`)
   * that the parameters may use, as a module's descriptor supplies them. The exported `validateParam`
   * supplies all of them; the request builder, only the module's.
   */
  types?: Readonly<Record<string, TypeDef>>;
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

/** What a type definition sees while validating one value. */
export interface TypeContext {
  readonly param: string;
  readonly module?: string;
  readonly options: BuildOptions;
  readonly policy: Policy;
  readonly site: SiteContext;
  readonly parseLimit: boolean;
  /** The caller has the apihighlimits right. */
  readonly useHighLimits: boolean;
  /** The value comes from the parameter's default, not from the caller. */
  readonly isDefault: boolean;
  /** The value is one of the values of a multi-valued parameter. */
  readonly inMulti: boolean;
  /** The current time in ms (BuildOptions.now, else Date.now()). */
  now(): number;
  /** Record a non-fatal condition. */
  warn(code: string, data?: Record<string, unknown>): void;
  /** Throw a WikiParamError with MediaWiki's code. */
  fail(code: string, message: string, data?: Record<string, unknown>): never;
}

/** One parameter type, after MediaWiki's `TypeDef`. */
export interface TypeDef {
  /** Validate and normalize one raw value (for a multi-valued parameter: one of its values). */
  validate(value: string, settings: ParamInfo, ctx: TypeContext): unknown;
  /** The allowed values when the type is an enumeration; enables the parameter's all-specifier. */
  enumValues?(settings: ParamInfo, ctx: TypeContext): readonly unknown[] | undefined;
  /** What the all-specifier expands to, when that is not simply {@link TypeDef.enumValues}. */
  allValues?(settings: ParamInfo, ctx: TypeContext): readonly unknown[] | undefined;
  /** Adjust settings before use (defaults the type implies, e.g. `min: 0` for limits). */
  normalizeSettings?(settings: ParamInfo): ParamInfo;
  /** Presence types (`boolean`) are true when present, whatever the value, and false when absent. */
  readonly presence?: boolean;
}
