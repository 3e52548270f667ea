/**
 * How instances sharing a database tell each other what they wrote: one `pg_notify` per committed
 * step or delete on one channel, received over one LISTEN connection per store. Notifications
 * arrive in commit order, and one session has one writer at a time, so a session's events arrive
 * in `seq` order; a notification lost while the LISTEN connection was down is caught up from the
 * events table.
 */
import { Client, type Notification } from 'pg';
import type { DebateEvent } from '../../../../sdk/src/generated/types.gen.js';

export const CHANNEL = 'consilium_sessions';

/** PostgreSQL refuses payloads of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;

/**
 * `i`: the instance that wrote; `s`: the session. A write carries its events inline (`e`) or, when
 * they would not fit, the range of their `seq`s (`r`) to read back from the events table.
 */
export type Notice = { k: 'w'; i: string; s: string; e?: DebateEvent[]; r?: [number, number] } | { k: 'd'; i: string; s: string };

export function writeNotice(instance: string, sessionId: string, events: readonly DebateEvent[]): string {
  if (events.length === 0) return JSON.stringify({ k: 'w', i: instance, s: sessionId });
  const inline = JSON.stringify({ k: 'w', i: instance, s: sessionId, e: events });
  if (Buffer.byteLength(inline) <= MAX_PAYLOAD_BYTES) return inline;
  const range = [events[0]!.seq, events[events.length - 1]!.seq];
  return JSON.stringify({ k: 'w', i: instance, s: sessionId, r: range });
}

export function deleteNotice(instance: string, sessionId: string): string {
  return JSON.stringify({ k: 'd', i: instance, s: sessionId });
}

/** The notice, or undefined for a payload that is not one of ours. */
export function parseNotice(payload: string | undefined): Notice | undefined {
  try {
    const notice = JSON.parse(payload ?? '') as Notice;
    if ((notice.k === 'w' || notice.k === 'd') && typeof notice.i === 'string' && typeof notice.s === 'string') return notice;
  } catch {
    // Not ours.
  }
  return undefined;
}

/** Reads a session's stored events with `after < seq <= upTo`, in order. */
export type ReadEvents = (sessionId: string, after: number, upTo: number) => Promise<DebateEvent[]>;

interface Followed {
  listeners: Set<(event: DebateEvent) => void>;
  /** The last `seq` handed to the listeners; undefined until the first. */
  last: number | undefined;
  /** Deliveries run one after another, so a read-back never lets a later notice overtake it. */
  queue: Promise<void>;
}

export interface ListenerOptions {
  url: string;
  instanceId: string;
  connectTimeoutMs: number;
  read: ReadEvents;
  onError?: (error: unknown) => void;
}

/** The store's one LISTEN connection, fanned out to every `watch` and `onChange` of this instance. */
export class NoticeListener {
  readonly #options: ListenerOptions;
  readonly #followed = new Map<string, Followed>();
  readonly #changes = new Set<(sessionId: string) => void>();
  #client: Client | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #backoffMs = 100;

  constructor(options: ListenerOptions) {
    this.#options = options;
  }

  /** Whether LISTEN is in effect now (false while reconnecting, and before `start` and after `close`). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** Resolves once LISTEN is in effect: a notice committed after that is received. */
  start(): Promise<void> {
    this.#ready ??= this.#connect();
    return this.#ready;
  }

