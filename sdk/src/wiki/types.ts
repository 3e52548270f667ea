/**
 * The shapes shared by the wiki query generator and the handwritten runtime. A module's descriptor
 * is its paraminfo description (formatversion=2) minus the prose, so the runtime can validate any
 * wiki's modules, not just the catalogue's.
 */
import type { ModuleRule } from './rules.js';
import type { SiteContext, TypeDef } from './validate/context.js';

/** One parameter as paraminfo describes it, with its unprefixed `name`. Empty markers are `true`. */
export interface ParamInfo {
  index?: number;
  name: string;
  /** A type name (`string`, `integer`, `limit`, `boolean`, `timestamp`, `namespace`, `user`, `title`, …) or the allowed values of an enum. */
  type: string | readonly string[];
  /** paraminfo's default: a string for enums, strings and multi values (`a|b`), a number or boolean otherwise. */
  default?: string | number | boolean;
  required?: boolean;
  multi?: boolean;
  /** Multi-value caps: `lowlimit` normally, `highlimit` with the apihighlimits right. */
  lowlimit?: number;
  highlimit?: number;
  limit?: number;
  min?: number;
  max?: number;
  highmax?: number;
  /** The value meaning "all allowed values" (usually `*`). */
  allspecifier?: string;
  /** Namespace numbers accepted beyond the wiki's ordinary ones (e.g. -2, -1). */
  extranamespaces?: readonly number[];
  /** For `user`: the accepted forms (`name`, `ip`, `cidr`, `temp`, `interwiki`, `id`). */
  subtypes?: readonly string[];
  deprecated?: boolean;
  deprecatedvalues?: readonly string[];
  sensitive?: boolean;
  allowsduplicates?: boolean;
  /** Conditions under which the parameter applies: `useronly`, `nonuseronly`, `modes`, `singlepageonly`, `preloadcontentonly`, `editintroonly`. */
  info?: readonly { name: string; values?: readonly (string | number)[] }[];
  /** On a templated parameter (`contentformat-{slot}`): each variable and the parameter whose values it takes. */
  templatevars?: Readonly<Record<string, string>>;
  /** Other paraminfo keys (maxbytes, maxchars, submodules, tokentype, …) pass through untouched. */
  [key: string]: unknown;
}

export type ModuleGroup = 'list' | 'prop' | 'meta';

/** A `query+<name>` module: what the runtime needs to validate and serialize its parameters. */
export interface ModuleSpec {
  name: string;
  /** `query+<name>`. */
  path: string;
  group: ModuleGroup;
  /** Prepended to every parameter name (`ap` → `apfrom`); empty for `tokens`. */
  prefix: string;
  generator?: boolean;
  deprecated?: boolean;
  internal?: boolean;
  parameters: readonly ParamInfo[];
  templatedparameters?: readonly ParamInfo[];
  /** The module's own request checks (`catalogue/rules.json`), applied by `query()` unless `rules: false`. */
  rules?: readonly ModuleRule[];
  /**
   * The validators of the built-in types beyond the core ones that the parameters use (`timestamp`,
   * `user`, `title`, `boolean(BooleanDef)`), by type name. The generator lists exactly those a module
   * needs, so a bundle carries no other; `defineModule()` completes a hand-written descriptor with all of them.
   */
  types?: Readonly<Record<string, TypeDef>>;
  /** What checks {@link ModuleSpec.rules}: `applyRules` from the runtime, given only by descriptors that have rules. */
  applyRules?: RuleApplier;
  /** What reads {@link ModuleSpec.templatedparameters}: `readTemplated` from the runtime, given only by descriptors that have them. */
  readTemplated?: TemplatedReader;
  /** What checks the parameters' `info` conditions: `checkInfoConditions` from the runtime, given only by descriptors that have them. */
  checkInfo?: InfoChecker;
}

/** The signature of the runtime's `applyRules` (`rules.ts`). */
export type RuleApplier = (
  spec: ModuleSpec,
  rules: readonly ModuleRule[],
  values: Readonly<Record<string, unknown>>,
  prefix: string,
  site: SiteContext | undefined,
  /** Where the rules that warn (rather than fail) push their warnings. */
  warnings: WikiWarning[],
  /** The query gives pages (titles, pageids, revids) or a generator does: rules marked `pages` apply. */
  pages: boolean,
) => void;

