/**
 * MediaWiki's parameter validation (ParamValidator and core's TypeDefs, with the Action API's
 * policy) on raw string input, handwritten and dependency-free. The request builder turns typed
 * values into raw strings, validates them here, and serializes the normalized values.
 */
export type { Policy, SiteContext, SiteNamespace, TypeContext, TypeDef } from '../types.js';
export { ACTION_API_POLICY, LIBRARY_POLICY, type ValidateContext, type Validated } from './context.js';
export { BOOLEAN_WORDS_TYPE } from './core.js';
export { isIPAddress, isValidIP, isValidRange, sanitizeIP } from './ip.js';
export { explodeMultiValue, implodeMultiValue, MULTI_SEPARATOR_ALT } from './multi.js';
export { INT64_MAX, INT64_MIN, integerValue, parseInteger } from './numeric.js';
export { TYPE_DEFS, typeDefFor, validateParam, withAllTypes } from './registry.js';
export { formatIsoTimestamp, parseTimestamp, timestampDef, toMwTimestamp } from './timestamp.js';
export {
  CANONICAL_NAMESPACES,
  decodeCharReferences,
  MalformedTitleError,
  type ParsedTitle,
  parseTitle,
  prefixedText,
  titleDef,
} from './title.js';
export { booleanWordsDef } from './typedefs.js';
export { canonicalUserName, isValidUserName, processUser, type UserForm, type UserSubtype, userDef } from './user.js';
