/**
 * `/mcp` over Streamable HTTP with the official MCP client: the current protocol revision, the tools and resources
 * listed, 401 without a bearer token (and with only the web UI's cookie), one MCP session per user.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../test/support/mcp.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const initialize = (headers: Record<string, string>) =>
  fetch(`${server.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });

describe('/mcp over Streamable HTTP', () => {
  it('speaks the current revision and lists every tool, with input and output schemas, and the resources', async () => {
    const client = await connectMcp(server.baseUrl, server.token);
    expect(client.getServerVersion()?.name).toBe('consilium');
    expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['ask', 'consult', 'continue_session', 'get_session', 'list_sessions', 'parallel', 'synthesize', 'wiki_query'].sort(),
    );
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeLessThan(400);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const consult = tools.find((t) => t.name === 'consult')!;
    expect(Object.keys(consult.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['question', 'rounds', 'slots', 'grounding']),
    );
    expect(consult.inputSchema.properties).not.toHaveProperty('detach');
    expect(consult.outputSchema!.required).toEqual(expect.arrayContaining(['sessionId', 'link', 'actions', 'dissent', 'cost']));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['consilium://sessions/{id}']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('consilium://sources');
    await client.close();
  });

  it('answers 401 without a bearer token, with a wrong one, and with the web UI’s cookie alone', async () => {
    const none = await initialize({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await initialize({ authorization: 'Bearer csk_not_a_token' })).status).toBe(401);
    const login = await fetch(`${server.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: server.user.username, password: server.password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const withCookie = await initialize({ cookie, origin: server.baseUrl });
    expect(withCookie.status).toBe(401);
    expect(((await withCookie.json()) as { code: string }).code).toBe('unauthorized');
    await expect(connectMcp(server.baseUrl, undefined)).rejects.toThrow(/401/);
  });

  it('keeps each MCP session to the user who opened it', async () => {
    const opened = await initialize(server.headers);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await opened.body?.cancel();
    const other = await server.newUser();
    const list = (headers: Record<string, string>) =>
      fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    expect((await list(other.headers)).status).toBe(404);
    const own = await list(server.headers);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"consult"');
  });
});
