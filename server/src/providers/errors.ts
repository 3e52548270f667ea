import { APICallError } from '@ai-sdk/provider';
import type { AnswerError } from '../../../sdk/src/generated/types.gen.js';
import { errorMeaning } from './wire/error-names.js';

/** An `AnswerError` before the attempt count is known. */
export type Failure = Omit<AnswerError, 'attempts'>;

const MAX_MESSAGE = 500;

/**
 * Maps whatever a provider call failed with to the contract's error codes, naming the real cause:
 * refused, DNS, TLS, connect timeout, bad key, rate limit, other HTTP errors, a dropped stream.
 * HTTP errors arrive as `APICallError`s (from an `error` part, or thrown when the body breaks
 * mid-stream with status 200; with no status when no response came, the network error as cause);
 * providers also stream their own error events (Anthropic's `overloaded_error`) as plain objects.
 * Where the error names itself (`type`, `code`, `status` in its body or frame), the provider's own
 * word decides (`wire/error-names.ts`: OpenAI's `insufficient_quota` is a 429 not worth retrying, its
 * `server_error` in a 200 stream one that is); otherwise its HTTP status does.
 * Abort and the call's deadline are decided by the caller, who knows which signal fired.
 */
export function classifyError(error: unknown): Failure {
  const requestId = APICallError.isInstance(error) ? providerRequestId(error.responseHeaders) : undefined;
  const failure = classify(error);
  return requestId === undefined ? failure : { ...failure, providerRequestId: requestId };
}

function classify(error: unknown): Failure {
  const network = networkCause(error);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const message = clip(error.message);
    const named = errorMeaning(errorNames(error.data ?? parsedBody(error.responseBody)));
    // 401/403 say it outright, and their message names the key.
    if (named && !(status === undefined && network) && status !== 401 && status !== 403) {
      // A 5xx is the server's trouble whatever it calls it: worth another try.
      const retryable = named.retryable || (status !== undefined && (status >= 500 || status === 408 || status === 409));
      const failure: Failure = { code: named.code, message, retryable };
      return status === undefined ? failure : { ...failure, status };
    }
    if (status === 429) return { code: 'rate_limited', message, status, retryable: true };
    if (status === 401 || status === 403) {
      return {
        code: 'auth_failed',
        message: clip(`The provider refused the API key (HTTP ${status}): ${error.message}`),
        status,
        retryable: false,
      };
    }
    if (status !== undefined && (status < 200 || status >= 300)) {
      const retryable = error.isRetryable || status >= 500 || status === 408 || status === 409;
      return { code: 'upstream_error', message, status, retryable };
    }
    // No status: no response at all; 2xx: the response started and its body broke.
    if (status === undefined && network) return network;
    return { code: 'connection_reset', message, retryable: true };
  }
  const streamed = providerErrorEvent(error);
  if (streamed) {
    const named = errorMeaning(streamed.names);
    if (named) return { code: named.code, message: streamed.message, retryable: named.retryable };
    if (/rate_limit/.test(streamed.type)) return { code: 'rate_limited', message: streamed.message, retryable: true };
    if (/authentication|permission/.test(streamed.type))
      return { code: 'auth_failed', message: streamed.message, retryable: false };
    return {
      code: 'upstream_error',
      message: streamed.message,
      retryable: /overloaded|api_error|server_error|unavailable|internal/.test(streamed.type),
    };
  }
  if (network) return network;
  // The OpenAI-compatible SDK's word for a body that ended before a finish reason.
  if (error instanceof Error && /stream ended without a finish reason/i.test(error.message))
    return { code: 'stream_truncated', message: clip(error.message), retryable: true };
  return { code: 'upstream_error', message: clip(messageOf(error)), retryable: false };
}

/** The provider's id for a request, from the response headers each provider sets. */
export function providerRequestId(headers: Record<string, string> | undefined): string | undefined {
  if (headers === undefined) return undefined;
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    if (value) return value.slice(0, 200);
  }
  return undefined;
}

/** OpenAI, xAI, DeepSeek and most compatible servers; Anthropic; Google; Azure; AWS. Lowercase, as the AI SDK records them. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-goog-request-id', 'apim-request-id', 'x-amzn-requestid'];

/** System error codes by cause; anything else from the socket is a dropped connection. */
const CAUSES: { code: Failure['code']; match: RegExp; retryable: boolean; says: string }[] = [
  {
    code: 'connection_refused',
    match: /^ECONNREFUSED$/,
    retryable: true,
    says: "Connection refused: nothing answers at the provider's address",
  },
  {
    code: 'dns_failed',
    match: /^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/,
    retryable: false,
    says: "The provider's host name does not resolve",
  },
  {
    code: 'tls_failed',
    match:
      /^(ERR_SSL_\w+|ERR_TLS_\w+|EPROTO|CERT_\w+|UNABLE_TO_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)$/,
    retryable: false,
    says: 'The TLS handshake with the provider failed',
  },
  {
    code: 'timeout',
    match: /^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/,
    retryable: true,
    says: 'The provider did not answer in time',
  },
  {
    code: 'connection_reset',
    match: /^(ECONNRESET|EPIPE|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+)$/,
    retryable: true,
    says: 'The connection to the provider dropped',
  },
];

/** The system-level cause of a failed fetch, found along the `cause` chain. */
export function systemCause(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

function networkCause(error: unknown): Failure | undefined {
  const code = systemCause(error);
  if (code !== undefined) {
    const cause = CAUSES.find((c) => c.match.test(code));
    if (cause)
      return {
        code: cause.code,
        message: clip(`${cause.says} (${code}): ${innermostMessage(error)}`),
        retryable: cause.retryable,
      };
  }
  for (let e = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    if (e instanceof TypeError && /fetch failed|terminated/i.test(e.message)) {
      // undici's own refusals ("bad port") carry no code: their message is the only cause there is.
      const outer = messageOf(error);
      const inner = innermostMessage(error);
      return { code: 'connection_reset', message: clip(inner === outer ? outer : `${outer}: ${inner}`), retryable: true };
    }
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let e = error;
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 6; depth++) e = e.cause;
  return messageOf(e).trim();
}

/** The names an error body gives itself: `{ error: { code, type, status } }` or that object alone. */
function errorNames(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null) return [];
  const outer = body as { error?: unknown };
  const inner = (typeof outer.error === 'object' && outer.error !== null ? outer.error : body) as Record<string, unknown>;
  return [inner.code, inner.type, inner.status];
}

function parsedBody(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** `{ type: 'overloaded_error', message }` as Anthropic streams it, or `{ code, message }`. */
function providerErrorEvent(error: unknown): { type: string; message: string; names: unknown[] } | undefined {
  if (typeof error !== 'object' || error === null || error instanceof Error) return undefined;
  const e = error as { type?: unknown; code?: unknown; status?: unknown; message?: unknown; error?: unknown };
  const type = [e.type, e.code, e.status].find((v) => typeof v === 'string') as string | undefined;
  // xAI streams `{ code, error }`; the others put the text in `message`.
  const message = [e.message, e.error].find((v) => typeof v === 'string') as string | undefined;
  if (type === undefined && message === undefined) return undefined;
  return {
    type: (type ?? 'error').toLowerCase(),
    message: clip(message ?? JSON.stringify(error)),
    names: errorNames(error),
  };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}
