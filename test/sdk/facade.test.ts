/**
 * The `Consilium` facade against the real server on loopback: data or a typed `ConsiliumError`
 * (for streams too), typed debate events, pages as an async iterator, and a session stream that
 * resumes by `Last-Event-ID` after its connection drops.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { Consilium, ConsiliumError, type DebateAccepted, type DebateEvent, type Session } from '../../sdk/src/index.js';
import { storeInterrupted } from '../support/fake-debate.js';
import { type RunningServer, startServer } from '../support/server.js';

let server: RunningServer;
let c: Consilium;

beforeAll(async () => {
  server = await startServer();
  c = new Consilium({ baseUrl: server.baseUrl, ...tokenOf(server) });
});
afterAll(() => server?.close());

/** The server's signed-in token, once the test server has accounts. */
function tokenOf(s: RunningServer): { token?: string } {
  const token = (s as { token?: string }).token;
  return token ? { token } : {};
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<ConsiliumError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConsiliumError);
  return error as ConsiliumError;
}

/** A fetch whose first event-stream answer is cut off (as a dropped connection) after `bytes` bytes. */
function droppingFetch(bytes: number) {
  const requests: Request[] = [];
  let dropped = false;
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push(request.clone());
    const response = await fetch(request);
    if (dropped || !response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) return response;
    dropped = true;
    const reader = response.body.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (sent + value.byteLength >= bytes) {
          controller.enqueue(value.subarray(0, bytes - sent));
          await reader.cancel();
          controller.error(new TypeError('terminated'));
          return;
        }
        sent += value.byteLength;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: fetchFn, requests };
}

