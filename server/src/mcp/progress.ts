/**
 * A run's events as MCP progress: one notification when the session starts (naming it, so a client can follow or
 * cancel it elsewhere), one as each round ends, one when the verdict is in. `total` is the rounds asked for plus the
 * verdict, so a client can draw a bar; a debate that stops early (adaptive, early stop) jumps to the end.
 */
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';

export interface Progress {
  progress: number;
  total?: number;
  message: string;
}

export class DebateProgress {
  #total: number | undefined;
  #done = -1;

  /** The progress `event` makes, if any. */
  next(event: DebateEvent): Progress | undefined {
    switch (event.type) {
      case 'session.started':
        // A single answer or a parallel round is one step; a debate's rounds are each a step, and its verdict one more.
        this.#total = event.mode === 'deep' ? event.roundsRequested + 1 : 1;
        return this.#at(0, `session ${event.sessionId} started`);
      case 'round.ended': {
        const of = this.#total !== undefined && this.#total > 1 ? ` of ${this.#total - 1}` : '';
        const missing = event.missingSlots.length > 0 ? ` (slots ${event.missingSlots.join(', ')} missing)` : '';
        return this.#at(event.round, `round ${event.round}${of} ended${missing}`);
      }
      case 'verdict':
        return this.#at(this.#total ?? this.#done + 1, 'verdict written');
      default:
        return undefined;
    }
  }

  /** Nothing when it would not move forward: MCP's progress must increase with each notification. */
  #at(progress: number, message: string): Progress | undefined {
    if (progress <= this.#done) return undefined;
    this.#done = progress;
    return { progress, ...(this.#total !== undefined && { total: this.#total }), message };
  }
}
