import type { FieldError, Problem, ProblemCode } from './generated/types.gen.js';

/**
 * What went wrong, as a stable code: the server's problem `code`, or one of the client's own —
 * `network_error` (no answer: refused, reset, DNS, timeout), `invalid_response` (an answer that breaks
 * the contract) and `aborted` (the caller's signal).
 */
export type ConsiliumErrorCode = ProblemCode | 'network_error' | 'invalid_response' | 'aborted';

/**
 * Every failure of the {@link Consilium} facade, for plain calls and streams alike. A server error
 * carries its RFC 9457 problem: `code`, `errors[]` (one per offending field) and `requestId`.
 */
export class ConsiliumError extends Error {
  override readonly name = 'ConsiliumError';
  /** The problem's `code`, or the client's own for failures without an answer. */
  readonly code: ConsiliumErrorCode;
  /** The HTTP status; `undefined` when no answer arrived. */
  readonly status: number | undefined;
  /** For `validation_failed`: one entry per offending field (`body.rounds`, …); otherwise empty. */
  readonly errors: FieldError[];
  /** The server's request id (the problem's, or the `X-Request-Id` header); quote it in bug reports. */
  readonly requestId: string | undefined;
  /** The whole problem document, when the server sent one. */
  readonly problem: Problem | undefined;

  constructor(
    message: string,
    init: { code: ConsiliumErrorCode; status?: number; problem?: Problem; requestId?: string; cause?: unknown },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status ?? init.problem?.status;
    this.problem = init.problem;
    this.errors = init.problem?.errors ?? [];
    this.requestId = init.problem?.requestId ?? init.requestId;
  }

  /** Whether this is a problem the server sent (as opposed to a network or contract failure). */
  get fromServer(): boolean {
    return this.problem !== undefined;
  }
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' && value !== null && typeof (value as Problem).code === 'string' && 'status' in value;

/** The error for a non-2xx answer, from its problem body when it has one. */
export function errorFromProblem(body: unknown, response: Response | undefined): ConsiliumError {
  const requestId = response?.headers.get('x-request-id') ?? undefined;
  if (isProblem(body)) {
    // "1 field is invalid: body.rounds (Too big: …)": the detail's own full stop gives way to the fields it counts.
    const fields = body.errors?.length ? body.errors.map((e) => `${e.path} (${e.message})`).join('; ') : '';
    const detail = fields ? [body.detail?.replace(/\.$/, ''), fields].filter(Boolean).join(': ') : body.detail;
    return new ConsiliumError(`${body.title} (${body.code})${detail ? ` — ${detail}` : ''}`, {
      code: body.code,
      status: response?.status,
      problem: body,
      requestId,
    });
  }
  const status = response?.status;
  return new ConsiliumError(`HTTP ${status ?? '?'} ${response?.statusText ?? ''}`.trim(), {
    code: status === undefined ? 'network_error' : status >= 500 ? 'internal_error' : 'invalid_response',
    status,
    requestId,
  });
}

/** Reads a failed response's problem body (or whatever it holds) into a {@link ConsiliumError}. */
export async function errorFromResponse(response: Response): Promise<ConsiliumError> {
  let body: unknown;
  try {
    const text = await response.text();
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return errorFromProblem(body, response);
}

/** Any thrown value as a {@link ConsiliumError}: kept when it is one, else a network, abort or contract failure. */
export function toConsiliumError(error: unknown, signal?: AbortSignal): ConsiliumError {
  if (error instanceof ConsiliumError) return error;
  if (signal?.aborted || (error as Error | undefined)?.name === 'AbortError') {
    return new ConsiliumError('The request was aborted', { code: 'aborted', cause: error });
  }
  // zod (full or mini) reports a response that breaks the contract with `issues`.
  if (typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues)) {
    return new ConsiliumError(
      `The server's answer does not match the contract: ${summarizeIssues((error as { issues: unknown[] }).issues)}`,
      {
        code: 'invalid_response',
        cause: error,
      },
    );
  }
  // fetch's own message is only "fetch failed": the cause says why (ECONNREFUSED, or undici's "bad port").
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  const detail = why ? ` (${why})` : '';
  return new ConsiliumError(`Network error: ${(error as Error | undefined)?.message ?? String(error)}${detail}`, {
    code: 'network_error',
    cause: error,
  });
}

/** How many of a contract failure's issues the message spells out; `cause.issues` keeps them all. */
const SHOWN_ISSUES = 3;

/**
 * A zod failure in one line: the first few issues as `path: message`, then how many more. The whole
 * list (kilobytes for a large answer) stays on the error's `cause`.
 */
function summarizeIssues(issues: readonly unknown[]): string {
  const one = (issue: unknown): string => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    const where = Array.isArray(path) && path.length > 0 ? path.map(String).join('.') : '(the answer)';
    return `${where}: ${typeof message === 'string' ? message : 'invalid'}`;
  };
  const shown = issues.slice(0, SHOWN_ISSUES).map(one).join('; ');
  const rest = issues.length - SHOWN_ISSUES;
  return issues.length === 0 ? 'invalid' : `${shown}${rest > 0 ? ` (and ${rest} more issue${rest === 1 ? '' : 's'})` : ''}`;
}
