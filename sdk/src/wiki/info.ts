/**
 * The `info` conditions of paraminfo (which parameters apply when), checked after a module's
 * parameters validate. Apart from `full-path.ts` because four catalogue modules have them: a descriptor
 * whose parameters carry them has {@link checkInfoConditions} (the generator and `defineModule()`
 * give it), so no other module's bundle carries this file.
 */
import type { InfoChecker, ModuleSpec, ParamInfo, QueryContext, WikiWarning } from './types.js';
import { WikiParamError } from './types.js';
import { decodeCharReferences, MalformedTitleError, parseTitle } from './validate/title.js';

/**
 * The pages ApiPageSet would count as good titles, assumed to exist: distinct page IDs, or distinct
 * titles once normalized (first letter per the site's case, underscores, entities), leaving out those
 * that are invalid, interwiki or special (never good titles).
 */
function distinctPages(context: QueryContext): number {
  if (context.pageCount <= 1) return context.pageCount;
  if (context.pageids !== undefined && context.titles === undefined) return new Set(context.pageids.map(String)).size;
  if (context.titles === undefined) return context.pageCount;
  const keys = new Set<string>();
  for (const t of context.titles) {
    try {
      const title = parseTitle(decodeCharReferences(String(t)), 0, context.site);
      if (!title.interwiki && title.namespace >= 0) keys.add(`${title.namespace}:${title.dbkey}`);
    } catch (e) {
      if (!(e instanceof MalformedTitleError)) throw e;
    }
  }
  return keys.size;
}

/** The parameters that carry `info` conditions, worked out once per descriptor. */
const withInfoBySpec = new WeakMap<ModuleSpec, readonly ParamInfo[]>();
function paramsWithInfo(spec: ModuleSpec): readonly ParamInfo[] {
  let withInfo = withInfoBySpec.get(spec);
  if (withInfo === undefined) {
    withInfo = spec.parameters.filter((p) => p.info && p.info.length > 0);
    withInfoBySpec.set(spec, withInfo);
  }
  return withInfo;
}

/** Whether a parameter counts as used: given, and (when it has a default) not at its default. */
function isUsed(settings: ParamInfo, given: boolean, value: unknown): boolean {
  if (!given || value === undefined || value === null || value === false) return false;
  if (settings.default === undefined) return true;
  const def = settings.default;
  if (Array.isArray(value)) return value.map(String).join('|') !== String(def);
  return String(value) !== String(def);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && !(Array.isArray(value) && value.length === 0);
}

/**
 * The `info` conditions of paraminfo, read as the modules enforce them (MediaWiki 1.39–1.46). Only
 * what the API itself reports is reported: where a module silently ignores a parameter, so does this.
 * - `useronly` / `nonuseronly` (alldeletedrevisions): used without / with the module's `user` →
 *   error `invalidparammix`, as the module dies.
 * - `modes` (deletedrevs): mode 1 = pages given (titles/pageids/revids or a generator), else mode 2 =
 *   `user` given, else mode 3. A parameter without a default used outside its modes → error
 *   `badparams` (the module dies for exactly those: from/to/prefix, start/end); one with a default
 *   set to another value is ignored by the module, silently.
 * - `singlepageonly` (ApiQueryRevisions::run): with `revids` → error `invalidparammix`; with more than
 *   one distinct page (titles normalized as the wiki does: `History` and `history` are one page on a
 *   first-letter wiki; invalid, interwiki and special titles are no pages) → error `invalidparammix`
 *   (the module dies when more than one of them exists; the builder assumes they do). With a
 *   generator the page count is the wiki's: not checked here, the wiki checks it.
 * - `preloadcontentonly` / `editintroonly` (info): ignored by the module when `prop` lacks
 *   `preloadcontent` / `editintro`, silently.
 */
export const checkInfoConditions: InfoChecker = (
  spec: ModuleSpec,
  prefix: string,
  given: ReadonlySet<string>,
  values: Readonly<Record<string, unknown>>,
  context: QueryContext,
): WikiWarning[] => {
  const warnings: WikiWarning[] = [];
  const withInfo = paramsWithInfo(spec);
  if (withInfo.length === 0) return warnings;
  const userGiven = present(values.user);
  const mode = context.pageCount + context.revidCount > 0 || context.generator ? 1 : userGiven ? 2 : 3;
  const fail = (code: string, param: string, message: string, data: Record<string, unknown>) => {
    throw new WikiParamError(code, prefix + param, message, spec.path, data);
  };
  for (const settings of withInfo) {
    const name = settings.name;
    if (!isUsed(settings, given.has(name), values[name])) continue;
    for (const cond of settings.info ?? []) {
      switch (cond.name) {
        case 'useronly':
          if (!userGiven)
            fail('invalidparammix', name, `The "${prefix}${name}" parameter must be used with "${prefix}user".`, {
              condition: 'useronly',
              with: `${prefix}user`,
            });
          break;
        case 'nonuseronly':
          if (userGiven)
            fail('invalidparammix', name, `The "${prefix}${name}" parameter cannot be used with "${prefix}user".`, {
              condition: 'nonuseronly',
              with: `${prefix}user`,
            });
          break;
        case 'modes': {
          const modes = (cond.values ?? []).map(Number);
          if (modes.includes(mode)) break;
          if (settings.default === undefined) {
            fail('badparams', name, `The "${prefix}${name}" parameter cannot be used in mode ${mode}.`, {
              condition: 'modes',
              modes,
              mode,
            });
          }
          break;
        }
        case 'singlepageonly':
          if (context.revidCount > 0) {
            fail('invalidparammix', name, `The "${prefix}${name}" parameter cannot be used with revids.`, {
              condition: 'singlepageonly',
              revids: context.revidCount,
            });
          }
          if (context.pageCount > 1) {
            const pages = distinctPages(context);
            if (pages > 1) {
              fail('invalidparammix', name, `The "${prefix}${name}" parameter may only be used with a single page.`, {
                condition: 'singlepageonly',
                pages,
              });
            }
          }
          break;
        default:
          break;
      }
    }
  }
  return warnings;
};