describe('Consilium', () => {
  it('signIn: a username and password become a client with its own API token, named as asked', async () => {
    const { consilium, token } = await Consilium.signIn({
      baseUrl: server.baseUrl,
      username: 'admin',
      password: server.adminPassword,
      tokenName: 'facade-sign-in',
    });
    expect(token).toMatchObject({ name: 'facade-sign-in', token: expect.stringMatching(/^csk_/) });
    expect((await consilium.auth.me()).username).toBe('admin');
    expect((await consilium.auth.tokens.list()).map((t) => t.id)).toContain(token.id);
    const refused = await rejection(Consilium.signIn({ baseUrl: server.baseUrl, username: 'admin', password: 'not it' }));
    expect([refused.status, refused.code]).toEqual([401, 'unauthorized']);
  });

  it('returns typed data', async () => {
    const health = await c.health();
    expect(health.status).toBe('ok');
    const providers = await c.providers();
    expect(providers.slots.map((s) => s.slot)).toEqual([1, 2, 3, 4, 5]);
    const answer = await c.ask('What is 2 + 2?', { slot: 3 });
    expect(answer.answer.slot).toBe(3);
    expect(answer.answer.provider).toBe('deepseek');
  });

  it('streams a debate as typed events, then reads the session back', async () => {
    const events = await collect(c.debates.stream('Tabs or spaces?', { rounds: 2 }));
    expectTypeOf(events).toEqualTypeOf<DebateEvent[]>();
    expect(events[0]?.type).toBe('session.started');
    const end = events.at(-1)!;
    expect(end.type).toBe('session.ended');
    expect(events.filter((e) => e.type === 'round.started').map((e) => (e.type === 'round.started' ? e.round : 0))).toEqual([
      1, 2,
    ]);
    expect(events.some((e) => e.type === 'verdict')).toBe(true);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const session = await c.sessions.get(end.sessionId);
    expect(session.status).toBe('completed');
    expect(session.rounds).toHaveLength(2);
  });

  it('throws the problem of a refused stream as a ConsiliumError with code, errors and requestId', async () => {
    const error = await rejection(collect(c.debates.stream('', { rounds: 9 })));
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(400);
    expect(error.errors.map((e) => e.path).sort()).toEqual(['body.question', 'body.rounds']);
    expect(error.requestId).toMatch(/\S/);
    expect(error.message).toMatch(/body\.rounds/);
  });

  it('throws the problem of a plain call the same way', async () => {
    const error = await rejection(c.debates.run('Why?', { rounds: 9 }));
    expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(error.errors.map((e) => e.path)).toEqual(['body.rounds']);
    const missing = await rejection(c.sessions.get('ses_00000000000000000000000000'));
    expect(missing.code).toBe('not_found');
    expect(missing.status).toBe(404);
    expect(missing.requestId).toMatch(/\S/);
  });

  it("asks a follow-up in a finished session's thread and returns the finished session", async () => {
    const first = await c.debates.run('Which queue?', { rounds: 2 });
    const deep = await c.sessions.followUp(first.id, 'And at ten times the load?', { rounds: 2 });
    expectTypeOf(deep).toEqualTypeOf<Session>();
    // The parent's mode (deep) by default, with the rounds asked for, linked into the parent's thread.
    expect(deep).toMatchObject({ mode: 'deep', status: 'completed', parentId: first.id, threadId: first.id });
    expect(deep.rounds.map((r) => r.kind)).toEqual(['independent', 'final']);
    expect(deep.verdict).toBeDefined();
    const single = await c.sessions.followUp(deep.id, 'One word?', { mode: 'single', slot: 4 });
    expect(single).toMatchObject({ mode: 'single', parentId: deep.id, threadId: first.id });
    expect(single.rounds[0]?.answers.map((a) => [a.slot, a.provider])).toEqual([[4, 'google']]);
    const parallel = await c.sessions.followUp(first.id, 'Side by side?', { mode: 'parallel', slots: [1, 3] });
    expect(parallel.rounds[0]?.answers.map((a) => a.slot).sort()).toEqual([1, 3]);

    expect((await rejection(c.sessions.followUp(first.id, 'Why?', { slot: 1, provider: 'xai' }))).code).toBe('validation_failed');
    expect((await rejection(c.sessions.followUp(first.id, 'Why?', { slot: 9 }))).code).toBe('not_found');
    const refused = await rejection(c.sessions.followUp(first.id, 'Why?', { mode: 'deep', rounds: 9 }));
    expect(refused).toMatchObject({ code: 'validation_failed', status: 400 });
    const missing = await rejection(c.sessions.followUp('ses_00000000000000000000000000', 'Why?'));
    expect(missing).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('detach: returns the session id at once, and the run is followed to its end', async () => {
    const single = await c.ask('Detached, one?', { slot: 2, detach: true });
    expect(single).toEqual({ sessionId: expect.stringMatching(/^ses_/), status: 'running' });
    const deep = await c.debates.run('Detached, deep?', { rounds: 2, detach: true });
    expect(deep.status).toBe('running');
    const events = await collect(c.sessions.follow(deep.sessionId));
    expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
    expect(await c.sessions.get(deep.sessionId)).toMatchObject({ mode: 'deep', verdict: expect.any(Object) });
    const parallel = await c.debates.parallel('Detached, side by side?', { slots: [1, 3], detach: true });
    const followUp = await c.sessions.followUp(deep.sessionId, 'And then?', { mode: 'single', detach: true });
    for (const id of [single.sessionId, parallel.sessionId, followUp.sessionId]) {
      expect((await collect(c.sessions.follow(id))).at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
    }
  });

  it('sessions.cancel stops a detached run and keeps the session; an unknown id is not_found', async () => {
    // Slow offline models, so the run is still going when it is cancelled.
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '5' });
    try {
      const sc = new Consilium({ baseUrl: slow.baseUrl, ...tokenOf(slow) });
      const { sessionId } = await sc.debates.run('Cancel me?', { rounds: 3, detach: true });
      const cancelled = await sc.sessions.cancel(sessionId);
      expectTypeOf(cancelled).toEqualTypeOf<Session>();
      expect(cancelled).toMatchObject({ id: sessionId, status: 'cancelled' });
      expect(await sc.sessions.get(sessionId)).toEqual(cancelled);
      expect(await rejection(sc.sessions.cancel('ses_00000000000000000000000000'))).toMatchObject({
        code: 'not_found',
        status: 404,
      });
    } finally {
      await slow.close();
    }
  });

  it('sessions.continue goes on with an interrupted session in place; follow from the last event reads it to its end', async () => {
    const d = await storeInterrupted(server.sessions.store, server.user.id);
    const id = d.session.id;
    const accepted = await c.sessions.continue(id, { detach: true });
    expectTypeOf(accepted).toEqualTypeOf<DebateAccepted>();
    expect(accepted).toEqual({ sessionId: id, status: 'running' });
    const rest = await collect(c.sessions.follow(id, { lastEventId: d.lastSeq }));
    expect(rest[0]).toMatchObject({ type: 'round.started', round: 2, slots: [4, 5] });
    expect(rest.filter((e) => e.type === 'session.ended')).toEqual([rest.at(-1)]);
    expect(rest.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
    const refused = await rejection(c.sessions.continue(id));
    expect(refused).toMatchObject({ code: 'conflict', status: 409 });
    // Attached: the session once it has ended.
    const again = await storeInterrupted(server.sessions.store, server.user.id);
    const session = await c.sessions.continue(again.session.id);
    expectTypeOf(session).toEqualTypeOf<Session>();
    expect(session).toMatchObject({ id: again.session.id, status: 'completed' });
    expect(await rejection(c.sessions.continue('ses_00000000000000000000000000'))).toMatchObject({ code: 'not_found' });
  });

  it('sessions.share, shares, unshare and archive; rerun starts the session again with its settings', async () => {
    const other = await server.newUser();
    const asOther = new Consilium({ baseUrl: server.baseUrl, token: other.token });
    const { sessionId } = await c.debates.parallel('Facade: share and re-run?', { slots: [2, 4], detach: true });
    for await (const _ of c.sessions.follow(sessionId)) {
      // to its end
    }
    expect((await rejection(asOther.sessions.get(sessionId))).code).toBe('not_found');
    const share = await c.sessions.share(sessionId, other.user.username);
    expect(share).toMatchObject({ userId: other.user.id, username: other.user.username });
    expect(await c.sessions.shares(sessionId)).toStrictEqual([share]);
    expect((await asOther.sessions.get(sessionId)).id).toBe(sessionId);
    expect((await collect(asOther.sessions.list({ shared: true }))).map((s) => s.id)).toStrictEqual([sessionId]);
    expect((await rejection(asOther.sessions.archive(sessionId))).code).toBe('not_found');
    await c.sessions.unshare(sessionId, other.user.id);
    expect((await rejection(asOther.sessions.get(sessionId))).code).toBe('not_found');

    expect((await c.sessions.archive(sessionId)).archivedAt).toEqual(expect.any(String));
    expect((await collect(c.sessions.list({ archived: true }))).map((s) => s.id)).toContain(sessionId);
    expect((await c.sessions.archive(sessionId, false)).archivedAt).toBeUndefined();

    const again = await c.sessions.rerun(sessionId, { question: 'Facade: edited and resent?' });
    for await (const _ of c.sessions.follow(again.sessionId)) {
      // to its end
    }
    const rerun = await c.sessions.get(again.sessionId);
    expect(rerun).toMatchObject({ mode: 'parallel', question: 'Facade: edited and resent?' });
    expect(rerun.rounds[0]!.answers.map((a) => a.slot).sort()).toStrictEqual([2, 4]);
  });

  it('says network_error when nothing answers', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const offline = new Consilium({ baseUrl: `http://127.0.0.1:${port}` });
    expect((await rejection(offline.health())).code).toBe('network_error');
    const streamed = await rejection(collect(offline.debates.stream('Why?')));
    expect(streamed.code).toBe('network_error');
    expect(streamed.status).toBeUndefined();
  });

  it('lists sessions across pages as an async iterator', async () => {
    const mark = `pages-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.ask(`${mark} question ${i}`)).sessionId);
    const pages = await collect(c.sessions.list({ q: mark, limit: 1 }).pages());
    expect(pages.map((p) => p.items.length)).toEqual([1, 1, 1]);
    const listed = await collect(c.sessions.list({ q: mark, limit: 2 }));
    expect(listed.map((s) => s.id).sort()).toEqual([...ids].sort());
  });

  it('follows a session, resuming with Last-Event-ID after the connection drops', async () => {
    const events = await collect(c.debates.stream('Resume me', { rounds: 2 }));
    const id = events[0]!.sessionId;
    const dropping = droppingFetch(2000);
    const followed = await collect(
      new Consilium({ baseUrl: server.baseUrl, fetch: dropping.fetch, ...tokenOf(server) }).sessions.follow(id, {
        retryDelayMs: 1,
      }),
    );
    expect(followed.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(followed).toEqual(events);
    expect(dropping.requests).toHaveLength(2);
    expect(dropping.requests[0]!.headers.get('last-event-id')).toBeNull();
    const resumedAt = Number(dropping.requests[1]!.headers.get('last-event-id'));
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThan(events.length);
  });

  it('follow stops at access.ended (a share revoked) without trying again', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    try {
      const reader = await slow.newUser();
      const owner = new Consilium({ baseUrl: slow.baseUrl, ...tokenOf(slow) });
      const { sessionId } = await owner.debates.run('Shared, then not', { rounds: 3, detach: true });
      await owner.sessions.share(sessionId, reader.user.username);
      const requests: string[] = [];
      const counting: typeof fetch = (input, init) => {
        requests.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      const following = new Consilium({ baseUrl: slow.baseUrl, token: reader.token, fetch: counting });
      const seen: DebateEvent[] = [];
      for await (const event of following.sessions.follow(sessionId, { retryDelayMs: 1 })) {
        seen.push(event);
        if (seen.length === 1) await owner.sessions.unshare(sessionId, reader.user.id);
      }
      expect(seen.at(-1)).toMatchObject({ type: 'access.ended', reason: 'share_revoked' });
      expect(requests).toHaveLength(1);
      await owner.sessions.cancel(sessionId);
    } finally {
      await slow.close();
    }
  });

  it('follows from a given event and stops at the end', async () => {
    const events = await collect(c.debates.stream('From the middle', { rounds: 2 }));
    const from = Math.floor(events.length / 2);
    const rest = await collect(c.sessions.follow(events[0]!.sessionId, { lastEventId: from }));
    expect(rest).toEqual(events.slice(from));
  });

  it('cancels the debate on the server when the loop is left early', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    try {
      const consilium = new Consilium({ baseUrl: slow.baseUrl, ...tokenOf(slow) });
      let sessionId = '';
      for await (const event of consilium.debates.stream('Stop early', { rounds: 3 })) {
        sessionId = event.sessionId;
        if (event.type === 'answer.delta') break;
      }
      // Until the run has stopped, however long a busy machine takes (the test's timeout bounds it).
      let status = 'running';
      while (status === 'running') {
        await new Promise((r) => setTimeout(r, 50));
        status = (await consilium.sessions.get(sessionId)).status;
      }
      expect(status).toBe('cancelled');

      const controller = new AbortController();
      const events: DebateEvent[] = [];
      const error = await rejection(
        (async () => {
          for await (const event of consilium.debates.stream('Abort me', { signal: controller.signal })) {
            events.push(event);
            controller.abort();
          }
        })(),
      );
      expect(error.code).toBe('aborted');
      expect(events).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
