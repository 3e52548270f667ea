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
  /** The `seq` the first event comes after: a continued session's events go on from its stored ones. Default 0. */
  afterSeq?: number;
  /**
   * The highest `seq` stored before this log's first event (a continued session's, which may be below `afterSeq`):
   * what the store must still hold for this log's events to follow on. Default `afterSeq`.
   */
  base?: number;
}

/**
 * Each event's JSON, made once however many streams, replays or writes use it. Deltas get theirs
 * when they are raised (see `EventLog.answerDelta`); any other event on first use.
 */
const texts = new WeakMap<DebateEvent, string>();

/** `JSON.stringify(event)`, made once per event: the stream and the session store both need it. */
export function eventJson(event: DebateEvent): string {
  let json = texts.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    texts.set(event, json);
  }
  return json;
}

/**
 * The event as one `text/event-stream` message, byte for byte what Hono's `writeSSE({ event, data,
 * id })` writes: `JSON.stringify` escapes line breaks, so the data is a single line. Writing this
 * string skips `writeSSE`'s per-message split, join and callback resolution. Not kept: a message
 * is written once (a stream is rarely watched twice), and kept beside the event it would stay
 * alive as long as the recorder holds the event.
 */
export function sseMessage(event: DebateEvent): string {
  return `event: ${event.type}\ndata: ${eventJson(event)}\nid: ${event.seq}\n\n`;
}

type AnswerDelta = Extract<DebateEvent, { type: 'answer.delta' }>;
type VerdictDelta = Extract<DebateEvent, { type: 'verdict.delta' }>;

export class EventLog {
  readonly events: DebateEvent[] = [];
  #seq = 0;
  readonly #listeners = new Set<EventListener>();
  readonly #now: () => number;
  readonly #retain: boolean;
  /** Every event's JSON up to its `seq`: `{"v":1,"sessionId":"…","seq":`. */
  readonly #head: string;
  #lastMs = Number.NaN;
  #lastTs = '';

  constructor(
    readonly sessionId: string,
    options: EventLogOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#retain = options.retain ?? false;
    this.#seq = options.afterSeq ?? 0;
    this.base = options.base ?? this.#seq;
    this.#head = `{"v":1,"sessionId":${JSON.stringify(sessionId)},"seq":`;
  }

  /** See `EventLogOptions.base`. */
  readonly base: number;

  get lastSeq(): number {
    return this.#seq;
  }

  emit(body: EventBody): DebateEvent {
    if (body.type === 'answer.delta') return this.answerDelta(body.round, body.slot, body.delta);
    if (body.type === 'verdict.delta') return this.verdictDelta(body.slot, body.attempt, body.field, body.delta);
    const event = {
      v: 1,
      sessionId: this.sessionId,
      seq: ++this.#seq,
      ts: this.#ts(),
      ...body,
    } as DebateEvent;
    this.#deliver(event);
    return event;
  }

  /**
   * `emit` of an `answer.delta`, the event a debate raises hundreds of times: the event is one
   * object of a fixed shape, and its JSON is written around `JSON.stringify(delta)` rather than
   * made by stringifying the object (the same text, key for key: `events.test.ts` checks).
   */
  answerDelta(round: AnswerDelta['round'], slot: AnswerDelta['slot'], delta: string): DebateEvent {
    const seq = ++this.#seq;
    const ts = this.#ts();
    const event: AnswerDelta = { v: 1, sessionId: this.sessionId, seq, ts, type: 'answer.delta', round, slot, delta };
    texts.set(
      event,
      `${this.#head}${seq},"ts":"${ts}","type":"answer.delta","round":${round},"slot":${slot},"delta":${JSON.stringify(delta)}}`,
    );
    this.#deliver(event);
    return event;
  }

  /** `emit` of a `verdict.delta`, made as `answerDelta` makes its event. */
  verdictDelta(
    slot: VerdictDelta['slot'],
    attempt: VerdictDelta['attempt'],
    field: VerdictDelta['field'],
    delta: string,
  ): DebateEvent {
    const seq = ++this.#seq;
    const ts = this.#ts();
    const event: VerdictDelta = { v: 1, sessionId: this.sessionId, seq, ts, type: 'verdict.delta', slot, attempt, field, delta };
    texts.set(
      event,
      `${this.#head}${seq},"ts":"${ts}","type":"verdict.delta","slot":${slot},"attempt":${attempt},"field":${JSON.stringify(field)},"delta":${JSON.stringify(delta)}}`,
    );
    this.#deliver(event);
    return event;
  }

  /** The clock as an ISO string; events raised in the same millisecond share one. */
  #ts(): string {
    const now = this.#now();
    if (now !== this.#lastMs) {
      this.#lastMs = now;
      this.#lastTs = new Date(now).toISOString();
    }
    return this.#lastTs;
  }

  #deliver(event: DebateEvent): void {
    if (this.#retain) this.events.push(event);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener that fails (a closed stream) must not stop the debate or the other listeners.
      }
    }
  }

  /** Live events from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
