/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`, its bin as npx runs it) against a real server's
 * `/mcp`, as a third party would: it lists the tools and calls one with the API token as `Authorization: Bearer`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/server.js';

const exec = promisify(execFile);
const BUILD = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/inspector-cli/build/', import.meta.url));
const CLI = `${BUILD}cli.js`;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const inspect = (...args: string[]) =>
  exec(
    process.execPath,
    [CLI, '--cli', `${server.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${server.token}`, ...args],
    // Run from its build folder: 1.0.3 looks for its package.json relative to the working directory (`../package.json`)
    // but imports it relative to itself, so from anywhere else it fails before connecting.
    { timeout: 60_000, cwd: BUILD },
  );

describe('the MCP Inspector CLI against /mcp', () => {
  it('lists the tools and calls ask', async () => {
    const listed = JSON.parse((await inspect('--method', 'tools/list')).stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['consult', 'ask', 'wiki_query']));
    const called = JSON.parse(
      (await inspect('--method', 'tools/call', '--tool-name', 'ask', '--tool-arg', 'question=Hello?')).stdout,
    ) as { structuredContent: { mode: string; sessionId: string } };
    expect(called.structuredContent.mode).toBe('single');
    expect((await server.fetch(`/sessions/${called.structuredContent.sessionId}`)).status).toBe(200);
  });
});
