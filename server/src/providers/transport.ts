/**
 * How a slot's requests reach its provider, and how a successful event stream is taken from the
 * response for `streamAnswer` to read (`wire/`) instead of going to the SDK. Requests go over
 * `node:http(s)` with a keep-alive agent (undici's `fetch` cost about a millisecond of CPU per call
 * and a web stream per body), unless a `fetch` replaced Node's.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { APICallError } from '@ai-sdk/provider';

/** A response body read chunk by chunk, as a web stream's reader reads. */
export interface ByteSource {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  /** Stops reading and releases the connection. */
  cancel(): void;
}

/** A successful (2xx) event stream, taken from its response to be read by the call. */
export interface EventStream {
  status: number;
  /** The response's headers, lowercase names (for the provider's request id). */
  headers: Record<string, string>;
  body: ByteSource;
  /**
   * The same request again with `patch` merged into its JSON body (a Gemini continuation), by the
   * same route: its event stream, or for any other answer the `APICallError` an SDK makes of it.
   */
  resend(patch: Record<string, unknown>): Promise<ByteSource>;
}

/**
 * Node's own `fetch`, as it was when this module loaded. When something has replaced the global
 * `fetch` since (a proxy agent, a recorder, a test's interceptor such as msw), requests go through
 * that replacement rather than `node:http`.
 */
const nodeFetch = globalThis.fetch;

/** One slot's way out: `node:http(s)`, or the slot's own `fetch` (a proxy agent, a recorder). */
export class Transport {
  constructor(private readonly ownFetch?: typeof fetch) {}

  /** The slot's `fetch`, else the global one as it is at each request (so an interceptor installed later is used). */
  readonly fetch: typeof fetch = (input, init) => (this.ownFetch ?? globalThis.fetch)(input, init);

  /**
   * Sends a request and takes its event stream; any other answer (an HTTP error, a JSON body) comes
   * back whole, as a `Response`. Network errors reject with Node's own (`ECONNREFUSED`, `ENOTFOUND`,
   * TLS codes), or `fetch`'s; an abort rejects with the signal's `AbortError`.
   */
  async send(url: string, init: RequestInit): Promise<EventStream | Response> {
    const resend = (patch: Record<string, unknown>) => this.#resend(url, init, patch);
    if (this.ownFetch === undefined && globalThis.fetch === nodeFetch) return requestDirect(url, init, resend);
    const response = await this.fetch(url, init);
    if (!isEventStream(response.status, response.headers.get('content-type') ?? undefined) || response.body === null)
      return response;
    return { status: response.status, headers: Object.fromEntries(response.headers), body: webBody(response.body), resend };
  }

  async #resend(url: string, init: RequestInit, patch: Record<string, unknown>): Promise<ByteSource> {
    const body = JSON.stringify({ ...(JSON.parse(init.body as string) as Record<string, unknown>), ...patch });
    const reply = await this.send(url, { ...init, body });
    if (!(reply instanceof Response)) return reply.body;
    const text = await reply.text();
    let message: unknown;
    try {
      message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    } catch {
      // Not JSON: the status text says it.
    }
    // As Google's SDK words it: the message from `{ "error": { "message" } }`.
    throw new APICallError({
      message: typeof message === 'string' ? message : reply.statusText || `HTTP ${reply.status}`,
      url,
      requestBodyValues: patch,
      statusCode: reply.status,
      responseHeaders: Object.fromEntries(reply.headers),
      responseBody: text,
    });
  }
}

function isEventStream(status: number, contentType: string | undefined): boolean {
  return status >= 200 && status < 300 && contentType?.includes('text/event-stream') === true;
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

/** Header records already in `fetch`'s form (lowercase names, no duplicates): a template's, sent as they are. */
const ready = new WeakSet<object>();

/** Marks `headers` as normalized, so `requestDirect` sends it without building a `Headers` per call. */
export function readyHeaders<T extends Record<string, string>>(headers: T): T {
  ready.add(headers);
  return headers;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * The request as `fetch` would send it, over `node:http(s)`: a successful event stream is taken,
 * any other answer is read whole. A request that finds its kept-alive socket closed by the provider
 * is sent again at once on a new one.
 */
function requestDirect(url: string, init: RequestInit, resend: EventStream['resend']): Promise<EventStream | Response> {
  const { secure, options } = target(url);
  const headers = ready.has(init.headers as object)
    ? (init.headers as Record<string, string>)
    : Object.fromEntries(new Headers(init.headers));
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => send(false, resolve, reject));
  function send(retry: boolean, resolve: (reply: EventStream | Response) => void, reject: (error: unknown) => void): void {
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
        if (isEventStream(status, responseHeaders['content-type'])) {
          resolve({ status, headers: responseHeaders, body: nodeBody(res), resend });
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
function nodeBody(res: IncomingMessage): ByteSource {
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
