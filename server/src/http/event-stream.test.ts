import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type EventStream, eventStream, WriteBatcher } from './event-stream.js';

let server: ServerType | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** Serves `run` as the event stream of `GET /` on loopback; returns its URL. */
async function serveStream(run: (stream: EventStream) => Promise<void>): Promise<string> {
  const app = new Hono();
  app.get('/', (c) => eventStream(c, run));
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  return `http://127.0.0.1:${port}/`;
}

describe('eventStream', () => {
  it('sends what is written, in order, with the SSE headers, and ends when run returns', async () => {
    const url = await serveStream(async (stream) => {
      stream.write('event: a\ndata: {"n":1}\n\n');
      await new Promise((r) => setTimeout(r, 5));
      stream.write('data: Zürich 東京\n\n');
      stream.write(': heartbeat\n\n');
    });
    const res = await fetch(url);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe('event: a\ndata: {"n":1}\n\ndata: Zürich 東京\n\n: heartbeat\n\n');
  });

  it('each write reaches the client before the run ends', async () => {
    let finish!: () => void;
    const url = await serveStream(async (stream) => {
      stream.write('data: first\n\n');
      await new Promise<void>((r) => {
        finish = r;
      });
      stream.write('data: last\n\n');
    });
    const reader = (await fetch(url)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: last\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('tells the handler once when the client goes away, and ignores writes after it', async () => {
    const aborted = vi.fn();
    let stream!: EventStream;
    let release!: () => void;
    const url = await serveStream(async (s) => {
      stream = s;
      s.onAbort(aborted);
      s.onAbort(() => {
        throw new Error('a failing listener does not stop the others');
      });
      s.onAbort(() => release());
      s.write('data: hello\n\n');
      await new Promise<void>((r) => {
        release = r;
      });
    });
    const client = new AbortController();
    const reader = (await fetch(url, { signal: client.signal })).body!.getReader();
    await reader.read();
    client.abort();
    await expect.poll(() => aborted.mock.calls.length).toBe(1);
    expect(() => stream.write('data: nobody\n\n')).not.toThrow();
    expect(aborted).toHaveBeenCalledTimes(1);
  });

  it('close ends the response after what was written, while the run goes on, and tells the abort listeners once', async () => {
    const aborted = vi.fn();
    let finish!: () => void;
    const url = await serveStream(async (stream) => {
      stream.onAbort(aborted);
      stream.write('data: last\n\n');
      stream.close();
      stream.close();
      stream.write('data: never\n\n');
      await new Promise<void>((r) => {
        finish = r;
      });
    });
    expect(await (await fetch(url)).text()).toBe('data: last\n\n');
    expect(aborted).toHaveBeenCalledTimes(1);
    finish();
  });

  it('an error thrown by the handler is logged and closes the stream', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const url = await serveStream(async (stream) => {
        stream.write('data: before\n\n');
        throw new Error('handler broke');
      });
      expect(await (await fetch(url)).text()).toBe('data: before\n\n');
      expect(logged).toHaveBeenCalledWith(expect.objectContaining({ message: 'handler broke' }));
    } finally {
      logged.mockRestore();
    }
  });
});

describe('WriteBatcher', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function batcher(windowMs = 16) {
    vi.useFakeTimers();
    const writes: [at: number, text: string][] = [];
    const b = new WriteBatcher(
      (text) => writes.push([Date.now(), text]),
      windowMs,
      () => Date.now(),
    );
    return { b, writes, start: Date.now() };
  }

  it('writes what one turn of the event loop raised in one write, after that turn', async () => {
    const { b, writes } = batcher();
    b.queue('a');
    b.queue('b', true);
    b.queue('c');
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.map(([, t]) => t)).toEqual(['abc']);
  });

  it('a delta after a quiet spell goes at once; deltas within the window wait for it, together', async () => {
    const { b, writes, start } = batcher();
    b.queue('d1', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([[start, 'd1']]);
    await vi.advanceTimersByTimeAsync(5);
    b.queue('d2', true);
    await vi.advanceTimersByTimeAsync(5);
    b.queue('d3', true);
    await vi.advanceTimersByTimeAsync(5);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([
      [start, 'd1'],
      [start + 16, 'd2d3'],
    ]);
    // Past the window since the last write: at once again.
    await vi.advanceTimersByTimeAsync(40);
    b.queue('d4', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.at(-1)).toEqual([start + 56, 'd4']);
  });

  it('any other event takes the waiting deltas with it at once, in order', async () => {
    const { b, writes, start } = batcher();
    b.queue('d1', true);
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(2);
    b.queue('d2', true);
    b.queue('completed');
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([
      [start, 'd1'],
      [start + 2, 'd2completed'],
    ]);
    // Nothing is left scheduled to write twice.
    await vi.advanceTimersByTimeAsync(50);
    expect(writes).toHaveLength(2);
  });

  it('flush writes at once; stop drops what is pending and nothing is written later', async () => {
    const { b, writes } = batcher();
    b.queue('a');
    b.flush();
    expect(writes.map(([, t]) => t)).toEqual(['a']);
    b.queue('b', true);
    b.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(writes.map(([, t]) => t)).toEqual(['a']);
    b.flush();
    expect(writes).toHaveLength(1);
  });
});
