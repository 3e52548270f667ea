/**
 * The shapes shared by the wiki query generator and the handwritten runtime. A module's descriptor
 * is its paraminfo description (formatversion=2) minus the prose, so the runtime can validate any
 * wiki's modules, not just the catalogue's.
 */

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
}

/** A timestamp as a caller may give it: a `Date`, or any form MediaWiki accepts. */
export type WikiTimestamp = Date | string;

/** `limit` parameters also take `'max'`: the module's max (highmax with apihighlimits). */
export type WikiLimit = number | 'max';

export interface WikiWarning {
  /** MediaWiki's code: `outofrange`, `unrecognizedvalues`, `deprecated`, `deprecated-value`, `unclearnowtimestamp`, … */
  code: string;
  /** The prefixed parameter name, e.g. `aplimit`. */
  param: string;
  module?: string;
  data?: Record<string, unknown>;
}

export interface BuildOptions {
  /** The caller has the apihighlimits right: `max` and caps become highmax and highlimit. */
  apihighlimits?: boolean;
  /** Turn every warning into a `WikiParamError`. */
  strict?: boolean;
  /** The current time, for timestamps like `now` (defaults to `Date.now()`); tests pin it. */
  now?: () => number;
}

/** A bad parameter, with MediaWiki's own code (`badinteger`, `badvalue`, `toomanyvalues`, `missingparam`, …). */
export class WikiParamError extends Error {
  override name = 'WikiParamError';
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
