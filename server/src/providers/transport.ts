import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { APICallError } from '@ai-sdk/provider';

/**
 * How a provider SDK's requests are sent, and how a successful event stream is handed to the call
 * that claimed it (`claimStream`, keyed by the call's abort signal, which the SDK passes to `fetch`
 * unchanged) rather than to the SDK. The call reads it with the decoders in `wire/`.
 */
/** A response body read chunk by chunk, as a web stream's reader reads. */
export interface ByteSource {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  /** Stops reading and releases the connection. */
  cancel(): void;
}

/** A call's claim on its response body, keyed by the call's abort signal. */
export interface StreamClaim {
  body?: ByteSource;
  /** The response's headers, lowercase names (for the provider's request id). */
  headers?: Record<string, string>;
  /** Stop the SDK there (`StreamHandedOver`) rather than let it build its stream over an empty body. */
  handover: boolean;
  /**
   * Sends the claimed request again with `patch` merged into its JSON body (a Gemini continuation)
   * by the same route, and gives that response's event stream; an HTTP error rejects as the SDK's
   * `APICallError` would.
   */
  resend?: (patch: Record<string, unknown>) => Promise<ByteSource>;
  /** Set by `learnTemplate`: the request is recorded here instead of sent, and answered with an empty event stream. */
  capture?: { request?: { url: string; method?: string; headers?: HeadersInit; body?: unknown } };
  /**
   * What a request sent without the SDK (a template's) got when it was not an event stream to
   * hand over: the SDK's own request then gets this answer instead of being sent, so it makes of
   * it exactly the error (or the stream) it always did.
   */
  replay?: { response: Response } | { error: unknown };
}

/**
 * Thrown through the SDK by `takeStreams` once the body is handed over: the SDK passes an error
 * that is neither an abort nor a network failure on unchanged, and builds none of its per-call
 * stream machinery. The call then has the body, but not the SDK's warnings for the call (its
 * `stream-start`), so `streamAnswer` does this only for call shapes known to raise none.
 */
export class StreamHandedOver extends Error {
  override name = 'StreamHandedOver';
}

/** One instance for every hand-over: it is a signal, not a failure, and an `Error` per call captured a stack trace each time. */
const HANDED_OVER = new StreamHandedOver('The response body went to the call that claimed it');

const claims = new WeakMap<AbortSignal, StreamClaim>();

/**
 * Node's own `fetch`, as it was when this module loaded. When something has replaced the global
 * `fetch` since (a proxy agent, a recorder, a test's interceptor such as msw), every request goes
 * through that replacement rather than `node:http`.
 */
const nodeFetch = globalThis.fetch;

/** Asks `takeStreams` to hand over the event stream of the request sent with `signal`. */
export function claimStream(signal: AbortSignal, handover = false): StreamClaim {
  const claim: StreamClaim = { handover };
  claims.set(signal, claim);
  return claim;
}

export function releaseStream(signal: AbortSignal): void {
  claims.delete(signal);
}

/**
 * The `fetch` a provider SDK is given: a successful event stream whose request's signal was
 * claimed goes to the claim, and the SDK gets the same status and headers with an empty body.
 * Everything else (HTTP errors, a JSON body, a request with tools, which the debate never sends
 * and whose streams only the SDK reads) reaches the SDK untouched. `fetchImpl` is looked up per
 * call, so a test's interceptor installed later is still used.
 */
