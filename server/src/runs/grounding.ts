/** The wiki grounding a run is given: a new one for the source a request names, or a stored session's, resumed. */
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import type { GroundingHook } from '../debate/grounding.js';
import type { WikiSources } from '../grounding/sources.js';
import { RunRefused } from './refused.js';

/** The grounding `request` asks for; throws `unknown_wiki_source` for a source not configured. */
export function groundingOf(
  wikis: WikiSources | undefined,
  request: { grounding?: { source: string } },
): { grounding?: GroundingHook } {
  if (!request.grounding) return {};
  const grounding = wikis?.grounding(request.grounding.source);
  if (grounding) return { grounding };
  const known = wikis?.names.join(', ') || 'none';
  throw new RunRefused('unknown_wiki_source', `No wiki source is named "${request.grounding.source}"; configured: ${known}.`);
}

/** A continued session keeps its grounding: the same sources, its citations counted on. */
export function resumedGrounding(wikis: WikiSources | undefined, session: Session): { grounding?: GroundingHook } {
  return session.grounding && wikis ? { grounding: wikis.resume(session.grounding) } : {};
}
