/**
 * The tools' runs pass the same limits as the HTTP operations', counted together: a user's running debates and
 * start rate hold across both surfaces, and a refusal is a tool error that says when to try again.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectMcp, textOf } from '../../../test/support/mcp.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';

let server: RunningServer;
let client: Client;
beforeAll(async () => {
  server = await startServer({
    CONSILIUM_RATE_LIMITS: 'on',
    CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '1',
    CONSILIUM_LIMIT_DEBATES_PER_USER: '3/1h',
    // Slow enough that the consult below is still running when the other calls come.
    CONSILIUM_OFFLINE_TOKEN_MS: '5',
  });
  client = await connectMcp(server.baseUrl, server.token);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const ask = (question: string) => client.callTool({ name: 'ask', arguments: { question, slot: 2 } });

it('a running consult holds the one running slot over MCP and HTTP; the start rate counts both', async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const consult = client.callTool({ name: 'consult', arguments: { question: 'Held?', rounds: 2 } }, undefined, {
    onprogress: (p) => p.progress === 0 && started(),
  });
  await running;

  const refused = await ask('Another at once?');
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toBe('rate_limited: At most 1 of your debates may run at once. Try again in 5 s.');
  const http = await server.fetch('/ask/openai', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'And over HTTP?' }),
  });
  expect(http.status).toBe(429);
  await http.body?.cancel();

  expect((await consult).isError).toBeFalsy();
  // Its end freed the slot; the refusals took no start: two of three are used.
  expect((await ask('Now?')).isError).toBeFalsy();
  expect((await ask('Third?')).isError).toBeFalsy();
  const limited = await ask('Fourth?');
  expect(limited.isError).toBe(true);
  expect(textOf(limited)).toMatch(
    /^rate_limited: Too many debates started; wait before starting another\. Try again in \d+ s\.$/,
  );
});
