/**
 * Continues, detached, the interrupted runs handed over by the store: a dead instance's, found by a sweep, and a
 * stopping or restarted instance's. Every live instance may try; the store lets one take each.
 */
import type { Logger } from '../config/log.js';
import type { DebateEngine } from '../debate/engine.js';
import type { WikiSources } from '../grounding/sources.js';
import type { Sessions } from '../sessions/sessions.js';
import type { ReadinessState } from './deps.js';

export interface HandOverOptions {
  engine: DebateEngine;
  sessions: Sessions;
  readiness: ReadinessState;
  logger?: Logger;
  /** To keep a grounded session's sources when it is continued. */
  wikis?: WikiSources;
}

/** Starts taking handed-over runs; returns the function that stops it. */
export function continueHandedOver({ engine, sessions, readiness, logger, wikis }: HandOverOptions): () => void {
  const take = async (id: string) => {
    // A stopping instance starts nothing new.
    if (readiness.draining) return;
    const session = await sessions.store.get(id);
    if (session?.status !== 'interrupted') return;
    const continuation = await sessions.continue(id, session.owner);
    // Refused: another instance took it first (or it cannot be continued; the reason is the owner's to read).
    if (!continuation || 'refused' in continuation) return;
    logger?.info('continuing a debate another instance left', { sessionId: id });
    const cancel = new AbortController();
    await engine.continue(continuation.stored, {
      ...continuation.options,
      ...(session.grounding && wikis && { grounding: wikis.resume(session.grounding) }),
      owner: session.owner,
      signal: cancel.signal,
      onLog: sessions.recorder.hook(cancel),
    });
  };
  return (
    sessions.store.onHandOver?.((id) => {
      take(id).catch((error: unknown) =>
        logger?.error('continuing a handed-over debate failed', {
          sessionId: id,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }) ?? (() => undefined)
  );
}
