/**
 * `consilium mcp` on stdio, spawned by the official MCP client (`StdioClientTransport`) as a desktop client starts it,
 * forwarding to a real server's `/mcp`: tools and resources listed, a tool called with progress per round, a
 * cancellation that stops the debate, a tool error for bad arguments, and the server's 401 without a token.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { textOf } from '../support/mcp.js';
import { type RunningServer, startServer } from '../support/server.js';

const BIN = fileURLToPath(new URL('../../sdk/src/cli/bin.ts', import.meta.url));

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '1' });
});
afterAll(() => server?.close());

async function spawnMcp(token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'stdio-tests', version: '0.0.0' });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    CONSILIUM_URL: server.baseUrl,
    CONSILIUM_CONFIG: '/nonexistent/consilium.json',
  };
  if (token) env.CONSILIUM_TOKEN = token;
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', BIN, 'mcp'], env, stderr: 'pipe' }),
  );
  return client;
}

describe('consilium mcp (stdio)', () => {
  it('forwards tools, resources, progress, tool errors and cancellation to /mcp', async () => {
    const client = await spawnMcp(server.token);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('consult');
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain('consilium://sources');
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'consult', arguments: { question: 'Over stdio?', rounds: 2 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(result.structuredContent).toMatchObject({ mode: 'deep', status: 'completed' });
      expect(progress.map((p) => p.message)).toEqual([
        expect.stringMatching(/started$/),
        'round 1 of 2 ended',
        'round 2 of 2 ended',
        'verdict written',
      ]);
      const bad = await client.callTool({ name: 'consult', arguments: { question: 'x', rounds: 9 } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/rounds/);

      const abort = new AbortController();
      let sessionId: string | undefined;
      const called = client.callTool({ name: 'consult', arguments: { question: 'Cancel over stdio?', rounds: 5 } }, undefined, {
        signal: abort.signal,
        onprogress: (p) => {
          sessionId = /session (ses_\w+) started/.exec(p.message ?? '')?.[1];
          if (sessionId) abort.abort('stop');
        },
      });
      await expect(called).rejects.toThrow();
      await (await server.fetch(`/sessions/${sessionId}/events`)).text();
      expect(((await (await server.fetch(`/sessions/${sessionId}`)).json()) as Session).status).toBe('cancelled');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('gives the server’s 401 as the error of the first request without a token', async () => {
    await expect(spawnMcp(undefined)).rejects.toThrow(/401/);
  }, 30_000);
});
