/**
 * `/mcp` on the app: the MCP endpoint (`mcp/`) for callers signed in with an API token. Only a bearer token opens
 * it: a desktop client or agent holds a token, and the session cookie is the web UI's, which has no business here.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { McpEndpoint } from '../mcp/endpoint.js';
import type { AppEnv } from './deps.js';
import { scopeOf } from './owner.js';
import { problem } from './problem.js';

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