  async #connect(): Promise<void> {
    // Keepalive: a LISTEN connection only ever reads, so a dead peer would otherwise go unnoticed.
    const client = new Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      keepAlive: true,
      application_name: `consilium-listen ${this.#options.instanceId}`,
    });
    client.on('notification', (message) => this.#receive(message));
    // A lost LISTEN connection loses notices: reconnect, then catch the followed sessions up.
    const lost = (error?: unknown) => {
      if (this.#client !== client) return;
      this.#client = undefined;
      if (error) this.#options.onError?.(error);
      client.end().catch(() => undefined);
      if (!this.#closed) this.#reconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#backoffMs = 100;
  }

  #reconnect(): void {
    this.#ready = new Promise<void>((resolve) => {
      const attempt = () => {
        this.#retry = undefined;
        if (this.#closed) return resolve();
        this.#connect().then(
          () => {
            resolve();
            for (const [sessionId, followed] of this.#followed)
              this.#enqueue(sessionId, followed, () => this.#catchUp(sessionId, followed));
          },
          (error) => {
            this.#options.onError?.(error);
            this.#backoffMs = Math.min(this.#backoffMs * 2, 5000);
            this.#retry = setTimeout(attempt, this.#backoffMs);
            this.#retry.unref?.();
          },
        );
      };
      attempt();
    });
  }

  async watch(sessionId: string, listener: (event: DebateEvent) => void): Promise<() => Promise<void>> {
    await this.start();
    let followed = this.#followed.get(sessionId);
    if (!followed) {
      followed = { listeners: new Set(), last: undefined, queue: Promise.resolve() };
      this.#followed.set(sessionId, followed);
    }
    const entry = followed;
    // A distinct wrapper, so the same function watching twice is two watches.
    const own = (event: DebateEvent) => listener(event);
    entry.listeners.add(own);
    return async () => {
      entry.listeners.delete(own);
      if (entry.listeners.size === 0 && this.#followed.get(sessionId) === entry) this.#followed.delete(sessionId);
    };
  }

  onChange(listener: (sessionId: string) => void): () => void {
    const own = (sessionId: string) => listener(sessionId);
    this.#changes.add(own);
    return () => this.#changes.delete(own);
  }

  /** Hands this instance's own listeners a change it made outside the recorder (recovery). */
  local(sessionId: string, events: readonly DebateEvent[]): void {
    this.#dispatch({ k: 'w', i: this.#options.instanceId, s: sessionId, e: [...events] });
  }

  #receive(message: Notification): void {
    if (message.channel !== CHANNEL) return;
    const notice = parseNotice(message.payload);
    // This instance's own writes reach its followers through the recorder, not through here.
    if (!notice || notice.i === this.#options.instanceId) return;
    this.#dispatch(notice);
  }

  #dispatch(notice: Notice): void {
    for (const listener of this.#changes) {
      try {
        listener(notice.s);
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
    if (notice.k !== 'w') return;
    const followed = this.#followed.get(notice.s);
    if (!followed) return;
    this.#enqueue(notice.s, followed, () => this.#deliver(notice.s, followed, notice));
  }

  #enqueue(sessionId: string, followed: Followed, work: () => Promise<void>): void {
    followed.queue = followed.queue
      .then(work)
      .catch((error) => this.#options.onError?.(new Error(`watch ${sessionId}: ${error}`, { cause: error })));
  }

  async #deliver(sessionId: string, followed: Followed, notice: Extract<Notice, { k: 'w' }>): Promise<void> {
    let events = notice.e;
    const first = events ? events[0]?.seq : notice.r?.[0];
    const upTo = events ? events[events.length - 1]?.seq : notice.r?.[1];
    if (first === undefined || upTo === undefined) return;
    const last = followed.last;
    if (last !== undefined && upTo <= last) return;
    // Read back what did not fit, and anything missed before it (a gap means lost notices).
    if (!events || (last !== undefined && first > last + 1)) {
      events = await this.#options.read(sessionId, last ?? first - 1, upTo);
    }
    this.#hand(followed, events);
  }

  async #catchUp(sessionId: string, followed: Followed): Promise<void> {
    this.#hand(followed, await this.#options.read(sessionId, followed.last ?? 0, Number.MAX_SAFE_INTEGER));
  }

  #hand(followed: Followed, events: readonly DebateEvent[]): void {
    for (const event of events) {
      if (followed.last !== undefined && event.seq <= followed.last) continue;
      followed.last = event.seq;
      for (const listener of followed.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.#options.onError?.(error);
        }
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#followed.clear();
    this.#changes.clear();
    await client?.end().catch(() => undefined);
  }
}
