import type { Context } from 'hono';
import type { ZodError } from 'zod';
import type { FieldError, Problem, ProblemCode } from '../../../sdk/src/generated/types.gen.js';
import { unstorableFields } from './unstorable-text.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Stable problem-type URIs: one per code. Clients should branch on `code`. */
export const problemType = (code: ProblemCode): string => `https://consilium.dev/problems/${code}`;

const TITLES: Record<ProblemCode, string> = {
  validation_failed: 'Request validation failed',
  malformed_body: 'Malformed request body',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Payload too large',
  headers_too_large: 'Request header fields too large',
  unauthorized: 'Authentication required',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  unknown_provider: 'Unknown provider',
  unknown_wiki_source: 'Unknown wiki source',
  conflict: 'Conflict',
  rate_limited: 'Too many requests',
  not_implemented: 'Not implemented',
  provider_failed: 'Provider failed',
  quorum_not_met: 'Quorum not met',
  budget_exceeded: 'Budget exceeded',
  internal_error: 'Internal server error',
  host_not_allowed: 'Host not allowed',
  request_timeout: 'Request timeout',
  store_unavailable: 'Session store unavailable',
  method_not_allowed: 'Method not allowed',
  not_ready: 'Not ready',
  draining: 'Draining',
  hashing_busy: 'Too many password checks',
};

export type ProblemInit = Omit<Problem, 'type' | 'title' | 'status' | 'code'>;

/** Builds an RFC 9457 problem body. */
export function problemBody(status: number, code: ProblemCode, init: ProblemInit = {}): Problem {
  return { type: problemType(code), title: TITLES[code], status, code, ...init };
}

/** Responds with a problem, stamped with the request's path and id. */
export function problem(c: Context, status: number, code: ProblemCode, init: ProblemInit = {}): Response {
  const body = problemBody(status, code, { instance: c.req.path, requestId: c.get('requestId'), ...init });
  return c.body(JSON.stringify(body), status as 400, { 'content-type': PROBLEM_MEDIA_TYPE });
}

/**
 * Seconds a client should wait after `store_unavailable`: a guess, since nothing here knows when the
 * store comes back, but a lock or a database restart usually clears within seconds.
 */
const STORE_RETRY_AFTER_S = 5;

/** 503 `store_unavailable` with `Retry-After`: the store failed, so the request was not carried out. */
export function storeUnavailable(c: Context): Response {
  c.header('retry-after', String(STORE_RETRY_AFTER_S));
  return problem(c, 503, 'store_unavailable', {
    detail: `The session store is unavailable, so the request was not carried out; try again in ${STORE_RETRY_AFTER_S} seconds.`,
  });
}

/**
 * 503 `hashing_busy` with `Retry-After`: every password-hash worker is busy and its queue full (`HashPool`), so a
 * sign-in or password change is refused at once rather than waiting seconds behind a flood of attempts.
 */
export function hashingBusy(c: Context, retryAfterS: number): Response {
  c.header('retry-after', String(retryAfterS));
  return problem(c, 503, 'hashing_busy', {
    detail: `Too many passwords are being checked right now; try again in ${retryAfterS} second${retryAfterS === 1 ? '' : 's'}.`,
  });
}

const LOCATIONS: Record<string, string> = {
  json: 'body',
  form: 'body',
  query: 'query',
  param: 'path',
  header: 'header',
  cookie: 'cookie',
};

/**
 * One `FieldError` per zod issue, with the field's path prefixed by where it was sent. Unknown
 * fields (zod reports them together, on their parent) get one error each, at their own path, so a
 * client can point at `body.temperature` itself.
 */
export function fieldErrors(target: string, error: ZodError): FieldError[] {
  const location = LOCATIONS[target] ?? target;
  const at = (path: PropertyKey[]) => [location, ...path.map(String)].join('.');
  return error.issues.flatMap((issue): FieldError[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: at([...issue.path, key]),
          message: `Unknown field "${key}": this operation does not accept it.`,
          code: issue.code,
        }))
      : [{ path: at(issue.path), message: issue.message, code: issue.code }],
  );
}

export function validationProblem(c: Context, target: string, error: ZodError): Response {
  return fieldsProblem(c, fieldErrors(target, error));
}

/** For data that validated: a 400 naming each string that cannot be stored as sent (`invalid_text`), if any. */
export function unstorableTextProblem(c: Context, target: string, data: unknown): Response | undefined {
  const errors = unstorableFields(data, LOCATIONS[target] ?? target);
  return errors.length > 0 ? fieldsProblem(c, errors) : undefined;
}

function fieldsProblem(c: Context, errors: FieldError[]): Response {
  const n = errors.length;
  return problem(c, 400, 'validation_failed', { detail: `${n} field${n === 1 ? ' is' : 's are'} invalid.`, errors });
}