export function takeStreams(fetchImpl?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const claim = init?.signal ? claims.get(init.signal) : undefined;
    if (claim?.capture !== undefined) {
      const url = String(input instanceof Request ? input.url : input);
      claim.capture.request = {
        url,
        ...(init?.method !== undefined && { method: init.method }),
        ...(init?.headers !== undefined && { headers: init.headers }),
        body: init?.body,
      };
      return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    if (claim?.replay !== undefined) {
      const replay = claim.replay;
      claim.replay = undefined;
      if ('error' in replay) throw replay.error;
      return replay.response;
    }
    // A request with a non-empty `tools` list (every format names it so) or a tool choice.
    const withTools = typeof init?.body === 'string' && (init.body.includes('"tool_choice"') || init.body.includes('"tools":[{'));
    // A call that will not go back to the SDK skips `fetch` too, when no other fetch was configured.
    const direct = fetchImpl === undefined && globalThis.fetch === nodeFetch;
    const url = String(input instanceof Request ? input.url : input);
    if (claim !== undefined && typeof init?.body === 'string') {
      const sent = init;
      claim.resend = (patch) => resendStream(url, sent, patch, direct ? undefined : (fetchImpl ?? globalThis.fetch));
    }
    if (claim?.handover && direct && !withTools && typeof init?.body === 'string') return requestDirect(url, init, claim);
    const response = await (fetchImpl ?? globalThis.fetch)(input, init);
    if (
      claim === undefined ||
      !response.ok ||
      response.body === null ||
      !response.headers.get('content-type')?.includes('text/event-stream') ||
      withTools
    )
      return response;
    claim.body = webBody(response.body);
    claim.headers = Object.fromEntries(response.headers);
    if (claim.handover) throw HANDED_OVER;
    return new Response('', { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A web stream's body as a `ByteSource`. */
function webBody(body: ReadableStream<Uint8Array>): ByteSource {
  const reader = body.getReader();
  return {
    read: () => reader.read() as ReturnType<ByteSource['read']>,
    cancel: () => {
      reader.cancel().catch(() => {});
    },
  };
}

/**
 * The request sent once more with `patch` merged into its JSON body, over `node:http(s)` (no
 * `fetchImpl`) or through `fetchImpl`: its event stream, or, for any other answer, the
 * `APICallError` an SDK makes of it (Google's: the message from `{ "error": { "message" } }`).
 */
async function resendStream(
  url: string,
  init: RequestInit,
  patch: Record<string, unknown>,
  fetchImpl: typeof fetch | undefined,
): Promise<ByteSource> {
  const again: RequestInit = {
    ...init,
    body: JSON.stringify({ ...(JSON.parse(init.body as string) as Record<string, unknown>), ...patch }),
  };
  let response: Response;
  if (fetchImpl === undefined) {
    const claim: StreamClaim = { handover: true };
    try {
      response = await requestDirect(url, again, claim);
    } catch (error) {
      if (error instanceof StreamHandedOver && claim.body !== undefined) return claim.body;
      throw error;
    }
  } else {
    response = await fetchImpl(url, again);
    if (response.ok && response.body !== null && response.headers.get('content-type')?.includes('text/event-stream'))
      return webBody(response.body);
  }
  const text = await response.text();
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
  } catch {
    // Not JSON: the status text says it.
  }
  throw new APICallError({
    message: typeof message === 'string' ? message : response.statusText || `HTTP ${response.status}`,
    url,
    requestBodyValues: patch,
    statusCode: response.status,
    responseHeaders: Object.fromEntries(response.headers),
    responseBody: text,
  });
}

/** Header records already in `fetch`'s form (lowercase names, no duplicates): a template's, sent as they are. */
const ready = new WeakSet<object>();

/** Marks `headers` as normalized, so `requestDirect` sends it without building a `Headers` per call. */
export function readyHeaders<T extends Record<string, string>>(headers: T): T {
  ready.add(headers);
  return headers;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * The request as `fetch` would send it, over `node:http(s)` with a keep-alive agent: undici's
 * `fetch` cost about a millisecond of CPU per call and a web stream per body. A successful event
 * stream goes to the claim (and the SDK gets `StreamHandedOver`); any other answer is read whole
 * and given to the SDK as a `Response`, so HTTP errors become its `APICallError`s as before.
 * Network errors reject with Node's own (`ECONNREFUSED`, `ENOTFOUND`, TLS codes), which the SDK
 * and `classifyError` name by their code; an abort rejects with the signal's `AbortError`.
 */
function requestDirect(url: string, init: RequestInit, claim: StreamClaim): Promise<Response> {
  const { secure, options } = target(url);
  const headers = ready.has(init.headers as object)
    ? (init.headers as Record<string, string>)
    : Object.fromEntries(new Headers(init.headers));
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => send(false, resolve, reject));
  function send(retry: boolean, resolve: (response: Response) => void, reject: (error: unknown) => void): void {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    let answered = false;
    const request = (secure ? httpsRequest : httpRequest)(
      { ...options, method: init.method ?? 'POST', headers, agent: secure ? agents.https : agents.http },
      (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const responseHeaders = flatHeaders(res);
        if (status >= 200 && status < 300 && responseHeaders['content-type']?.includes('text/event-stream')) {
          claim.body = nodeBody(res);
          claim.headers = responseHeaders;
          reject(HANDED_OVER);
          return;
        }
        wholeResponse(res, responseHeaders).then(resolve, reject);
      },
    );
    if (signal !== undefined) {
      // What the `signal` option does, without the stream bookkeeping (`eos`) it sets up per request:
      // an abort destroys the request and its response; the listener goes when the request closes.
      const onAbort = () => request.destroy(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      request.once('close', () => signal.removeEventListener('abort', onAbort));
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the provider closed while it sat idle fails the next request before any answer: the
      // provider never saw it, so it is sent once more on a fresh connection rather than through a retry's backoff.
      if (!retry && !answered && request.reusedSocket && error.code === 'ECONNRESET' && !signal?.aborted) {
        send(true, resolve, reject);
      } else reject(error);
    });
    request.end(init.body as string);
  }
}

/** A Node response's headers, one string each (repeated ones joined), as a web `Headers` init. */
function flatHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** A Node response read to its end, as a web `Response`. */
export function wholeResponse(res: IncomingMessage, headers = flatHeaders(res)): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const status = res.statusCode ?? 0;
      const empty = status === 204 || status === 304;
      resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers }));
    });
  });
}

