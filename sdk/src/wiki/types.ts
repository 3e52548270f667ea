/**
 * The shapes shared by the wiki query generator and the handwritten runtime: descriptors, rules, the
 * site context, the validator's type definitions. A descriptor is paraminfo (formatversion=2) minus the
 * prose, so any wiki's modules validate. Imports nothing, so every other module can depend on it.
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
  /** The token this parameter takes (`csrf`, `patrol`, …: `meta=tokens`'s types); `WikiClient` fetches it when not given. */
  tokentype?: string;
  /** For `title`: the page must exist. */
  mustExist?: boolean;
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
  /** The module refuses a GET: a query that carries it is sent by POST. */
  mustbeposted?: boolean;
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
  /**
   * What the module's page set may hold: pages (`true`: titles that may exist, page or revision IDs, a
   * generator's), only special pages (`'special'`: Special: and Media: titles), or nothing (`false`).
   */
  pages: boolean | 'special',
  /** The namespaces of the titles given, when the titles are all the pages (for rules with `pagesIn`). */
  titleNamespaces?: () => ReadonlySet<number>,
  /** The module runs as the generator of a query that resolves redirects (for `generator-redirects`). */
  generatorRedirects?: boolean,
  /** What the request tells of the module's pages (for `page-warning`, `page-continue`); absent without pages. */
  view?: PageSetView,
) => void;

/** What a request tells of the pages a module will read, before the wiki says which exist. */
export interface PageSetView {
  /** At most this many distinct pages (`Infinity` when a generator gives them). */
  maxPages(): number;
  /** The namespaces of the titles, when titles are all the pages; `undefined` when unknown (page IDs, a generator). */
  namespaces(): ReadonlySet<number> | undefined;
  /** The page IDs, when they are all the pages and no redirect is resolved; `undefined` otherwise. */
  pageids(): readonly number[] | undefined;
  /** Whether a title given is of a page whose default content model is not wikitext (a `.css`, `.js` or `.json` page). */
  codeTitle(): boolean;
}

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
  /**
   * The target wiki's own `main` and `query` module parameters (their paraminfo's `parameters`, as
   * `consilium-wiki generate` writes them to `main.ts`): the query's own options are validated against
   * them instead of the bundled table (MediaWiki 1.46's), so a 1.39 wiki's `smaxage=-1` passes and its
   * unknown `crossorigin` warns `unrecognizedparams`, as that wiki does.
   */
  main?: readonly ParamInfo[];
  /**
   * Tokens by `meta=tokens` type (`{ csrf: '…' }`): a parameter that takes one (paraminfo's `tokentype`) and
   * is not given gets it. `WikiClient` fetches the ones a query needs.
   */
  tokens?: Readonly<Record<string, string>>;
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

/** A rule applies only when a parameter (its default included) has this value. */
interface RuleCondition {
  param: string;
  /** The value as a string (`"true"` for a boolean that is set). */
  equals: string;
  /** The rule applies when the parameter does not have that value. */
  not?: true;
}

interface RuleBase {
  /** Where MediaWiki makes the check (file and function, under includes/api/). */
  source: string;
  when?: RuleCondition;
  /**
   * The module returns before this check when the page set is empty (a prop module's run()): the
   * rule applies only when the query gives pages (titles, pageids, revids) or a generator does. Titles
   * that can never be pages (invalid, interwiki, Special:, Media:) do not count; with `or-special`
   * (ApiQueryBacklinksprop, which adds the page set's special pages), Special: and Media: titles do.
   */
  pages?: true | 'or-special';
  /**
   * The module makes this check only for the pages of one namespace (fileusage, duplicatefiles: File:):
   * the rule applies only when a title given is in it. With page IDs or a generator nobody knows
   * before the wiki answers, so the check is the wiki's.
   */
  pagesIn?: number;
  /** The module returns before this check when this multi parameter is given empty (`funamespace=`). */
  unlessEmpty?: string;
  /** The module returns before this check when every value of `param` got the warning `code` (none was usable). */
  unlessAllWarned?: { param: string; code: string };
  /**
   * The module returns before this check when `param`'s titles leave none to look for: each invalid, external,
   * or outside the namespaces `namespaceParam` gives (ApiQueryLinks' pltitles/tltemplates).
   */
  unlessNoTitleKept?: { param: string; namespaceParam: string };
}

