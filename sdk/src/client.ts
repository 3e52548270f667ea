/** The configured generated client behind the SDK functions and the {@link Consilium} facade. */
import { errorFromResponse, toConsiliumError } from './facade/errors.js';
import { type Auth, type Client, createClient, createConfig, type RequestOptions } from './generated/client/index.js';
import type { ClientOptions } from './generated/types.gen.js';

export interface ConsiliumClientOptions {
  /** Where the service runs; `http://127.0.0.1:8787` (the `npm start` default) when omitted. */
  baseUrl?: string;
  /** An API token from `POST /auth/tokens`, sent as `Authorization: Bearer`. */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** A fetch implementation, for tests or runtimes without a global one. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** A client for one Consilium server. Pass it as `{ client }` to any operation. */
export function createConsiliumClient(options: ConsiliumClientOptions = {}): Client {
  const { token } = options;
  const config: NonNullable<Parameters<typeof createConfig<ClientOptions>>[0]> & Pick<RequestOptions, 'sseMaxRetryAttempts'> = {
    baseUrl: (options.baseUrl ?? 'http://127.0.0.1:8787') as ClientOptions['baseUrl'],
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.headers && { headers: options.headers }),
    // The generated client asks for a credential once per scheme an operation accepts (bearer,
    // then the `consilium_session` cookie) and sends every one it gets. The token is an API
    // token, so answer only for bearer: otherwise it would also go out as the session cookie.
    ...(token !== undefined && {
      auth: (auth: Auth) => (auth.scheme === 'bearer' ? (typeof token === 'function' ? token() : token) : undefined),
    }),
    // A failed debate stream is not retried: its request is a POST, so a retry would start a new
    // debate. Resume a dropped stream with `streamSessionEvents` and `Last-Event-ID` instead. The
    // client spreads its config into every request, so a call can still pass its own value.
    sseMaxRetryAttempts: 1,
  };
  return typedStreams(createClient(createConfig<ClientOptions>(config)));
}

type SseOpen = Client['sse']['get'];
type SseOptions = Parameters<SseOpen>[0];

/**
 * The client's streams, made to fail as the facade's calls do. hey-api's SSE client reports a refused
 * stream only as `Error("SSE failed: 401 Unauthorized")` to `onSseError` and then ends the loop quietly, so a
 * consumer without `onSseError` sees an empty stream. Here a non-2xx answer is read into a `ConsiliumError`
 * (status, code, fields, request id), `onSseError` is told that error, a refusal (4xx) is not retried, and
 * the stream throws it once the events that did arrive are read. Every generated stream function called with
 * this client (and the facade, which uses one) behaves so.
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
      const result = await open({
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
