/**
 * A session store that is down or locked, under the real server on loopback with a real SQLite file:
 * requests answer `503 store_unavailable` with `Retry-After` (not `500`); a detached start answers
 * `202` only once its session's first write has committed, and otherwise `503`, with its run stopped
 * (the model, a loopback OpenAI-compatible simulator, sees its call closed and no new one); genuine
 * bugs stay `500 internal_error`. The store fails for real: closed under the server, or its write
 * lock held by another connection (SQLite answers SQLITE_BUSY after the store's 5 s busy timeout).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../sdk/src/cli/context.js';
import { main } from '../../sdk/src/cli/main.js';
import { Consilium, ConsiliumError, type DebateEvent } from '../../sdk/src/index.js';
import { StoreError } from '../../server/src/sessions/store.js';
import { readEvents } from '../debate/fault-providers.js';
import { type RunningServer, startServer } from '../support/server.js';

/** An OpenAI-compatible model that streams a word every 50 ms until its client hangs up. */
class EndlessModel {
  /** When each call started and when its connection closed. */
  readonly calls: { startedAt: number; closedAt?: number }[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<EndlessModel> {
    let model!: EndlessModel;
    const server = createServer((req, res) => {
      const call: { startedAt: number; closedAt?: number } = { startedAt: Date.now() };
      model.calls.push(call);
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'sim', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }));
      const timer = setInterval(() => res.write(chunk({ content: 'word ' })), 50);
      res.on('close', () => {
        clearInterval(timer);
        call.closedAt = Date.now();
      });
    });
    model = new EndlessModel(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** Holds SQLite's write lock on `file` from another connection until `release`. */
async function lockWrites(file: string): Promise<{ release(): Promise<void> }> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(d)));
  });
  const exec = (sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
  await exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE');
  return {
    release: async () => {
      await exec('ROLLBACK');
      await new Promise<void>((resolve) => db.close(() => resolve()));
    },
  };
}

