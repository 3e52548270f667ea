/**
 * How instances sharing a database tell each other what they wrote: one `pg_notify` per committed
 * step or delete on one channel, received over one LISTEN connection per store. Notifications
 * arrive in commit order, and one session has one writer at a time, so a session's events arrive
 * in `seq` order; a notification lost while the LISTEN connection was down is caught up from the
 * events table.
 */
import { Client, type Notification } from 'pg';
import type { DebateEvent } from '../../../../sdk/src/generated/types.gen.js';
import { type AccessEnd, parseAccessEnd } from '../../access/access.js';
import { eventJson } from '../../debate/events.js';

export const CHANNEL = 'consilium_sessions';

/** PostgreSQL refuses payloads of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;

/** Why another instance asks the one running a session to stop it. */
export type StopReason = 'cancel' | 'delete';

/**
 * `i`: the instance that sent it; `s`: the session. `w`: a committed write, carrying its events inline
 * (`e`) or, when they would not fit, the range of their `seq`s (`r`) to read back from the events table.
 * `d`: a delete. `x`: a request to whichever instance runs `s` to stop it, for the reason `r`.
 * `f`: another instance follows `s`, so its runner sends its events live, as they are shown, in `l`
 * notices (`e`) ahead of their commit. `h`: `s` was interrupted by an instance's loss or stop, for a live
 * instance to continue. `a`: access ended (`e`, see `access/access.ts`), for every instance's open streams (`s` is
 * empty).
 */
export type Notice =
  | { k: 'w'; i: string; s: string; e?: DebateEvent[]; r?: [number, number] }
  | { k: 'd'; i: string; s: string }
  | { k: 'x'; i: string; s: string; r: StopReason }
  | { k: 'f'; i: string; s: string }
  | { k: 'h'; i: string; s: string }
  | { k: 'l'; i: string; s: string; e: DebateEvent[] }
  | { k: 'a'; i: string; s: string; e: AccessEnd };

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

export function stopNotice(instance: string, sessionId: string, reason: StopReason): string {
  return JSON.stringify({ k: 'x', i: instance, s: sessionId, r: reason });
}

export function handOverNotice(instance: string, sessionId: string): string {
  return JSON.stringify({ k: 'h', i: instance, s: sessionId });
}

export function accessNotice(instance: string, end: AccessEnd): string {
  return JSON.stringify({ k: 'a', i: instance, s: '', e: end });
}

export function followNotice(instance: string, sessionId: string): string {
  return JSON.stringify({ k: 'f', i: instance, s: sessionId });
}

/**
 * Live notices carrying `events` (of any sessions, in the order shown), each under the payload limit; an
 * event too big for one alone is left to its commit's notice.
 */
export function liveNotices(instance: string, events: readonly DebateEvent[]): string[] {
  const notices: string[] = [];
  let session: string | undefined;
  let parts: string[] = [];
  let size = 0;
  const close = () => {
    if (session !== undefined && parts.length > 0)
      notices.push(`{"k":"l","i":${JSON.stringify(instance)},"s":${JSON.stringify(session)},"e":[${parts.join(',')}]}`);
    parts = [];
    size = 0;
  };
  const overhead = Buffer.byteLength(JSON.stringify({ k: 'l', i: instance, s: '', e: [] })) + 64;
  for (const event of events) {
    const json = eventJson(event);
    const bytes = Buffer.byteLength(json) + 1;
    if (overhead + bytes > MAX_PAYLOAD_BYTES) continue;
    if (event.sessionId !== session || overhead + size + bytes > MAX_PAYLOAD_BYTES) {
      close();
      session = event.sessionId;
    }
    parts.push(json);
    size += bytes;
  }
  close();
  return notices;
}

/** The notice, or undefined for a payload that is not one of ours. */
export function parseNotice(payload: string | undefined): Notice | undefined {
  try {
    const notice = JSON.parse(payload ?? '') as Notice;
    if (typeof notice.i !== 'string' || typeof notice.s !== 'string') return undefined;
    if (notice.k === 'w' || notice.k === 'd') return notice;
    if (notice.k === 'x' && (notice.r === 'cancel' || notice.r === 'delete')) return notice;
    if (notice.k === 'f' || notice.k === 'h' || (notice.k === 'l' && Array.isArray(notice.e))) return notice;
    if (notice.k === 'a' && parseAccessEnd(notice.e)) return notice;
  } catch {
    // Not ours.
  }
  return undefined;
}

/** Reads a session's stored events with `after < seq <= upTo`, in order. */
export type ReadEvents = (sessionId: string, after: number, upTo: number) => Promise<DebateEvent[]>;

/** Gets a followed session's events: `committed` ones in order (the stored record), live ones as shown, ahead of it. */
export type WatchListener = (event: DebateEvent, committed: boolean) => void;

