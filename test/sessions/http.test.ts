/**
 * Session history through the generated SDK against the real server on loopback, storing in a real
 * SQLite file: every run is stored as it goes, read back equal, listed, exported, replayed and
 * followed live with `Last-Event-ID`, deleted, and synthesized from.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type createConsiliumClient,
  type DebateEvent,
  deleteSession,
  exportSessionJson,
  exportSessionMarkdown,
  getSession,
  listSessions,
  synthesizeVerdict,
} from '../../sdk/src/index.js';
import { askProvider, runDeepDebate } from '../support/attached.js';
import { type Caller, type RunningServer, startServer } from '../support/server.js';
import { readSse } from '../support/sse.js';

let server: RunningServer;
let client: ReturnType<typeof createConsiliumClient>;

beforeAll(async () => {
  server = await startServer();
  client = server.client;
});
afterAll(() => server.close());

const MISSING = 'ses_01JD3W8Y6Q2N5Z4K7M9P1R3T5V';

async function events(on: Caller, id: string, lastEventId?: number, stopAfter = Number.POSITIVE_INFINITY) {
  const controller = new AbortController();
  const res = await on.fetch(`/sessions/${id}/events`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const got: DebateEvent[] = [];
  try {
    for await (const message of readSse(res)) {
      const event = JSON.parse(message.data) as DebateEvent;
      expect(message.id).toBe(String(event.seq));
      got.push(event);
      if (got.length >= stopAfter) break;
    }
  } finally {
    controller.abort();
  }
  return got;
}

async function streamedDebate(on: Caller, question: string, rounds = 2) {
  const res = await on.fetch('/consilium/deep/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question, rounds }),
  });
  const got: DebateEvent[] = [];
  for await (const message of readSse(res)) got.push(JSON.parse(message.data) as DebateEvent);
  return got;
}

describe('a finished session', () => {
  it('reads back exactly as the debate returned it, from the cache and from the database alike', async () => {
    const { data: ran } = await runDeepDebate({ client, body: { question: 'Shard the sessions table?', rounds: 3 } });
    expect(ran!.status).toBe('completed');
    const { data: read, response } = await getSession({ client, path: { sessionId: ran!.id } });
    expect(response.status).toBe(200);
    expect(read).toStrictEqual(ran);
    const fromDb = await server.sessions.store.get(ran!.id);
    expect(server.sessions.cache.get(ran!.id)).toStrictEqual(fromDb);
    expect(fromDb).toStrictEqual(ran);
  });

  it('is served from the cache without touching the database', async () => {
    const { data: ran } = await askProvider({ client, path: { provider: 'openai' }, body: { question: 'Cached?' } });
    const spy = vi.spyOn(server.sessions.store, 'get');
    try {
      for (let i = 0; i < 3; i++) {
        const { response } = await getSession({ client, path: { sessionId: ran!.sessionId } });
        expect(response.status).toBe(200);
      }
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('exports as JSON and as readable Markdown, both as attachments', async () => {
    const { data: ran } = await runDeepDebate({ client, body: { question: 'Export <b>me</b>?', rounds: 2 } });
    const json = await exportSessionJson({ client, path: { sessionId: ran!.id } });
    expect(json.response.headers.get('content-disposition')).toBe(`attachment; filename="${ran!.id}.json"`);
    expect(json.data).toStrictEqual(ran);

    const md = await exportSessionMarkdown({ client, path: { sessionId: ran!.id }, parseAs: 'text' });
    expect(md.response.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.response.headers.get('content-disposition')).toBe(`attachment; filename="${ran!.id}.md"`);
    const text = md.data as unknown as string;
    expect(text.startsWith('# Export \\<b\\>me\\</b\\>?\n')).toBe(true);
    for (const heading of [
      '## Round 1: independent',
      '## Round 2: final',
      '## Consensus',
      '## Verdict',
      '### P0',
      '### P1',
      '### P2',
    ]) {
      expect(text).toContain(heading);
    }
  });

  it('replays every event of the stream, in order, and resumes after Last-Event-ID with no gap or duplicate', async () => {
    const streamed = await streamedDebate(server, 'Replay me?');
    const id = streamed[0]!.sessionId;
    const replayed = await events(server, id);
    expect(replayed).toStrictEqual(streamed);
    expect(replayed.map((e) => e.seq)).toEqual(streamed.map((_, i) => i + 1));
    const resumed = await events(server, id, 10);
    expect(resumed).toStrictEqual(streamed.slice(10));
  });
});

describe('GET /sessions', () => {
  it('lists newest first, page by page with a cursor, each session once', async () => {
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data } = await askProvider({ client, path: { provider: 'google' }, body: { question: `Paged question ${i}?` } });
      mine.push(data!.sessionId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { data, error } = await listSessions({ client, query: { limit: 2, q: 'paged QUESTION', ...(cursor && { cursor }) } });
      expect(error).toBeUndefined();
      expect(data!.items.length).toBeLessThanOrEqual(2);
      seen.push(...data!.items.map((s) => s.id));
      cursor = data!.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...mine].reverse());
  });

  it('filters by question text, case-insensitively, taking % and _ literally', async () => {
    await askProvider({ client, path: { provider: 'xai' }, body: { question: 'Is 100% coverage worth it?' } });
    await askProvider({ client, path: { provider: 'xai' }, body: { question: 'Is 1000 coverage worth it?' } });
    const { data } = await listSessions({ client, query: { q: '100% COVERAGE' } });
    expect(data!.items.map((s) => s.question)).toEqual(['Is 100% coverage worth it?']);
  });

  it('refuses a cursor it did not give out with a 400 problem', async () => {
    const res = await server.fetch(`/sessions?cursor=bm90LWEtY3Vyc29y`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'query.cursor' }] });
  });
});

describe('not found', () => {
  it('answers 404 not_found for a session that does not exist, on every history operation', async () => {
    for (const path of ['', '/events', '/export/markdown', '/export/json']) {
      const res = await server.fetch(`/sessions/${MISSING}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
    const { response } = await deleteSession({ client, path: { sessionId: MISSING } });
    expect(response.status).toBe(404);
  });
});

describe('DELETE /sessions/{id}', () => {
  it('removes the session and its events', async () => {
    const { data } = await askProvider({ client, path: { provider: 'openai' }, body: { question: 'Delete me?' } });
    const id = data!.sessionId;
    const { response } = await deleteSession({ client, path: { sessionId: id } });
    expect(response.status).toBe(204);
    expect((await getSession({ client, path: { sessionId: id } })).response.status).toBe(404);
    expect(await server.sessions.store.get(id)).toBeUndefined();
    expect(await server.sessions.store.events(id, 0)).toEqual([]);
    const { data: list } = await listSessions({ client, query: { q: 'Delete me' } });
    expect(list!.items).toEqual([]);
  });
});

describe('POST /synthesize from a stored session', () => {
  it('writes a verdict from the session’s answers', async () => {
    const { data: ran } = await runDeepDebate({ client, body: { question: 'Synthesize me later?', rounds: 2 } });
    const { data, error } = await synthesizeVerdict({ client, body: { sessionId: ran!.id } });
    expect(error).toBeUndefined();
    expect(data!.sessionId).not.toBe(ran!.id);
    expect(data!.verdict.format).toBe('structured');
    const { data: stored } = await getSession({ client, path: { sessionId: data!.sessionId } });
    expect(stored).toMatchObject({ mode: 'synthesis', question: 'Synthesize me later?', verdict: data!.verdict });
  });
});

describe('a running session', () => {
  let slow: RunningServer;
  beforeAll(async () => {
    slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '2' });
  });
  afterAll(() => slow.close());

  it('is followed live from another connection, and a dropped follower resumes with no gap and no duplicate', async () => {
    const streaming = streamedDebate(slow, 'Follow me live?');
    const list = async () => (await listSessions({ client: slow.client })).data!.items;
    await vi.waitFor(async () => expect((await list()).some((s) => s.status === 'running')).toBe(true), { timeout: 30_000 });
    const id = (await list()).find((s) => s.status === 'running')!.id;

    const first = await events(slow, id, undefined, 25);
    expect(first.map((e) => e.seq)).toEqual(first.map((_, i) => i + 1));
    const rest = await events(slow, id, first.at(-1)!.seq);
    const streamed = await streaming;
    expect(rest.at(-1)!.type).toBe('session.ended');
    expect([...first, ...rest]).toStrictEqual(streamed);
  });

  it('is cancelled by its deletion, and does not come back', async () => {
    const slowClient = slow.client;
    const streaming = streamedDebate(slow, 'Delete me while running?', 3);
    let id: string | undefined;
    await vi.waitFor(
      async () => {
        const { data } = await listSessions({ client: slowClient, query: { q: 'while running' } });
        id = data!.items.find((s) => s.status === 'running')?.id;
        expect(id).toBeDefined();
      },
      { timeout: 30_000 },
    );
    const { response } = await deleteSession({ client: slowClient, path: { sessionId: id! } });
    expect(response.status).toBe(204);
    const streamed = await streaming;
    expect(streamed.at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    expect((await getSession({ client: slowClient, path: { sessionId: id! } })).response.status).toBe(404);
    expect(await slow.sessions.store.get(id!)).toBeUndefined();
  });
});
