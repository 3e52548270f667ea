/**
 * `detach` on `POST /consilium/deep/stream`, over the real HTTP server with the offline models: a
 * detached run outlives its client, is recorded whole and replays from `/sessions/{id}/events`; it
 * holds the user's running-debate slot until the run (not the connection) ends; DELETE still cancels
 * it. Without `detach`, a client going away still cancels the run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../sdk/src/index.js';
import { type RunningServer, startServer } from '../support/server.js';
import { readEvents } from './fault-providers.js';

// Slow enough that a 2-round debate takes a few seconds, so the client leaves mid-stream.
const ENV = {
  CONSILIUM_OFFLINE_TOKEN_MS: '4',
  CONSILIUM_RATE_LIMITS: 'on',
  CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '1',
  CONSILIUM_LIMIT_DEBATES_PER_USER: '1000/1h',
};

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a stream, reads until the first answer delta, then drops the connection; the session's id. */
async function startAndLeave(s: RunningServer, detach?: boolean): Promise<{ id: string; seen: DebateEvent[] }> {
  const client = new AbortController();
  const res = await s.fetch('/consilium/deep/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ question: 'Monorepo or many repos?', rounds: 2, ...(detach !== undefined && { detach }) }),
    signal: client.signal,
  });
  expect(res.status).toBe(200);
  const seen: DebateEvent[] = [];
  for await (const e of readEvents(res.body!)) {
    seen.push(e.data as DebateEvent);
    if (e.event === 'answer.delta') break;
  }
  client.abort();
  return { id: seen[0]!.sessionId, seen };
}

/** Every event of a session, replayed (and followed while it runs) from `/sessions/{id}/events`. */
async function replay(s: RunningServer, id: string): Promise<DebateEvent[]> {
  const res = await s.fetch(`/sessions/${id}/events`, { headers: { accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  const all: DebateEvent[] = [];
  for await (const e of readEvents(res.body!)) all.push(e.data as DebateEvent);
  return all;
}

const startAnother = (s: RunningServer) =>
  s.fetch('/consilium/deep', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Another?', rounds: 2 }),
  });

describe('POST /consilium/deep/stream with detach', () => {
  it('runs on after its client leaves, holds the running slot until the run ends, and replays in full', async () => {
    server = await startServer(ENV);
    const { id, seen } = await startAndLeave(server, true);
    // The client is gone but the run still counts against the one running debate allowed.
    const refused = await startAnother(server);
    expect(refused.status).toBe(429);

    const events = await replay(server, id);
    // What the client saw is the start of what was recorded, and the record is whole and in order.
    expect(events.slice(0, seen.length)).toEqual(seen);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(events.some((e) => e.type === 'verdict')).toBe(true);
    const stored = await server.fetch(`/sessions/${id}`);
    expect(await stored.json()).toMatchObject({ id, status: 'completed', verdict: expect.any(Object) });

    // The run has ended, so its slot is free again.
    await expect.poll(async () => (await startAnother(server!)).status, { timeout: 20_000 }).toBe(200);
  });

  it('is cancelled by DELETE /sessions/{id}, which frees the running slot', async () => {
    server = await startServer(ENV);
    const { id } = await startAndLeave(server, true);
    expect((await startAnother(server)).status).toBe(429);
    const deleted = await server.fetch(`/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await expect.poll(async () => (await startAnother(server!)).status, { timeout: 10_000 }).toBe(200);
    expect((await server.fetch(`/sessions/${id}`)).status).toBe(404);
  });

  it('without detach, a client that leaves cancels the run and frees the slot at once', async () => {
    server = await startServer(ENV);
    const { id } = await startAndLeave(server, false);
    await expect
      .poll(async () => ((await (await server!.fetch(`/sessions/${id}`)).json()) as { status: string }).status, {
        timeout: 10_000,
      })
      .toBe('cancelled');
    const events = await replay(server, id);
    expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    expect(events.some((e) => e.type === 'verdict')).toBe(false);
    expect((await startAnother(server)).status).toBe(200);
  });
});

/** Starts a JSON operation, waits until its session runs, then drops the connection; the session's id. */
async function startJsonAndLeave(s: RunningServer, path: string, body: object): Promise<string> {
  const client = new AbortController();
  const request = s
    .fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: client.signal,
    })
    .catch(() => undefined);
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        const page = (await (await s.fetch('/sessions?limit=5')).json()) as { items: { id: string; status: string }[] };
        id = page.items.find((i) => i.status === 'running')?.id;
        return id;
      },
      { timeout: 10_000, interval: 20 },
    )
    .toBeDefined();
  client.abort();
  await request;
  return id!;
}

describe('detach on single, parallel and follow-up runs', () => {
  const finished = async (s: RunningServer, id: string) => {
    const events = await replay(s, id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    return events.at(-1)!;
  };

  it('a detached run outlives its client and is recorded whole; without detach, leaving cancels it', async () => {
    server = await startServer({ ...ENV, CONSILIUM_OFFLINE_TOKEN_MS: '6' });
    const single = await startJsonAndLeave(server, '/ask/openai', { question: 'Tabs or spaces?', detach: true });
    expect(await finished(server, single)).toMatchObject({ type: 'session.ended', status: 'completed' });

    const parallel = await startJsonAndLeave(server, '/consilium', { question: 'Vim or Emacs?', detach: true });
    expect(await finished(server, parallel)).toMatchObject({ type: 'session.ended', status: 'completed' });
    const stored = (await (await server.fetch(`/sessions/${parallel}`)).json()) as { rounds: { answers: unknown[] }[] };
    expect(stored.rounds[0]!.answers).toHaveLength(5);

    const followUp = await startJsonAndLeave(server, `/sessions/${parallel}/follow-ups`, {
      question: 'And for a team of two?',
      mode: 'single',
      detach: true,
    });
    expect(await finished(server, followUp)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(await (await server.fetch(`/sessions/${followUp}`)).json()).toMatchObject({ parentId: parallel });

    const attached = await startJsonAndLeave(server, '/consilium', { question: 'Leave and cancel?' });
    expect(await finished(server, attached)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
  });

  it('a detached run holds the running slot until it ends, and DELETE cancels it', async () => {
    server = await startServer({ ...ENV, CONSILIUM_OFFLINE_TOKEN_MS: '6' });
    const id = await startJsonAndLeave(server, '/consilium', { question: 'Held?', detach: true });
    expect((await startAnother(server)).status).toBe(429);
    expect((await server.fetch(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    await expect.poll(async () => (await startAnother(server!)).status, { timeout: 10_000 }).toBe(200);
  });
});
