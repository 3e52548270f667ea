/**
 * Continues, detached, the interrupted runs handed over by the store: a dead instance's, found by a sweep, and a
 * stopping or restarted instance's. Every live instance may try; the store lets one take each.
 */
import type { Logger } from '../config/log.js';
import { RunRefused } from './refused.js';
import type { Runs } from './runs.js';

export interface HandOverOptions {
  runs: Runs;
  /** A stopping instance starts nothing new. */
  draining: () => boolean;
  logger?: Logger | undefined;
}

/** Starts taking handed-over runs; returns the function that stops it. */
export function continueHandedOver({ runs, draining, logger }: HandOverOptions): () => void {
  const { store } = runs.sessions;
  const take = async (id: string) => {
    if (draining()) return;
    const session = await store.get(id);
    if (session?.status !== 'interrupted') return;
    let run: Awaited<ReturnType<Runs['continue']>>;
    try {
      run = await runs.continue(id, { owner: session.owner, detach: true });
    } catch (error) {
      // Refused: another instance took it first (or it cannot be continued; the reason is the owner's to read).
      if (error instanceof RunRefused) return;
      throw error;
    }
    logger?.info('continuing a debate another instance left', { sessionId: id });
    await run.done;
  };
  return (
    store.onHandOver?.((id) => {
      take(id).catch((error: unknown) =>
        logger?.error('continuing a handed-over debate failed', {
          sessionId: id,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }) ?? (() => undefined)
  );
}
