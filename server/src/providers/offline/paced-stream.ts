export interface PacedStreamOptions<T> {
  /** Enqueued at once. */
  head: readonly T[];
  /** Each released at `dueAt(i)`. */
  timed: readonly T[];
  /** When `timed[i]` is due, on the `performance.now()` clock; must not decrease with `i`. */
  dueAt: (i: number) => number;
  /** Enqueued with the last timed part, then the stream closes. */
  tail: readonly T[];
  signal?: AbortSignal | undefined;
  /** What the stream errors with when `signal` aborts. */
  abortError: (reason: unknown) => unknown;
  /** After `timed[i]` is enqueued. */
  onTimed?: (i: number) => void;
  /** After the tail is enqueued, before the stream closes. */
  onEnd?: () => void;
  onAbort?: () => void;
}

/**
 * A stream of parts released on a schedule, as a provider's bytes arrive. One timer at a time,
 * re-armed for the next due part, and one abort listener per stream: a promise, a timer and a
 * listener per token cost more than the rest of a simulated call. Due times are absolute, so
 * timer lateness never accumulates over a stream; parts already due when the timer fires (the
 * process ran late) go out together, as frames that came in one socket read. Parts are never
 * released synchronously from a consumer's read, only from a timer (or at once in `start` when
 * already due), so late parts cannot chain into a run of microtasks that starves I/O. An abort
 * errors the stream at once; a cancel by the consumer stops the timer.
 */
export function pacedStream<T>(options: PacedStreamOptions<T>): ReadableStream<T> {
  const { timed, dueAt, signal } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = () => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  };
  return new ReadableStream<T>({
    start(controller) {
      for (const part of options.head) controller.enqueue(part);
      let next = 0;
      const finish = () => {
        for (const part of options.tail) controller.enqueue(part);
        options.onEnd?.();
        stop();
        controller.close();
      };
      // The part the timer was set for, then every later one already due.
      const release = () => {
        const now = performance.now();
        do {
          controller.enqueue(timed[next]!);
          options.onTimed?.(next);
          next++;
        } while (next < timed.length && dueAt(next) <= now);
        if (next === timed.length) finish();
        else timer = setTimeout(release, dueAt(next) - now);
      };
      if (timed.length === 0) return finish();
      onAbort = () => {
        stop();
        options.onAbort?.();
        controller.error(options.abortError(signal?.reason));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const wait = dueAt(0) - performance.now();
      if (wait <= 0) release();
      else timer = setTimeout(release, wait);
    },
    cancel: stop,
  });
}
