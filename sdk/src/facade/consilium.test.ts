/**
 * The facade's hooks for a consumer that drives its own view (the web UI): `onError`, `settle` for operations the
 * facade has no method for, and `sessions.follow`'s reconnection (`onReconnect`, unlimited retries, server errors
 * retried). A fake server behind msw; the facade against the real one is `test/sdk/facade.test.ts`.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsiliumError } from '../errors.js';
import { getHealth } from '../generated/sdk.gen.js';
import type { DebateEvent } from '../generated/types.gen.js';
import { Consilium } from './consilium.js';

const BASE = 'http://consilium.test';
const ID = 'ses_0123456789ab';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const ts = '2026-11-26T17:00:00.000Z';
const roundStarted = (seq: number): DebateEvent => ({
  v: 1,
  type: 'round.started',
  sessionId: ID,
  seq,
  ts,
  round: 1,
  kind: 'independent',
  slots: [1],
});
const ended = (seq: number): DebateEvent => ({
  v: 1,
  type: 'session.ended',
  sessionId: ID,
  seq,
  ts,
  status: 'completed',
  missingSlots: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  cost: { usd: 0, priced: true },
});
/** An event stream as the server writes it, closed after `events`. */
const sse = (events: DebateEvent[]) =>
  new HttpResponse(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\nid: ${e.seq}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });
const problem = (status: number, code: string, title: string) =>
  HttpResponse.json(
    { type: `https://consilium.dev/problems/${code}`, title, status, code, requestId: 'req_1' },
    { status, headers: { 'content-type': 'application/problem+json' } },
  );

/** Serves the session's event streams from `answers` in turn, recording each request's `Last-Event-ID`. */
function eventStreams(answers: (() => Response)[]) {
  const lastEventIds: (string | null)[] = [];
  server.use(
    http.get(`${BASE}/sessions/${ID}/events`, ({ request }) => {
      lastEventIds.push(request.headers.get('last-event-id'));
      return answers[lastEventIds.length - 1]!();
    }),
  );
  return lastEventIds;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('onError and settle', () => {
  it('settles a generated operation called with the facade client: its data', async () => {
    server.use(http.get(`${BASE}/health`, () => HttpResponse.json({ status: 'ok', version: '1.0.0', uptimeSeconds: 3 })));
    const c = new Consilium({ baseUrl: BASE });
    expect(await c.settle(getHealth({ client: c.client }))).toEqual({ status: 'ok', version: '1.0.0', uptimeSeconds: 3 });
  });

  it('tells onError of a failed call once, with the error then thrown, for settle and the methods alike', async () => {
    server.use(
      http.get(`${BASE}/health`, () => problem(401, 'unauthorized', 'Sign in first')),
      http.get(`${BASE}/auth/me`, () => problem(401, 'unauthorized', 'Sign in first')),
    );
    const told: ConsiliumError[] = [];
    const c = new Consilium({ baseUrl: BASE, onError: (error) => told.push(error) });
    const settled = await c.settle(getHealth({ client: c.client })).catch((e: unknown) => e);
    const me = await c.auth.me().catch((e: unknown) => e);
    expect(settled).toBeInstanceOf(ConsiliumError);
    expect(settled).toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req_1' });
    expect(told).toEqual([settled, me]);
    expect(told[1]).toBe(me);
  });

  it("tells onError of a stream's failure once, as it is thrown", async () => {
    const lastEventIds = eventStreams([() => problem(404, 'not_found', 'No such session')]);
    const told: ConsiliumError[] = [];
    const c = new Consilium({ baseUrl: BASE, onError: (error) => told.push(error) });
    const error = await collect(c.sessions.follow(ID, { retryDelayMs: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsiliumError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(told).toEqual([error]);
    // A refusal is not retried.
    expect(lastEventIds).toEqual([null]);
  });
});

describe('sessions.follow', () => {
  it('tells onReconnect of each reconnection and why, retries a server error, and resumes after the last event', async () => {
    const lastEventIds = eventStreams([
      () => sse([roundStarted(1)]),
      () => problem(503, 'store_unavailable', 'The store is not answering'),
      () => sse([roundStarted(1), ended(2)]),
    ]);
    const reconnects: [number, ConsiliumError | undefined][] = [];
    const c = new Consilium({ baseUrl: BASE });
    const events = await collect(
      c.sessions.follow(ID, { retryDelayMs: 1, onReconnect: (attempt, failure) => reconnects.push([attempt, failure]) }),
    );
    expect(events.map((e) => e.seq)).toEqual([1, 2]);
    expect(lastEventIds).toEqual([null, '1', '1']);
    expect(reconnects.map(([attempt]) => attempt)).toEqual([1, 2]);
    // The first stream closed before the session ended; the second answered 503.
    expect(reconnects[0]![1]).toBeUndefined();
    expect(reconnects[1]![1]).toMatchObject({ status: 503, code: 'store_unavailable' });
  });

  it('gives up after maxRetries reconnections without an event, and keeps trying with Infinity', async () => {
    const closing = Array.from({ length: 7 }, () => () => sse([]));
    eventStreams([...closing, () => sse([ended(1)])]);
    const c = new Consilium({ baseUrl: BASE });
    const error = await collect(c.sessions.follow(ID, { retryDelayMs: 1, maxRetries: 5 })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network_error' });

    const lastEventIds = eventStreams([...closing, () => sse([ended(1)])]);
    const events = await collect(c.sessions.follow(ID, { retryDelayMs: 1, maxRetries: Number.POSITIVE_INFINITY }));
    expect(events.map((e) => e.type)).toEqual(['session.ended']);
    expect(lastEventIds).toHaveLength(8);
  });

  it('starts after lastEventId, and stops when its signal aborts', async () => {
    const controller = new AbortController();
    const lastEventIds = eventStreams([() => sse([roundStarted(4)]), () => sse([])]);
    const c = new Consilium({ baseUrl: BASE });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const event of c.sessions.follow(ID, { lastEventId: 3, signal: controller.signal, retryDelayMs: 1 })) {
        seen.push(event.seq);
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([4]);
    expect(lastEventIds).toEqual(['3']);
    expect(error).toMatchObject({ code: 'aborted' });
  });
});

describe('debates.run', () => {
  it('sends earlyStop with the other deep options', async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE}/consilium/deep`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ sessionId: ID, status: 'running' }, { status: 202 });
      }),
    );
    const accepted = await new Consilium({ baseUrl: BASE }).debates.run('Tabs or spaces?', {
      rounds: 3,
      quorum: 2,
      earlyStop: true,
      detach: true,
    });
    expect(accepted).toEqual({ sessionId: ID, status: 'running' });
    expect(body).toEqual({ question: 'Tabs or spaces?', rounds: 3, quorum: 2, earlyStop: true, detach: true });
  });

  it('sends the panel options: slots, synthesizer, anonymous, ranking, models', async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE}/consilium/deep`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ sessionId: ID, status: 'running' }, { status: 202 });
      }),
    );
    await new Consilium({ baseUrl: BASE }).debates.run('Tabs or spaces?', {
      slots: [2, 3],
      synthesizer: 1,
      anonymous: false,
      ranking: true,
      models: [{ slot: 2, model: 'gpt-4.1-mini' }],
      detach: true,
    });
    expect(body).toEqual({
      question: 'Tabs or spaces?',
      slots: [2, 3],
      synthesizer: 1,
      anonymous: false,
      ranking: true,
      models: [{ slot: 2, model: 'gpt-4.1-mini' }],
      detach: true,
    });
  });
});