interface Followed {
  listeners: Set<WatchListener>;
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
  readonly #changes = new Set<(sessionId: string | undefined) => void>();
  readonly #stops = new Set<(sessionId: string, reason: StopReason) => void>();
  readonly #follows = new Set<(sessionId: string) => void>();
  readonly #handOvers = new Set<(sessionId: string) => void>();
  readonly #accessEnds = new Set<(end: AccessEnd | undefined) => void>();
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
    // A lost LISTEN connection loses notices: say so (caches go), reconnect, then catch the followed sessions up.
    const lost = (error?: unknown) => {
      if (this.#client !== client) return;
      this.#client = undefined;
      if (error) this.#options.onError?.(error);
      client.end().catch(() => undefined);
      if (this.#closed) return;
      this.#changed(undefined);
      this.#reconnect();
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
            // Whatever changed while nothing was heard.
            this.#changed(undefined);
            for (const listener of this.#accessEnds) this.#safely(() => listener(undefined));
            for (const [sessionId, followed] of this.#followed) {
              this.#announce(sessionId);
              this.#enqueue(sessionId, followed, () => this.#catchUp(sessionId, followed));
            }
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

  async watch(sessionId: string, listener: WatchListener): Promise<() => Promise<void>> {
    await this.start();
    let followed = this.#followed.get(sessionId);
    if (!followed) {
      followed = { listeners: new Set(), last: undefined, queue: Promise.resolve() };
      this.#followed.set(sessionId, followed);
      this.#announce(sessionId);
    }
    const entry = followed;
    // A distinct wrapper, so the same function watching twice is two watches.
    const own: WatchListener = (event, committed) => listener(event, committed);
    entry.listeners.add(own);
    return async () => {
      entry.listeners.delete(own);
      if (entry.listeners.size === 0 && this.#followed.get(sessionId) === entry) this.#followed.delete(sessionId);
    };
  }

  /** Each session another instance changed; `undefined` when notices were lost or heard again (any may have). */
  onChange(listener: (sessionId: string | undefined) => void): () => void {
    return subscribe(this.#changes, listener);
  }

  /** Tells the other instances this one follows `sessionId`, so its runner sends it live. */
  #announce(sessionId: string): void {
    this.#client
      ?.query('SELECT pg_notify($1, $2)', [CHANNEL, followNotice(this.#options.instanceId, sessionId)])
      .catch((error: unknown) => this.#options.onError?.(error));
  }

  /** Sessions other instances follow (each time one starts following): their runner sends them live. */
  onFollow(listener: (sessionId: string) => void): () => void {
    return subscribe(this.#follows, listener);
  }

  /** Interrupted sessions handed over for a live instance to continue (`handOver` dispatches here too, when asked). */
  onHandOver(listener: (sessionId: string) => void): () => void {
    return subscribe(this.#handOvers, listener);
  }

  /** Hands this instance's own listeners a session it handed over. */
  handedOver(sessionId: string): void {
    this.#dispatch({ k: 'h', i: this.#options.instanceId, s: sessionId });
  }

  /** Ends of access other instances published; `undefined` once notices were lost and are heard again (any may have been missed). */
  onAccessEnd(listener: (end: AccessEnd | undefined) => void): () => void {
    return subscribe(this.#accessEnds, listener);
  }

  /** Stop requests from other instances, for whichever of their sessions runs here. */
  onStop(listener: (sessionId: string, reason: StopReason) => void): () => void {
    return subscribe(this.#stops, listener);
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
    if (notice.k === 'x') {
      for (const listener of this.#stops) this.#safely(() => listener(notice.s, notice.r));
      return;
    }
    if (notice.k === 'a') {
      for (const listener of this.#accessEnds) this.#safely(() => listener(notice.e));
      return;
    }
    if (notice.k === 'f' || notice.k === 'h') {
      for (const listener of notice.k === 'f' ? this.#follows : this.#handOvers) this.#safely(() => listener(notice.s));
      return;
    }
    if (notice.k === 'l') {
      // Ahead of the commit, so not a change: handed on as live, outside the committed order.
      const followed = this.#followed.get(notice.s);
      for (const event of followed ? notice.e : []) {
        for (const listener of followed!.listeners) this.#safely(() => listener(event, false));
      }
      return;
    }
    this.#changed(notice.s);
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
      for (const listener of followed.listeners) this.#safely(() => listener(event, true));
    }
  }

  #changed(sessionId: string | undefined): void {
    for (const listener of this.#changes) this.#safely(() => listener(sessionId));
  }

  #safely(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#options.onError?.(error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#followed.clear();
    this.#changes.clear();
    this.#stops.clear();
    this.#follows.clear();
    this.#handOvers.clear();
    this.#accessEnds.clear();
    await client?.end().catch(() => undefined);
  }
}

/** Adds a wrapper of `listener` to `set`, so the same function added twice is two subscriptions; returns its removal. */
function subscribe<A extends unknown[]>(set: Set<(...args: A) => void>, listener: (...args: A) => void): () => void {
  const own = (...args: A) => listener(...args);
  set.add(own);
  return () => set.delete(own);
}
