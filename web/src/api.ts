/**
 * The UI's one door to the API: the project's SDK, with a client bound to the page's own origin. The sign-in cookie
 * (`consilium_session`, HttpOnly) rides along on same-origin requests, so no credential is handled here.
 */
import { config as zodConfig } from 'zod';
import { createConsiliumClient, type Problem } from '../../sdk/src/index.js';

// The SDK checks every response with zod, which by default compiles schemas with `new Function`: under the page's CSP
// (no 'unsafe-eval') that is refused, and where it is allowed the first event of a debate costs a 100 ms+ compile.
zodConfig({ jitless: true });

export const client = createConsiliumClient({ baseUrl: location.origin });

/** A failed call: the server's problem (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(problem.detail ?? problem.title ?? `Request failed (${status || 'network'})`);
  }
  get code(): string | undefined {
    return this.problem.code;
  }
}

/** Listeners told when any call answers 401, so the app can show the sign-in form. */
const unauthorized = new Set<() => void>();
export const onUnauthorized = (listener: () => void) => {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
};

type Result<T> = { data?: T; error?: unknown; response?: Response };

/** Awaits an SDK call and returns its data, or throws an `ApiError` carrying the problem. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await call;
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, { detail: `The server could not be reached (${(err as Error).message}).` });
  }
  const status = result.response?.status ?? 0;
  if (result.error !== undefined || !result.response?.ok) {
    if (status === 401) for (const listener of unauthorized) listener();
    const problem = (typeof result.error === 'object' && result.error) || { detail: String(result.error ?? 'Request failed') };
    throw new ApiError(status, problem as Partial<Problem>);
  }
  return result.data as T;
}
