/**
 * Where finished sessions go until durable storage exists: in memory, newest kept, oldest dropped
 * past `capacity` so a long-running server does not grow without bound. A restart forgets them.
 */
import type { Session } from '../../../sdk/src/generated/types.gen.js';

export class MemorySessionStore {
  readonly #sessions = new Map<string, Session>();

  constructor(readonly capacity = 1000) {}

  save(session: Session): void {
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
    for (const id of this.#sessions.keys()) {
      if (this.#sessions.size <= this.capacity) break;
      this.#sessions.delete(id);
    }
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }
}
