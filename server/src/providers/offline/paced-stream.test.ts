import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { pacedStream } from './paced-stream.js';

async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const abortError = () => new DOMException('aborted', 'AbortError');

describe('pacedStream', () => {
  it('releases head, timed parts at their due times, then tail, and removes its abort listener', async () => {
    const signal = new AbortController().signal;
    const start = performance.now();
    const released: number[] = [];
    let ended = false;
    const parts = await drain(
      pacedStream({
        head: ['h'],
        timed: ['a', 'b', 'c'],
        dueAt: (i) => start + 5 + 10 * i,
        tail: ['t'],
        signal,
        abortError,
        onTimed: () => released.push(performance.now() - start),
        onEnd: () => {
          ended = true;
        },
      }),
    );
    expect(parts).toEqual(['h', 'a', 'b', 'c', 't']);
    expect(ended).toBe(true);
    // Not before its time, give or take the timers' millisecond granularity.
    for (const [i, t] of released.entries()) expect(t).toBeGreaterThanOrEqual(5 + 10 * i - 2);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('releases parts already due together, without waiting', async () => {
    const past = performance.now() - 1000;
    expect(await drain(pacedStream({ head: [], timed: [1, 2, 3], dueAt: () => past, tail: [4], abortError }))).toEqual([
      1, 2, 3, 4,
    ]);
  });

  // The next part is due in an hour: only the abort can end the wait within the test's timeout.
  it('an abort errors the stream at once, mid-wait', async () => {
    const controller = new AbortController();
    let aborted = false;
    const stream = pacedStream({
      head: ['h'],
      timed: ['a', 'b'],
      dueAt: (i) => (i === 0 ? 0 : performance.now() + 3_600_000),
      tail: [],
      signal: controller.signal,
      abortError,
      onAbort: () => {
        aborted = true;
      },
    });
    const reader = stream.getReader();
    expect((await reader.read()).value).toBe('h');
    expect((await reader.read()).value).toBe('a');
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(aborted).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("a consumer's cancel stops the timer and removes the abort listener", async () => {
    const controller = new AbortController();
    let released = 0;
    const start = performance.now();
    const stream = pacedStream({
      head: [],
      timed: ['a', 'b'],
      dueAt: (i) => start + 20 * (i + 1),
      tail: [],
      signal: controller.signal,
      abortError,
      onTimed: () => released++,
    });
    await stream.cancel();
    // Another stream, whose part is due after both of these, releases it: a timer left armed would have fired first.
    const later = pacedStream({ head: [], timed: ['later'], dueAt: () => start + 41, tail: [], abortError });
    expect(await drain(later)).toEqual(['later']);
    expect(released).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
