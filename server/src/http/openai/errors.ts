/**
 * OpenAI's error shape on `/v1/*`: `{"error":{"message","type","code","param"}}`. The app's own guards (auth, body
 * size, rate limits) answer problems; `openAIErrors` rewrites those into this shape, so every error an OpenAI client
 * sees there parses as one, with its status and `Retry-After` kept.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { PROBLEM_MEDIA_TYPE } from '../problem.js';

export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'server_error';

export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; code: string | null; param: string | null };
}

/** The error type OpenAI gives each status. */
export function errorType(status: number): OpenAiErrorType {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Thrown by the request checks: becomes the error response (`openAIError`). */
export class OpenAIRequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 403,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function openAIError(
  c: Context,
  status: number,
  { message, code, param = null }: { message: string; code: string | null; param?: string | null },
): Response {
  const body: OpenAiErrorBody = { error: { message, type: errorType(status), code, param } };
  return c.json(body, status as 400);
}

/** Problems from the guards before the handler, as OpenAI errors (same status, `code` and `Retry-After`). */
export function openAIErrors(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!c.res.headers.get('content-type')?.startsWith(PROBLEM_MEDIA_TYPE)) return;
    const problem = (await c.res.clone().json()) as { code?: string; detail?: string; title?: string };
    const status = c.res.status;
    const headers = new Headers(c.res.headers);
    headers.set('content-type', 'application/json');
    const body: OpenAiErrorBody = {
      error: {
        message: problem.detail ?? problem.title ?? 'Request failed.',
        type: errorType(status),
        code: problem.code ?? null,
        param: null,
      },
    };
    c.res = new Response(JSON.stringify(body), { status, headers });
  };
}