/** One of a core module's own request checks (`catalogue/rules.json`), applied by `rules.ts`. */
export type ModuleRule = RuleBase &
  (
    | { rule: 'exclusive-values'; param: string; pairs: readonly (readonly [string, string])[]; code: string }
    | { rule: 'only-one-of'; params: readonly string[] }
    | { rule: 'max-one-of'; params: readonly string[] }
    | {
        rule: 'continue';
        param: string;
        /** The number of `|`-separated parts it must have (one of them, for a module with several forms). */
        parts: number | readonly number[];
        /** PHP's explode() limit: the last part keeps the rest, `|` included. */
        limit?: number;
        /** The module tests the value's truthiness (`if ($params['continue'])`): `''` and `'0'` are skipped. */
        truthy?: true;
        /** Parts that must be an integer as written (`strval((int)$x) === $x`); negative indices count from the end. */
        ints?: readonly number[];
        /** Parts that must equal their integer (`(int)$x != $x`, PHP 8's loose comparison). */
        looseInts?: readonly number[];
        /** Parts that must match a pattern (preg_match). */
        patterns?: readonly { part: number; pattern: string }[];
      }
    | {
        rule: 'title';
        params: readonly string[];
        namespace?: number;
        code?: string;
        /** An interwiki title is accepted (the module checks only that Title::newFromText gives one). */
        external?: true;
      }
    | { rule: 'title-part'; params: readonly string[]; namespace?: number; namespaceParam?: string }
    | {
        rule: 'requires';
        params: readonly string[];
        requires: { param: string; equals?: string };
        code?: string;
        /** A value of one of `params` that counts as not used (allimages' `filterbots=all`). */
        except?: Readonly<Record<string, string>>;
      }
    | {
        rule: 'cannot-use-with';
        /** A boolean parameter that, set, … */
        param: string;
        /** … excludes these values of a multi parameter → invalidparammix (apierror-invalidparammix-cannotusewith). */
        values: { param: string; values: readonly string[] };
      }
    | {
        rule: 'iprange';
        param: string;
        limits: { readonly IPv4: number; readonly IPv6: number };
        /** The code for a value that is not an IP range (default `invalidiprange`). */
        code?: string;
        /** A single address is accepted too; only a range's prefix is checked against `limits`. */
        cidrOptional?: true;
      }
    | {
        rule: 'pattern';
        param: string;
        pattern: string;
        unless?: string;
        /** The error code (default `badvalue_<prefixed param>`). */
        code?: string;
      }
    | {
        /**
         * A `type/action` value the module checks itself (ApiQueryLogEvents): paraminfo's enum is for help
         * only, so the parameter is read as a string and the value must be listed, or its `type/*`
         * be → `unknown_<prefixed param>`. `values` is the enum, copied in when the rule is matched.
         */
        rule: 'log-action';
        param: string;
        values?: readonly string[];
      }
    | {
        rule: 'nonempty';
        /** A multi parameter given with no value, or with an empty one → `paramempty_<prefixed param>`. */
        param: string;
        /** The error code instead (PageImages' `noprop`). */
        code?: string;
      }
    | {
        rule: 'positive';
        /** A multi integer parameter: each value must be above 0 → `code`. */
        param: string;
        code: string;
      }
    | { rule: 'title-warning'; param: string; namespace?: number; code: string }
    | {
        /**
         * A generator that refuses the query's `redirects` (ApiQueryAllPages/AllImages::executeGenerator,
         * before the module runs) → `code`. Only when the module is the generator and is executed.
         */
        rule: 'generator-redirects';
        code: string;
      }
    | {
        /** A parameter a `$wgMiserMode` wiki refuses when given → `code`; checked only when the site context says the wiki is in miser mode. */
        rule: 'miser-mode';
        param: string;
        code: string;
      }
    | {
        /**
         * A multi parameter whose values the module looks up itself (ApiQueryLanguageinfo's `code`): those the
         * wiki does not know are dropped with the warning `unrecognizedvalues`, unless the value is `allValue`
         * alone. The known values come from the site context (`site[from]`); without them the wiki decides.
         */
        rule: 'known-values';
        param: string;
        from: 'languages';
        allValue?: string;
      }
    | {
        /**
         * A warning a module gives for the pages it reads (TextExtracts' `textextracts-*`), given whenever the page
         * set may hold such pages: which exist is the wiki's, and a warning it then does not give is harmless.
         */
        rule: 'page-warning';
        code: string;
        /** The parameter the warning names (unprefixed). */
        param?: string;
        /** Only when this boolean parameter is not set. */
        unless?: string;
        /** Only when this parameter is given. */
        ifGiven?: string;
        /** Only when this parameter's value, its default included, is above `value` (`max` is). */
        above?: { param: string; value: number };
        /** Only when the page set may hold more than one page. */
        several?: true;
        /** Only when a title in this namespace is given. */
        inNamespace?: number;
        /** Only when a page outside this namespace may be read (a title outside it, or pages whose titles are unknown). */
        outsideNamespace?: number;
        /** Only when a title given is of a page whose default content model is not wikitext (`.css`, `.js`, `.json`). */
        codeTitle?: true;
        /** The pages are read from this offset parameter on (TextExtracts' `continue`): none are read at or past their number. */
        offset?: string;
      }
    | {
        /**
         * A continue value read against the module's pages → `badcontinue` where the module's PHP refuses it for
         * any pages that may exist: `offset` (TextExtracts: above the number of pages), `pageid` (PageImages: not
         * the page ID of one of the pages after the first).
         */
        rule: 'page-continue';
        param: string;
        mode: 'offset' | 'pageid';
      }
    | {
        /** One warning `code` when a value of the parameter does not match `pattern` (AbuseFilter's filter names). */
        rule: 'value-warning';
        param: string;
        pattern: string;
        code: string;
      }
    | {
        rule: 'missing-param-deprecation';
        param: string;
        /** Any of `values` asked for in `param`, or any of `orGiven` given. */
        ifAny: { param: string; values: readonly string[]; orGiven?: readonly string[] };
      }
  );

/** `catalogue/rules.json`: module name → its rules (the SDK's own is `moduleRules`, `src/generated/wiki-rules.ts`). */
export interface RuleTable {
  mediawiki?: string;
  modules: Readonly<Record<string, readonly ModuleRule[]>>;
}

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
  /** `$wgMiserMode` (siteinfo `general.misermode`): some parameters are refused (allimages' `mime`). Unknown: the wiki decides. */
  miserMode?: boolean;
  /**
   * The language codes `meta=languageinfo` knows (its complete answer to `liprop=code`, which holds codes
   * siteinfo's `languages` may lack). Without them its `unrecognizedvalues` warning is the wiki's.
   */
  languages?: readonly string[];
}

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

/** What a type definition sees while validating one value. */
export interface TypeContext {
  readonly param: string;
  readonly module?: string | undefined;
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
