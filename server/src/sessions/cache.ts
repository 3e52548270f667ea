/**
 * The most recently used sessions, kept in memory in front of the store so reading them never
 * touches the database. Coherent with writes: every committed step replaces the cached copy.
 */
import type { Session } from '../../../sdk/src/generated/types.gen.js';

export class SessionCache {
  readonly #entries = new Map<string, Session>();
  /** Reads from the store in flight per id, and whether the id changed meanwhile. */
  readonly #reads = new Map<string, { count: number; changed: boolean }>();

  constructor(readonly capacity = 50) {}

  get size(): number {
    return this.#entries.size;
  }

  get(id: string): Session | undefined {
    const session = this.#entries.get(id);
    if (session) {
      // Re-inserting moves it to the most recent end of the Map's order.
      this.#entries.delete(id);
      this.#entries.set(id, session);
    }
    return session;
  }

  /**
   * Reads `id` from the store through `load` and caches the result, unless the id was written or
   * deleted while the read was in flight: then the copy read may be older than the cached one.
   */
  async load(id: string, load: () => Promise<Session | undefined>): Promise<Session | undefined> {
    const read = this.#reads.get(id) ?? { count: 0, changed: false };
    read.count++;
    this.#reads.set(id, read);
    try {
      const session = await load();
      if (session && !read.changed) this.#put(session);
      return session;
    } finally {
      if (--read.count === 0) this.#reads.delete(id);
    }
  }

  /** Caches what was just written. */
  set(session: Session): void {
    this.#changed(session.id);
    this.#put(session);
  }

  delete(id: string): void {
    this.#changed(id);
    this.#entries.delete(id);
  }

  /** Forgets every copy, reads in flight included: any session may have changed unseen. */
  clear(): void {
    for (const read of this.#reads.values()) read.changed = true;
    this.#entries.clear();
  }

  #changed(id: string): void {
    const read = this.#reads.get(id);
    if (read) read.changed = true;
  }

  #put(session: Session): void {
    if (this.capacity === 0) return;
    this.#entries.delete(session.id);
    this.#entries.set(session.id, session);
    for (const id of this.#entries.keys()) {
      if (this.#entries.size <= this.capacity) break;
      this.#entries.delete(id);
    }
  }
}
