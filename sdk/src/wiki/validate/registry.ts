/**
 * Every built-in type definition, and `validateParam` with all of them: for callers that validate
 * any parameter of any wiki (the conformance tests, `defineModule()` on a hand-written descriptor).
 * The request builder does not import this file: it validates with the core types plus those a
 * module's descriptor supplies, so a bundle carries only what its modules use.
 */
import type { ParamInfo, TypeDef } from '../types.js';
import type { ValidateContext, Validated } from './context.js';
import { BOOLEAN_WORDS_TYPE, CORE_DEFS, resolveTypeDef, validateParam as validateWith } from './core.js';
import { timestampDef } from './timestamp.js';
import { titleDef } from './title.js';
import { booleanWordsDef } from './typedefs.js';
import { userDef } from './user.js';

/** Built-in type definitions by paraminfo type name: the core ones and those a descriptor supplies. */
export const TYPE_DEFS: Readonly<Record<string, TypeDef>> = /* @__PURE__ */ Object.freeze({
  ...CORE_DEFS,
  [BOOLEAN_WORDS_TYPE]: booleanWordsDef,
  timestamp: timestampDef,
  user: userDef,
  title: titleDef,
});

/** The type definition for a parameter: enums by their value list, unknown types pass through. */
export function typeDefFor(settings: ParamInfo, custom?: Readonly<Record<string, TypeDef>>): TypeDef {
  return resolveTypeDef(settings, custom, TYPE_DEFS);
}

/**
 * Validate one parameter's raw request value against its paraminfo settings, the way MediaWiki
 * would, and normalize it, with every built-in type (and `ctx.typeDefs`). See the core's
 * `validateParam` for the rules; this one never needs `ctx.types`.
 */
export function validateParam(settings: ParamInfo, raw: string | undefined, ctx: ValidateContext): Validated {
  return validateWith(settings, raw, ctx.types === TYPE_DEFS ? ctx : { ...ctx, types: TYPE_DEFS });
}

/** `types` completed with every built-in definition (a descriptor's own entries win). */
export function withAllTypes(types: Readonly<Record<string, TypeDef>> | undefined): Readonly<Record<string, TypeDef>> {
  return types === undefined || types === TYPE_DEFS ? TYPE_DEFS : { ...TYPE_DEFS, ...types };
}
