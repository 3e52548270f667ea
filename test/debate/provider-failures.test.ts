/**
 * Real network failures on loopback (no msw): a dead port, an unresolvable host, a TLS handshake
 * with a plain-text server, a refused key, an error streamed mid-answer. Each ends as an answer
 * error naming its cause, and the server's log carries the cause and the provider's request id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccounts } from '../../server/src/accounts/open.js';
import { loadConfig } from '../../server/src/config/config.js';
import { createLogger } from '../../server/src/config/log.js';
import { slotsFromEnv } from '../../server/src/config/slots.js';
import { createApp } from '../../server/src/http/app.js';
import type { AttemptFailure } from '../../server/src/providers/call.js';
import { streamAnswer } from '../../server/src/providers/call.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { openSessions } from '../../server/src/sessions/open.js';
import { openDatabase } from '../../server/src/store/open.js';

const listen = (server: Server | ReturnType<typeof createTcpServer>): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const close = (server: Server | ReturnType<typeof createTcpServer>) => new Promise((r) => server.close(r));

/** A port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  const port = await listen(s);
  await close(s);
  return port;
}

/** Slot 5 as an OpenAI-compatible server at `baseUrl`. */
function compatible(baseUrl: string, key?: string) {
  const env = {
    CONSILIUM_SLOT5_PROVIDER: 'local-llm',
    CONSILIUM_SLOT5_BASE_URL: baseUrl,
    ...(key && { CONSILIUM_SLOT5_API_KEY: key }),
  };
  return { env, slot: slotsFromEnv(env)[4]! };
}

async function ask(env: Record<string, string>, slotIndex: number) {
  const failures: AttemptFailure[] = [];
  const result = await streamAnswer({
    model: createSlotModel(slotsFromEnv(env)[slotIndex]!, env),
    prompt: 'Ship it?',
    timeoutMs: 10_000,
    maxRetries: 1,
    sleep: async () => {},
    onAttemptFailed: (f) => failures.push(f),
  });
  return { result, failures };
}

let http: Server;
let httpPort: number;
let plain: ReturnType<typeof createTcpServer>;
let plainPort: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    if (req.url?.startsWith('/bad-key/')) {
      res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': 'req_badkey_42' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    if (req.url?.startsWith('/anthropic/')) {
      // Anthropic streams an error event after the response started; its id is in the response headers.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_anthropic_7' });
      const message = {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        usage: { input_tokens: 3, output_tokens: 0 },
      };
      res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}\n\n`);
      res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  httpPort = await listen(http);
  // Answers a TLS ClientHello with plain text.
  plain = createTcpServer((socket) => {
    sockets.push(socket);
    socket.end('HTTP/1.1 200 OK\r\n\r\n');
  });
  plainPort = await listen(plain);
});
afterAll(async () => {
  http.closeAllConnections();
  for (const socket of sockets) socket.destroy();
  await close(http);
  await close(plain);
});

describe('a failed call names its cause', () => {
  it('a dead local URL: connection_refused, with the address, retried', async () => {
    const port = await deadPort();
    const { result, failures } = await ask(compatible(`http://127.0.0.1:${port}/v1`).env, 4);
    expect(result.error).toMatchObject({ code: 'connection_refused', retryable: true, attempts: 2 });
    expect(result.error!.message).toContain(`127.0.0.1:${port}`);
    expect(failures.map((f) => [f.code, f.cause, f.retrying, f.attempt])).toEqual([
      ['connection_refused', 'ECONNREFUSED', true, 1],
      ['connection_refused', 'ECONNREFUSED', false, 2],
    ]);
  });

  it('a host name that does not resolve: dns_failed, not retried', async () => {
    const { result, failures } = await ask(compatible('http://consilium-test.invalid/v1').env, 4);
    expect(result.error).toMatchObject({ code: 'dns_failed', retryable: false, attempts: 1 });
    expect(failures[0]!.cause).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });

  it('TLS to a server that does not speak it: tls_failed', async () => {
    const { result, failures } = await ask(compatible(`https://127.0.0.1:${plainPort}/v1`).env, 4);
    expect(result.error).toMatchObject({ code: 'tls_failed', retryable: false, attempts: 1 });
    expect(failures[0]!.cause).toMatch(/SSL|TLS|EPROTO/);
  });

  it("a refused key: auth_failed with HTTP 401 and the provider's request id, not retried", async () => {
    const { result, failures } = await ask(compatible(`http://127.0.0.1:${httpPort}/bad-key/v1`, 'sk-wrong').env, 4);
    expect(result.error).toMatchObject({
      code: 'auth_failed',
      status: 401,
      retryable: false,
      attempts: 1,
      providerRequestId: 'req_badkey_42',
    });
    expect(result.error!.message).toContain('Incorrect API key provided');
    expect(failures).toHaveLength(1);
  });

  it('an error streamed mid-answer carries the request id of the response it came in', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test', CONSILIUM_SLOT1_BASE_URL: `http://127.0.0.1:${httpPort}/anthropic/v1` };
    const { result } = await ask(env, 0);
    expect(result.error).toMatchObject({ code: 'upstream_error', message: 'Overloaded', providerRequestId: 'req_anthropic_7' });
  });
});

describe("the server's log", () => {
  it('records the cause, the slot and the session of each failed attempt; the 502 names the cause', async () => {
    const port = await deadPort();
    const lines: Record<string, unknown>[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'consilium-test-'));
    const env = {
      ...compatible(`http://127.0.0.1:${port}/v1`).env,
      CONSILIUM_DATA_DIR: dataDir,
      CONSILIUM_MAX_RETRIES: '0',
      CONSILIUM_ALLOWED_HOSTS: '*',
    };
    const config = loadConfig(env);
    const database = await openDatabase(config.database);
    const sessions = await openSessions(database.sessions, { cacheSize: 5 });
    const logger = createLogger('warn', (line) => lines.push(JSON.parse(line)));
    const accounts = openAccounts(database.accounts, config);
    const { user } = await accounts.createUser({ username: 'ops', password: 'ops-password-for-tests' });
    const { token } = await accounts.createToken(user.id, 'tests');
    const app = createApp({ config, env, logger, version: 'test', sessions, accounts });
    try {
      const res = await app.request('http://127.0.0.1/ask/local-llm', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ question: 'Ship it?' }),
      });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { detail: string }).detail).toContain('connection_refused');
      const failed = lines.filter((l) => l.msg === 'provider call failed');
      expect(failed).toEqual([
        expect.objectContaining({
          level: 'warn',
          code: 'connection_refused',
          cause: 'ECONNREFUSED',
          slot: 5,
          provider: 'local-llm',
          round: 1,
          attempt: 1,
          retrying: false,
          sessionId: expect.stringMatching(/^ses_/),
        }),
      ]);
      expect(failed[0]!.message).toContain(`127.0.0.1:${port}`);
    } finally {
      await sessions.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
