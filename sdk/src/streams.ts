/** How every client's streams fail: the generated default client's (the generator wraps it) and `createConsiliumClient`'s. */
import { errorFromResponse, toConsiliumError } from './errors.js';
import type { Client, RequestOptions } from './generated/client/index.js';

type SseOpen = Client['sse']['get'];
type SseOptions = Parameters<SseOpen>[0];

/**
 * The client's streams, made to fail as the facade's calls do. hey-api's SSE client reports a refused
 * stream only as `Error("SSE failed: 401 Unauthorized")` to `onSseError` and then ends the loop quietly, so a
 * consumer without `onSseError` sees an empty stream. Here a non-2xx answer is read into a `ConsiliumError`
 * (status, code, fields, request id), `onSseError` is told that error, a refusal (4xx) is not retried, and
 * the stream throws it once the events that did arrive are read. Every generated stream function (with a client of
 * `createConsiliumClient` or none, the default client) and the facade behave so.
 *
 * A failed stream is not reconnected unless the call or the client's config asks (`sseMaxRetryAttempts`): a
 * debate's request is a POST, so a reconnect would start a second debate. Resume a dropped stream with
 * `streamSessionEvents` and `Last-Event-ID` instead.
 */
export function typedStreams(client: Client): Client {
  const sse = client.sse as unknown as Record<string, SseOpen>;
  for (const method of Object.keys(sse)) {
    const open = sse[method]!;
    sse[method] = (async (options: SseOptions) => {
      const state: { failure?: unknown } = {};
      // Our own signal, aborted on a refusal so hey-api's loop stops instead of asking again.
      const stop = new AbortController();
      const signal = options.signal ?? undefined;
      const forward = () => stop.abort(signal?.reason);
      if (signal?.aborted) forward();
      signal?.addEventListener('abort', forward);
      const base = options.fetch ?? client.getConfig().fetch ?? globalThis.fetch;
      const sleep =
        (options as { sseSleepFn?: (ms: number) => Promise<void> }).sseSleepFn ??
        ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
      const configured = (client.getConfig() as Pick<RequestOptions, 'sseMaxRetryAttempts'>).sseMaxRetryAttempts;
      const result = await open({
        sseMaxRetryAttempts: configured ?? 1,
        ...options,
        signal: stop.signal,
        fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
          const response = await base(input, init);
          if (!response.ok) throw await errorFromResponse(response);
          return response;
        },
        onSseError: (error: unknown) => {
          const failure = toConsiliumError(error, signal);
          state.failure = failure;
          if (failure.status !== undefined && failure.status >= 400 && failure.status < 500) stop.abort(failure);
          options.onSseError?.(failure);
        },
        // The wait before a retry ends at once when the stream is stopped.
        sseSleepFn: (ms: number) =>
          stop.signal.aborted
            ? Promise.resolve()
            : Promise.race([sleep(ms), new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve()))]),
      } as SseOptions);
      // Leaving the loop early (break, throw) closes the connection, which cancels a debate on the server.
      const done = () => {
        signal?.removeEventListener('abort', forward);
        stop.abort();
      };
      return { stream: rethrowing(result.stream, state, signal, done) };
    }) as SseOpen;
  }
  return client;
}

/** The events, then the failure that ended the stream (if no event came after it), thrown. */
async function* rethrowing<T>(
  stream: AsyncGenerator<T, unknown, unknown>,
  state: { failure?: unknown },
  signal: AbortSignal | undefined,
  done: () => void,
): AsyncGenerator<T, void, unknown> {
  try {
    for await (const event of stream) {
      // A retry that succeeded: the earlier failure is over.
      state.failure = undefined;
      yield event;
    }
    if (state.failure !== undefined) throw toConsiliumError(state.failure, signal);
    if (signal?.aborted) throw toConsiliumError(signal.reason ?? new DOMException('Aborted', 'AbortError'), signal);
  } finally {
    done();
  }
}
