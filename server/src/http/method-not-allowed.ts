/**
 * `405 method_not_allowed` with `Allow` for a path that exists with other methods (`PUT /sessions`, `POST /health`),
 * before credentials are asked for: which methods a path has is public (the contract says so), and a 401 or 404
 * there would send a client looking for the wrong mistake.
 */
import type { MiddlewareHandler } from 'hono';
import { compileSecurity, isPublicPage } from './auth.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

export function methodNotAllowed(): MiddlewareHandler<AppEnv> {
  const operations = compileSecurity();
  return async (c, next) => {
    const { method, path } = c.req;
    const allowed = new Set(operations.filter((op) => op.pattern.test(path)).map((op) => op.method));
    if (isPublicPage('GET', path)) allowed.add('GET');
    if (allowed.has('GET')) allowed.add('HEAD');
    if (allowed.size === 0 || allowed.has(method)) return next();
    const allow = [...allowed].sort().join(', ');
    c.header('allow', allow);
    return problem(c, 405, 'method_not_allowed', { detail: `${path} does not take ${method}; it takes ${allow}.` });
  };
}