/** Where each provider URL goes, parsed once: a `URL` and its conversion per request were 1 % of the main thread. */
const targets = new Map<string, { secure: boolean; options: ReturnType<typeof urlToHttpOptions> }>();

function target(url: string): { secure: boolean; options: ReturnType<typeof urlToHttpOptions> } {
  let found = targets.get(url);
  if (found === undefined) {
    const parsed = new URL(url);
    found = { secure: parsed.protocol === 'https:', options: urlToHttpOptions(parsed) };
    // Provider URLs are a handful per slot; a bound in case a caller's are not.
    if (targets.size >= 1000) targets.clear();
    targets.set(url, found);
  }
  return found;
}

/** The error Node's `signal` option rejects a request with. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

/** A Node response body as a `ByteSource`: chunks queue until read; a close before the end is a dropped connection. */
export function nodeBody(res: IncomingMessage): ByteSource {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: unknown;
  type Waiter = { resolve: (r: Awaited<ReturnType<ByteSource['read']>>) => void; reject: (e: unknown) => void };
  let waiter: Waiter | undefined;
  const settle = (w: Waiter) => {
    if (queue.length > 0) w.resolve({ done: false, value: queue.length === 1 ? queue.pop()! : Buffer.concat(queue.splice(0)) });
    else if (failure !== undefined) w.reject(failure);
    else if (ended) w.resolve({ done: true });
    else waiter = w;
  };
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    if (w) settle(w);
  };
  res.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    wake();
  });
  res.on('end', () => {
    ended = true;
    wake();
  });
  res.on('error', (error) => {
    failure ??= error;
    wake();
  });
  res.on('close', () => {
    if (!ended && failure === undefined)
      failure = Object.assign(new Error('The provider closed the connection mid-stream'), { code: 'ECONNRESET' });
    wake();
  });
  return {
    read: () => new Promise((resolve, reject) => settle({ resolve, reject })),
    cancel: () => res.destroy(),
  };
}