async function expectStoreUnavailable(res: Response): Promise<void> {
  const body = await res.json();
  expect({ status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after') }).toEqual({
    status: 503,
    type: 'application/problem+json',
    retryAfter: '5',
  });
  expect(body).toMatchObject({
    type: 'https://consilium.dev/problems/store_unavailable',
    title: 'Session store unavailable',
    status: 503,
    code: 'store_unavailable',
    detail: expect.stringMatching(/session store is unavailable.*not carried out/),
    requestId: expect.any(String),
  });
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

let server: RunningServer | undefined;
let model: EndlessModel | undefined;
let lock: { release(): Promise<void> } | undefined;
afterEach(async () => {
  await lock?.release();
  await server?.close();
  await model?.close();
  server = model = lock = undefined;
});

describe('a store that is down', () => {
  it('a closed store: GET /sessions and a debate start answer 503 store_unavailable with Retry-After, not 500', async () => {
    server = await startServer();
    expect((await server.fetch('/sessions')).status).toBe(200);
    await server.database.close();

    await expectStoreUnavailable(await server.fetch('/sessions'));
    await expectStoreUnavailable(await server.fetch('/consilium/deep', json({ question: 'Shard or not?', rounds: 2 })));
    await expectStoreUnavailable(await server.fetch('/consilium', json({ question: 'Shard or not?', detach: true })));

    // The SDK's typed error carries the code; the CLI reports it and exits with its server-failure code.
    const sdk = new Consilium({ baseUrl: server.baseUrl, token: server.token });
    const error = await sdk.sessions.get('ses_00000000000000000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsiliumError);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503, fromServer: true });
    let stderr = '';
    const code = await main(['sessions', 'list'], {
      stdout: { write: () => undefined },
      stderr: {
        write: (text) => {
          stderr += text;
        },
      },
      env: { CONSILIUM_URL: server.baseUrl, CONSILIUM_TOKEN: server.token, CONSILIUM_CONFIG: '/nonexistent/consilium.json' },
      readStdin: async () => '',
      onInterrupt: () => () => undefined,
    });
    expect(code).toBe(EXIT.server);
    expect(stderr).toMatch(/Session store unavailable \(store_unavailable\)/);
  });

  it('a bug in the store stays 500 internal_error; the same call failing as unavailable is 503', async () => {
    server = await startServer();
    const store = server.sessions.store;
    const list = store.list.bind(store);
    // The storage edge answers as a driver would: first unavailable (a locked file), then bugs.
    const failures: unknown[] = [
      new StoreError('unavailable', 'SQLITE_BUSY: database is locked'),
      new StoreError('conflict', 'SQLITE_CONSTRAINT: UNIQUE constraint failed: sessions.id'),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new StoreError('corrupt', 'SQLITE_CORRUPT: database disk image is malformed'),
    ];
    store.list = (query) => (failures.length > 0 ? Promise.reject(failures.shift()) : list(query));

    await expectStoreUnavailable(await server.fetch('/sessions'));
    for (let i = 0; i < 3; i++) {
      const res = await server.fetch('/sessions');
      expect(res.status).toBe(500);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toMatchObject({ status: 500, code: 'internal_error' });
    }
    expect((await server.fetch('/sessions')).status).toBe(200);
  });
});

describe('a detached start', () => {
  it('whose first write fails answers 503 and stops its run: the model call closes and no other starts', async () => {
    model = await EndlessModel.start();
    server = await startServer({ CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: model.baseUrl });
    // Signed in (the token's first use is written) before the lock: only the debate's writes fail.
    expect((await server.fetch('/sessions')).status).toBe(200);
    lock = await lockWrites(server.config.database);

    const res = await server.fetch('/ask/local-llm', json({ question: 'Shard the sessions table?', detach: true }));
    const answeredAt = Date.now();
    await expectStoreUnavailable(res);
    expect(res.headers.get('location')).toBeNull();
    // The model was called (the run had started) and, once the write failed, hung up on.
    expect(model.calls.length).toBe(1);
    await expect.poll(() => model!.calls[0]!.closedAt, { timeout: 30_000 }).toBeDefined();
    // The run is gone: the recorder, which would retry the write for 30 s, no longer holds it (a run it still held
    // would keep that count at 1 while the lock is held). Having ended, the run sends nothing more to the model.
    const recorder = server.sessions.recorder;
    await expect.poll(() => recorder.running, { timeout: 30_000 }).toBe(0);
    expect(model.calls.filter((c) => c.startedAt > answeredAt)).toEqual([]);
    expect(model.calls.length).toBe(1);

    // Once the store is back nothing of the refused run turns up: it was dropped, not just stopped. Whatever the
    // recorder still had to write is written by `settled()`.
    await lock.release();
    lock = undefined;
    await recorder.settled();
    const page = (await (await server.fetch('/sessions')).json()) as { items: unknown[] };
    expect(page.items).toEqual([]);
  }, 20_000);

  it('with a healthy store answers 202 and its session is readable at once', async () => {
    model = await EndlessModel.start();
    server = await startServer({ CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: model.baseUrl });
    const res = await server.fetch('/ask/local-llm', json({ question: 'Shard the sessions table?', detach: true }));
    expect(res.status).toBe(202);
    const { sessionId } = (await res.json()) as { sessionId: string };
    expect(res.headers.get('location')).toBe(`/sessions/${sessionId}`);
    const stored = await server.fetch(`/sessions/${sessionId}`);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ id: sessionId, status: 'running', mode: 'single' });
    expect(model.calls.length).toBe(1);
    expect((await server.fetch(`/sessions/${sessionId}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('a streamed start (not detached) whose first write fails', () => {
  // Not a 503: the stream's 200 and first events are sent before any write could fail. The events go
  // on live (the model calls too) while the writes are retried; then the run stops and the stream ends.
  it('shows nothing that was not stored: ends with session.ended failed store_unavailable once the retries give up', async () => {
    server = await startServer({ CONSILIUM_STORE_RETRY_MS: '1000', CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    expect((await server.fetch('/sessions')).status).toBe(200);
    lock = await lockWrites(server.config.database);

    const res = await server.fetch('/consilium/deep/stream', {
      ...json({ question: 'Shard the sessions table?', rounds: 5 }),
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    const events: DebateEvent[] = [];
    for await (const e of readEvents(res.body!)) events.push(e.data as DebateEvent);
    // The first write waits out the 5 s busy timeout; the retry 1 s later another 5 s; then the give-up (the test's
    // timeout bounds how long that takes on a busy machine; the end below says it gave up). Nothing was stored, so
    // nothing but that end was shown.
    expect(events.map((e) => e.type)).toStrictEqual(['session.ended']);
    expect(events.at(-1)).toMatchObject({
      type: 'session.ended',
      status: 'failed',
      error: expect.stringMatching(/^store_unavailable: /),
    });
  }, 60_000);
});