/** What the rest of the query tells a module's `info` conditions. */
export interface QueryContext {
  /** Number of titles plus page IDs given (after validation); `revids` counted apart. */
  pageCount: number;
  /** Number of revision IDs given. */
  revidCount: number;
  /** A generator supplies the pages (for a module that is not itself the generator). */
  generator: boolean;
  /**
   * The titles and page IDs as given, and the site: a module that needs a single page counts the
   * distinct pages they name (`History` and `history` are one page on a first-letter wiki).
   */
  titles?: readonly unknown[];
  pageids?: readonly unknown[];
  site?: SiteContext;
}

/** The signature of the runtime's `readTemplated` (`templated.ts`): reads each expansion through `read`. */
export type TemplatedReader = (
  spec: ModuleSpec,
  prefix: string,
  input: Readonly<Record<string, unknown>>,
  values: Record<string, unknown>,
  warnings: WikiWarning[],
  read: (settings: ParamInfo, name: string, typed: unknown) => void,
) => void;

/** The signature of the runtime's `checkInfoConditions` (`info.ts`): throws, or returns warnings. */
export type InfoChecker = (
  spec: ModuleSpec,
  prefix: string,
  given: ReadonlySet<string>,
  values: Readonly<Record<string, unknown>>,
  context: QueryContext,
) => WikiWarning[];

/** A timestamp as a caller may give it: a `Date`, or any form MediaWiki accepts. */
export type WikiTimestamp = Date | string;

/** `limit` parameters also take `'max'`: the module's max (highmax with apihighlimits). */
export type WikiLimit = number | 'max';

export interface WikiWarning {
  /**
   * The code the Action API returns for this warning with `errorformat=plaintext`: `deprecation` (and
   * the main module's `deprecation-help`), `outofrange`, `unrecognizedvalues`, `unrecognizedparams`,
   * `unclearnowtimestamp`, …
   */
  code: string;
  /** ParamValidator's own code when it differs from the API's (`param-deprecated`, `deprecated-value`). */
  libraryCode?: string;
  /** The prefixed parameter name, e.g. `aplimit`. */
  param: string;
  module?: string;
  data?: Record<string, unknown>;
}

export interface BuildOptions {
  /**
   * The caller has the apihighlimits right: `max` and caps become highmax and highlimit, multi-value
   * caps 500 instead of 50. `WikiClient` sets it from the signed-in user's rights.
   */
  apihighlimits?: boolean;
  /**
   * What the target wiki is (siteinfo: namespaces, interwiki prefixes…). Without it the checks that
   * need it are skipped: any namespace number ≥ 0 (or a parameter's extra ones) passes, no title is
   * read as an interwiki link, and the server decides. `WikiClient` loads it once per wiki.
   */
  site?: SiteContext;
  /**
   * Apply the core modules' own request checks (`catalogue/rules.json`: mutually exclusive values,
   * exactly-one-of groups, parameters that need or exclude others, `continue` formats, titles). Default `true`.
   */
  rules?: boolean;
  /** Turn every warning into a `WikiParamError`. */
  strict?: boolean;
  /** The current time, for timestamps like `now` (defaults to `Date.now()`); tests pin it. */
  now?: () => number;
}

/**
 * A bad parameter, with the code the Action API returns (`badinteger`, `badvalue`, `toomanyvalues`,
 * `missingparam`, `invalidparammix`, …). `warnings` are those MediaWiki would have raised before it,
 * and returns alongside the error.
 */
export class WikiParamError extends Error {
  override name = 'WikiParamError';
  /** The warnings raised before this error, in order (as the API's `warnings` beside its `errors`). */
  warnings: WikiWarning[] = [];
  /** The rule or library condition behind the error when its code alone does not say (`module-rule:…`). */
  libraryCode?: string;
  constructor(
    /** MediaWiki's error code. */
    readonly code: string,
    /** The prefixed parameter name. */
    readonly param: string,
    message: string,
    readonly module?: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
