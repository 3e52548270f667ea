/**
 * `detach` over the real HTTP server with the offline models. On `POST /consilium/deep/stream` a
 * detached run outlives its client, is recorded whole and replays from `/sessions/{id}/events`; it
 * holds the user's running-debate slot until the run (not the connection) ends; DELETE still cancels
 * it. Without `detach`, a client going away still cancels the run. The JSON operations (single,
 * parallel, deep, follow-up) answer a detached run at once: `202`, its id and `Location`.
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

  it('is stopped by POST /sessions/{id}/cancel, which keeps the session, what it said, and frees the slot', async () => {
    server = await startServer(ENV);
    const { id, seen } = await startAndLeave(server, true);
    expect((await startAnother(server)).status).toBe(429);
    const follower = replay(server, id);

    const res = await server.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    const cancelled = (await res.json()) as { id: string; status: string; verdict?: unknown };
    expect(cancelled).toMatchObject({ id, status: 'cancelled' });
    expect(cancelled.verdict).toBeUndefined();
    // The answer is the session as stored, and a follower's stream ends with it.
    expect(await (await server.fetch(`/sessions/${id}`)).json()).toEqual(cancelled);
    const events = await follower;
    expect(events.slice(0, seen.length)).toEqual(seen);
    expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    expect((await startAnother(server)).status).toBe(200);

    // Cancelling again changes nothing: the session comes back as it ended.
    const again = await server.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(cancelled);
  });

  it('POST /sessions/{id}/cancel answers 404 for a session that is not the caller’s', async () => {
    server = await startServer(ENV);
    const { id } = await startAndLeave(server, true);
    const bob = await server.newUser();
    const res = await bob.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await (await server.fetch(`/sessions/${id}`)).json()) as { status: string }).status).toBe('running');
    await server.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
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

/** Starts a detached JSON operation: its `202` answer, checked, and the session's id. */
async function startDetached(s: RunningServer, path: string, body: object): Promise<string> {
  const res = await s.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, detach: true }),
  });
  expect(res.status).toBe(202);
  const accepted = (await res.json()) as { sessionId: string; status: string };
  expect(accepted).toEqual({ sessionId: expect.stringMatching(/^ses_[0-9A-Z]{26}$/), status: 'running' });
  expect(res.headers.get('location')).toBe(`/sessions/${accepted.sessionId}`);
  // Readable at once: stored as running before the answer left.
  const stored = await s.fetch(res.headers.get('location')!);
  expect(stored.status).toBe(200);
  expect(((await stored.json()) as { status: string }).status).toBe('running');
  return accepted.sessionId;
}

const sessionCount = async (s: RunningServer) =>
  ((await (await s.fetch('/sessions?limit=100')).json()) as { items: unknown[] }).items.length;

describe('detach on single, parallel, deep and follow-up runs', () => {
  const finished = async (s: RunningServer, id: string) => {
    const events = await replay(s, id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'session.started', sessionId: id });
    return events.at(-1)!;
  };

  it('answers 202 with the id and Location at once; the run is readable, streams to its end and is stored whole', async () => {
    server = await startServer({ ...ENV, CONSILIUM_OFFLINE_TOKEN_MS: '6', CONSILIUM_LIMIT_RUNNING_DEBATES_PER_USER: '5' });
    const single = await startDetached(server, '/ask/openai', { question: 'Tabs or spaces?' });
    expect(await finished(server, single)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(await (await server.fetch(`/sessions/${single}`)).json()).toMatchObject({ mode: 'single', status: 'completed' });

    const parallel = await startDetached(server, '/consilium', { question: 'Vim or Emacs?' });
    expect(await finished(server, parallel)).toMatchObject({ type: 'session.ended', status: 'completed' });
    const stored = (await (await server.fetch(`/sessions/${parallel}`)).json()) as { rounds: { answers: unknown[] }[] };
    expect(stored.rounds[0]!.answers).toHaveLength(5);

    const deep = await startDetached(server, '/consilium/deep', { question: 'Rewrite or refactor?', rounds: 2 });
    expect(await finished(server, deep)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(await (await server.fetch(`/sessions/${deep}`)).json()).toMatchObject({ mode: 'deep', verdict: expect.any(Object) });

    const followUp = await startDetached(server, `/sessions/${parallel}/follow-ups`, {
      question: 'And for a team of two?',
      mode: 'single',
    });
    expect(await finished(server, followUp)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(await (await server.fetch(`/sessions/${followUp}`)).json()).toMatchObject({ parentId: parallel });
  });

  it('without detach, the answer is the finished result, and a client leaving cancels the run', async () => {
    server = await startServer({ ...ENV, CONSILIUM_OFFLINE_TOKEN_MS: '6' });
    const res = await server.fetch('/consilium', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Attached?', detach: false }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toMatchObject({ status: 'completed', answers: expect.any(Array) });

    const attached = await startJsonAndLeave(server, '/consilium', { question: 'Leave and cancel?' });
    expect(await finished(server, attached)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
  });

  it('a detached run holds the running slot until it ends, and DELETE cancels it', async () => {
    server = await startServer({ ...ENV, CONSILIUM_OFFLINE_TOKEN_MS: '6' });
    const id = await startDetached(server, '/consilium', { question: 'Held?' });
    expect((await startAnother(server)).status).toBe(429);
    expect((await server.fetch(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    await expect.poll(async () => (await startAnother(server!)).status, { timeout: 10_000 }).toBe(200);
    expect((await server.fetch(`/sessions/${id}`)).status).toBe(404);
  });

  it('bad input with detach is still a problem, and nothing is written', async () => {
    server = await startServer(ENV);
    const before = await sessionCount(server);
    const post = (path: string, body: object) =>
      server!.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const [path, body, status, code] of [
      ['/ask/openai', { question: '', detach: true }, 400, 'validation_failed'],
      ['/ask/nobody', { question: 'Who?', detach: true }, 404, 'unknown_provider'],
      ['/consilium', { question: 'Which?', slots: [9], detach: true }, 400, 'validation_failed'],
      ['/consilium/deep', { question: 'How deep?', rounds: 9, detach: true }, 400, 'validation_failed'],
      ['/consilium/deep', { question: 'Detached how?', detach: 'yes' }, 400, 'validation_failed'],
      ['/sessions/ses_00000000000000000000000000/follow-ups', { question: 'Whose?', detach: true }, 404, 'not_found'],
    ] as const) {
      const res = await post(path, body);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe(code);
    }
    expect(await sessionCount(server)).toBe(before);
  });
});
