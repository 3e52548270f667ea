import type { Context } from 'hono';

/** What a handler streaming server-sent events writes to. */
export interface EventStream {
  /** Queues `text` (whole SSE messages) for the client; nothing once the client is gone or the stream closed. */
  write(text: string): void;
  /** Called once when the client goes away before the stream closed (or the server ends it with `close`). */
  onAbort(listener: () => void): void;
  /**
   * Ends the response now, after what was written, as though the client had left: nothing more is written and the
   * abort listeners run (a run the client's presence keeps going stops).
   */
  close(): void;
}

/**
 * An SSE response whose body is one `ReadableStream` the handler enqueues into, for the debate
 * stream's hot path. Hono's `streamSSE` writes each message through a `TransformStream` and a
 * second `ReadableStream` before the Node adapter reads it: three web streams and two promises per
 * write, which with 50 debates at once cost more than the events themselves (bench/README.md,
 * providers). Same headers as `streamSSE`; an error thrown by `run` is logged and closes the stream,
 * as there. The queue is unbounded: a debate's events are bounded (a few hundred kB at most) and
 * the adapter writes them as fast as the socket drains.
 */
export function eventStream(c: Context, run: (stream: EventStream) => Promise<void>): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const listeners: (() => void)[] = [];
  let aborted = false;
  let closed = false;
  const abort = () => {
    if (aborted || closed) return;
    aborted = true;
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // One listener's failure must not keep the others from learning the client left.
      }
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    // The Node adapter cancels its reader when the response's socket closes.
    cancel: abort,
  });
  const stream: EventStream = {
    write(text) {
      if (aborted || closed) return;
      controller.enqueue(Buffer.from(text));
    },
    onAbort(listener) {
      listeners.push(listener);
    },
    close() {
      if (aborted || closed) return;
      controller.close();
      abort();
    },
  };
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('Connection', 'keep-alive');
  void (async () => {
    try {
      await run(stream);
    } catch (error) {
      console.error(error);
    } finally {
      if (!closed) {
        closed = true;
        if (!aborted) controller.close();
      }
    }
  })();
  return c.newResponse(body);
}

/**
 * Gathers SSE messages into few writes. Everything raised in one turn of the event loop goes out
 * in one write. Text marked `deferrable` (token deltas) that comes within `windowMs` of the last
 * write waits for the window to pass, so a stream of deltas makes at most one write per window
 * (16 ms: one frame of a 60 Hz screen) instead of one per upstream frame, each a syscall and a
 * loopback TCP segment, the largest single cost in a lone debate's profile. The first delta after
 * a quiet spell, and every other event, are written at once (after the current turn).
 */
export class WriteBatcher {
  #pending = '';
  #lastWrite = Number.NEGATIVE_INFINITY;
  #immediate: ReturnType<typeof setImmediate> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: (text: string) => void,
    private readonly windowMs = 16,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  queue(text: string, deferrable = false): void {
    this.#pending += text;
    if (this.#immediate !== undefined) return;
    const wait = deferrable ? this.#lastWrite + this.windowMs - this.now() : 0;
    if (wait > 0) {
      this.#timer ??= setTimeout(this.flush, wait);
      return;
    }
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#immediate = setImmediate(this.flush);
  }

  /** Writes what is pending now (also at the end of the stream). */
  readonly flush = (): void => {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#immediate = undefined;
    this.#timer = undefined;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    this.#lastWrite = this.now();
    this.write(text);
  };

  /** Drops what is pending and any scheduled write (the client is gone). */
  stop(): void {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#immediate = undefined;
    this.#timer = undefined;
    this.#pending = '';
  }
}
