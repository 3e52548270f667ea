/**
 * Authentication and authorization for every request, from the contract's generated security table
 * (`operationSecurity`): an operation added to the contract is guarded the moment it exists, and a
 * path that is no operation at all needs credentials too, unless it is one of the few public pages.
 *
 * Credentials: `Authorization: Bearer <API token>`, or the `consilium_session` cookie set by
 * `POST /auth/login`. A request authenticated by the cookie that may change something must come from
 * the service's own origin (CSRF): `Origin`, else `Referer`, else `Sec-Fetch-Site: same-origin`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { Accounts, Principal } from '../accounts/accounts.js';
import { type OperationSecurity, operationSecurity, type SecurityRequirement } from '../generated/routes.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

export const SESSION_COOKIE = 'consilium_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What needs no credentials besides the contract's public operations: the contract, and the pages of the UI and docs. */
const PUBLIC_PAGES = [/^\/$/, /^\/openapi\.json$/, /^\/assets\/.+/, /^\/favicon\.[A-Za-z0-9]+$/, /^\/docs(\/.*)?$/];

/** Whether a GET/HEAD of `path` is one of the public pages. */
export const isPublicPage = (method: string, path: string): boolean =>
  (method === 'GET' || method === 'HEAD') && PUBLIC_PAGES.some((page) => page.test(path));

interface CompiledOperation {
  operationId: string;
  method: string;
  pattern: RegExp;
  security: readonly SecurityRequirement[];
}

/** The security table as matchers: `{param}` matches one path segment. */
export function compileSecurity(table: Readonly<Record<string, OperationSecurity>> = operationSecurity): CompiledOperation[] {
  return Object.entries(table).map(([operationId, op]) => ({
    operationId,
    method: op.method,
    pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    security: op.security,
  }));
}

/** The operation a request is for, if any. HEAD is GET without a body. */
export function findOperation(operations: readonly CompiledOperation[], method: string, path: string) {
  const m = method === 'HEAD' ? 'GET' : method;
  return operations.find((op) => op.method === m && op.pattern.test(path));
}

/** What every operation without its own `security` would get: any valid credentials. */
const DEFAULT_SECURITY: readonly SecurityRequirement[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

type Scheme = 'bearerAuth' | 'cookieAuth';

export interface AuthOptions {
  accounts: Accounts;
  /** `CONSILIUM_PUBLIC_ORIGIN`: also the service's own origin for CSRF checks, and https there makes cookies Secure. */
  publicOrigin?: URL | undefined;
  /** The operations and their security: the contract's, unless a test reaches what the contract does not declare. */
  table?: Readonly<Record<string, OperationSecurity>>;
}

/** Whether the request came over HTTPS, or the service is published over it: then cookies are `Secure`. */
export const secureCookies = (c: Context, publicOrigin?: URL) =>
  new URL(c.req.url).protocol === 'https:' || publicOrigin?.protocol === 'https:';

/** Whether the request comes from the service's own origin (for requests a cross-site page could forge). */
export function sameOrigin(c: Context, publicOrigin?: URL): boolean {
  const own = new Set([new URL(c.req.url).origin, ...(publicOrigin ? [publicOrigin.origin] : [])]);
  const origin = c.req.header('origin');
  if (origin !== undefined) return own.has(origin);
  const referer = c.req.header('referer');
  if (referer !== undefined) return own.has(URL.parse(referer)?.origin ?? '');
  return c.req.header('sec-fetch-site') === 'same-origin';
}

export function authenticate({ accounts, publicOrigin, table }: AuthOptions): MiddlewareHandler<AppEnv> {
  const operations = compileSecurity(table);
  const unauthorized = (c: Context<AppEnv>, detail: string) => {
    c.header('www-authenticate', 'Bearer');
    return problem(c, 401, 'unauthorized', { detail });
  };

  return async (c, next) => {
    const operation = findOperation(operations, c.req.method, c.req.path);
    const security = operation ? operation.security : isPublicPage(c.req.method, c.req.path) ? [] : DEFAULT_SECURITY;
    if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) return next();

    // Credentials, bearer first: a request that sends a token is judged by it alone, never by a cookie beside it.
    let scheme: Scheme | undefined;
    let principal: Principal | undefined;
    const authorization = c.req.header('authorization');
    const cookie = getCookie(c, SESSION_COOKIE);
    if (authorization !== undefined) {
      scheme = 'bearerAuth';
      const bearer = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization)?.[1];
      // Another scheme (Basic, a bare token) is a different mistake from a token we do not know: say which.
      if (!bearer && !/^Bearer\b/i.test(authorization)) {
        return unauthorized(c, 'Send the API token as `Authorization: Bearer <token>` (no other scheme is taken).');
      }
      if (bearer) {
        principal = await accounts.authenticateToken(bearer);
        c.set('recheck', () => accounts.authenticateToken(bearer));
      }
      if (!principal)
        return unauthorized(c, 'The bearer token is not valid: unknown, revoked, expired, or its user is disabled.');
    } else if (cookie !== undefined) {
      scheme = 'cookieAuth';
      principal = cookie.length <= 100 ? await accounts.authenticateSignIn(cookie) : undefined;
      c.set('recheck', () => accounts.authenticateSignIn(cookie));
      if (!principal) {
        deleteCookie(c, SESSION_COOKIE, { path: '/' });
        return unauthorized(c, 'The session has ended (signed out, expired, or the user is disabled); log in again.');
      }
    } else {
      return unauthorized(c, 'Send a bearer token, or log in for a session cookie.');
    }

    // One of the requirements must hold: its scheme is the one used, and the user has a role it names (if any).
    const usable = security.filter((requirement) => scheme in requirement);
    if (usable.length === 0)
      return unauthorized(
        c,
        `This operation does not accept ${scheme === 'bearerAuth' ? 'bearer tokens' : 'the session cookie'}.`,
      );
    const role = principal.user.role;
    if (!usable.some((requirement) => (requirement[scheme] ?? []).length === 0 || requirement[scheme]!.includes(role))) {
      return problem(c, 403, 'forbidden', { detail: 'Only admins may do this.' });
    }
    // The cookie rides along on any request a browser makes, whichever page started it.
    if (scheme === 'cookieAuth' && !SAFE_METHODS.has(c.req.method) && !sameOrigin(c, publicOrigin)) {
      return problem(c, 403, 'forbidden', {
        detail: 'A request authenticated by the session cookie must come from this service’s own origin (Origin or Referer).',
      });
    }
    c.set('user', principal.user);
    c.set('credential', principal.via);
    return next();
  };
}
