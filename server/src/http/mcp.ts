/**
 * `/mcp` on the app: the MCP endpoint (`mcp/`) for callers signed in with an API token. Only a bearer token opens
 * it: a desktop client or agent holds a token, and the session cookie is the web UI's, which has no business here.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Admit } from '../mcp/context.js';
import type { McpEndpoint } from '../mcp/endpoint.js';
import type { DebateGate } from './debate-limits.js';
import type { AppEnv } from './deps.js';
import { scopeOf } from './owner.js';
import { problem } from './problem.js';
import { DRAINING_RETRY_AFTER_S } from './readiness.js';

export function mountMcp(app: OpenAPIHono<AppEnv>, endpoint: McpEndpoint, publicOrigin?: URL): void {
  app.all('/mcp', (c) => {
    if (c.get('credential').kind !== 'token') {
      c.header('www-authenticate', 'Bearer');
      return problem(c, 401, 'unauthorized', { detail: 'Send the API token as `Authorization: Bearer <token>`.' });
    }
    const origin = publicOrigin?.origin ?? new URL(c.req.url).origin;
    return endpoint.handle(c.req.raw, { owner: c.get('user').id, scope: scopeOf(c) }, origin);
  });
}

/** MCP's runs under the HTTP operations' limits: refused while the instance drains, then through `gate`. */
export function admitRuns(gate: DebateGate | undefined, draining: () => boolean): Admit {
  return async (owner) => {
    if (draining()) {
      const message = 'This instance is stopping and starts no new debates; call the tool again (another instance takes it).';
      return { refused: { code: 'draining', message, retryAfterS: DRAINING_RETRY_AFTER_S } };
    }
    const entry = await gate?.(owner);
    if (!entry) return { release: () => {} };
    return 'refused' in entry ? { refused: { code: 'rate_limited', ...entry.refused } } : entry;
  };
}
