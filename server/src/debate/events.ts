/**
 * A session's event log: stamps each event with the envelope (`v`, `sessionId`, monotonic `seq`,
 * `ts`), keeps it for replay when asked to, and hands it to live listeners at once — no buffering, so a stream
 * shows the fastest model's first token while the others are still thinking.
 */
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';

type Envelope = 'v' | 'sessionId' | 'seq' | 'ts';
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as the engine raises it; the log adds the envelope. */
export type EventBody = DistributiveOmit<DebateEvent, Envelope>;

export type EventListener = (event: DebateEvent) => void;

export interface EventLogOptions {
  now?: () => number;
  /** Keep every event in `events` (deltas included: about 1 MB for a long debate). */
  retain?: boolean;
}

/** Each event's JSON and SSE message, built once however many streams, replays or writes use it. */
const texts = new WeakMap<DebateEvent, { json: string; message?: string }>();

/** `JSON.stringify(event)`, made once per event: the stream and the session store both need it. */
export function eventJson(event: DebateEvent): string {
  return textsOf(event).json;
}

function textsOf(event: DebateEvent): { json: string; message?: string } {
  let text = texts.get(event);
  if (text === undefined) {
    text = { json: JSON.stringify(event) };
    texts.set(event, text);
  }
  return text;
}

/**
 * The event as one `text/event-stream` message, byte for byte what Hono's `writeSSE({ event, data,
 * id })` writes: `JSON.stringify` escapes line breaks, so the data is a single line. Writing this
 * string skips `writeSSE`'s per-message split, join and callback resolution.
 */
export function sseMessage(event: DebateEvent): string {
  const text = textsOf(event);
  text.message ??= `event: ${event.type}\ndata: ${text.json}\nid: ${event.seq}\n\n`;
  return text.message;
}

export class EventLog {
  readonly events: DebateEvent[] = [];
  #seq = 0;
  readonly #listeners = new Set<EventListener>();
  readonly #now: () => number;
  readonly #retain: boolean;

  constructor(
    readonly sessionId: string,
    options: EventLogOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#retain = options.retain ?? false;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  emit(body: EventBody): DebateEvent {
    const event = {
      v: 1,
      sessionId: this.sessionId,
      seq: ++this.#seq,
      ts: new Date(this.#now()).toISOString(),
      ...body,
    } as DebateEvent;
    if (this.#retain) this.events.push(event);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener that fails (a closed stream) must not stop the debate or the other listeners.
      }
    }
    return event;
  }

  /** Live events from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
