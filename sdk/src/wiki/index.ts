/**
 * Typed MediaWiki Action API query builders: `defineModule` handles (the generated ones live in
 * `sdk/src/generated/wiki/`), `query()` to compose them into one validated request, and `WikiClient`
 * to run it with continuation and `maxlag`.
 *
 * @example
 * ```ts
 * import { query, WikiClient } from '@consilium/sdk/wiki';
 * import { allpages } from '@consilium/sdk/wiki/modules/allpages';
 * const q = query({ list: [allpages({ prefix: 'Foo', limit: 50 })] });
 * const client = new WikiClient({ apiUrl: 'https://en.wikipedia.org/w/api.php', userAgent: 'MyTool/1.0 (me@example.org)' });
 * const { query: result } = await client.collect(q);
 * ```
 * @packageDocumentation
 */

export {
  type BatchOptions,
  mergeQuery,
  type RequestOptions,
  WikiApiError,
  type WikiApiMessage,
  type WikiBatch,
  WikiClient,
  type WikiClientOptions,
  type WikiCollected,
  WikiRightsError,
  type WikiSite,
} from './client.js';
export { encodeForm } from './form.js';
export { type BuiltModule, buildModuleParams, formatTimestamp } from './full-path.js';
export { checkInfoConditions } from './info.js';
export { type DefineOptions, defineModule, defineTypedModule, type ParamsArg, type WikiModule } from './module.js';
export {
  type BuiltQuery,
  DEFAULT_ERROR_FORMAT,
  type ErrorFormat,
  POST_THRESHOLD_BYTES,
  type QueryInput,
  type QueryToken,
  query,
} from './query.js';
export {
  applyRules,
  cannotUseWithRule,
  continueRule,
  exclusiveValuesRule,
  generatorRedirectsRule,
  ipRangeRule,
  knownValuesRule,
  logActionRule,
  miserModeRule,
  missingParamDeprecationRule,
  nonEmptyRule,
  oneOfRule,
  pageContinueRule,
  pageWarningRule,
  patternRule,
  positiveRule,
  type RuleCheck,
  type RuleChecks,
  type RuleTable,
  relaxedParameters,
  requiresRule,
  ruleApplier,
  rulesFor,
  titlePartRule,
  titleRule,
  titleWarningRule,
  valueWarningRule,
  withRuleTable,
} from './rules.js';
export { hasApiHighLimits, LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from './site.js';
export { readTemplated } from './templated.js';
export {
  type BuildOptions,
  type GeneratorUse,
  type InfoChecker,
  type ListUse,
  type MetaUse,
  type ModuleGroup,
  type ModuleSpec,
  type ModuleUse,
  type ParamInfo,
  type PropUse,
  type QueryContext,
  type RuleApplier,
  type SiteContext,
  type SiteNamespace,
  type TemplatedReader,
  type TypeDef,
  type WikiLimit,
  WikiParamError,
  type WikiTimestamp,
  type WikiWarning,
} from './types.js';
export { timestampDef } from './validate/timestamp.js';
export { titleDef } from './validate/title.js';
export { booleanWordsDef } from './validate/typedefs.js';
export { userDef } from './validate/user.js';
