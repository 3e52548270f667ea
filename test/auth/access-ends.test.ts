/**
 * An open event stream ends when the access it was opened with ends: a share revoked, the session deleted, the user
 * disabled, a password reset or changed with the others signed out, a token revoked, a sign-out, an admin demoted.
 * Each follower gets `access.ended` with the reason as its last event and its stream closes while the debate still
 * runs (so it did not just reach the session's end); streams that relied on nothing that ended go on. The user's own
 * `POST /consilium/deep/stream` ends too, and its debate is cancelled as when its client leaves. On SQLite, and on
 * PostgreSQL with the stream held by another instance than the one the change was made on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../sdk/src/generated/types.gen.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type Caller, caller, type RunningServer, startServer } from '../support/server.js';
import { readSse } from '../support/sse.js';

const JSON_BODY = { 'content-type': 'application/json' };
/** Paced offline models: a three-round debate runs for many seconds, far longer than any of these tests waits. */
const PACED = { CONSILIUM_OFFLINE_TOKEN_MS: '20' };

/** An open event stream, read as it comes. */
interface Open {
  events: DebateEvent[];
  /** Resolves once `n` events have come. */
  got(n: number): Promise<void>;
  /** Resolves with every event once the server closed the stream. */
  closed: Promise<DebateEvent[]>;
  /** When (performance.now) it closed. */
  closedAt?: number;
}

async function open(base: string, path: string, init: RequestInit = {}): Promise<Open> {
  const res = await fetch(`${base}${path}`, init);
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  const events: DebateEvent[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const stream: Open = {
    events,
    got: (n) => new Promise((resolve) => (events.length >= n ? resolve() : waiting.push({ n, resolve }))),
    closed: Promise.resolve([]),
  };
  stream.closed = (async () => {
    for await (const message of readSse(res)) {
      events.push(JSON.parse(message.data) as DebateEvent);
      for (const w of waiting.filter((w) => events.length >= w.n)) w.resolve();
    }
    stream.closedAt = performance.now();
    return events;
  })();
  return stream;
}

const bearer = (who: Caller) => ({ authorization: `Bearer ${who.token}` });

/** Signs `who` in on `base`: the cookie header. */
async function signIn(base: string, who: Caller): Promise<string> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify({ username: who.user.username, password: who.password }),
  });
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** A detached deep debate of `who`'s, running. */
async function running(who: Caller): Promise<string> {
  const res = await who.fetch('/consilium/deep', {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify({ question: 'Will the stream outlive its access?', rounds: 3, detach: true }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { sessionId: string }).sessionId;
}

async function share(owner: Caller, id: string, reader: Caller): Promise<void> {
  const res = await owner.fetch(`/sessions/${id}/shares`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify({ username: reader.user.username }),
  });
  expect(res.status).toBe(200);
}

const follow = (base: string, id: string, headers: Record<string, string>) => open(base, `/sessions/${id}/events`, { headers });

/**
 * Waits for `stream` to close after `change` answered, and checks it ended with `access.ended` for `reason`, while
 * the session still ran. Returns how long after the change's answer it closed (reported, never asserted on).
 */
async function endsWith(stream: Open, reason: string, stillRunning: () => Promise<string>, answeredAt: number) {
  const events = await stream.closed;
  const last = events.at(-1)!;
  expect(last).toMatchObject({ type: 'access.ended', reason, detail: expect.any(String) });
  // After every event it had sent, and never stored.
  expect(last.seq).toBe(events.at(-2)?.seq ?? 0);
  expect(events.filter((e) => e.type === 'session.ended')).toEqual([]);
  expect(await stillRunning()).toBe('running');
  return Math.round(stream.closedAt! - answeredAt);
}

function suite(name: string, start: () => Promise<{ here: RunningServer; there: RunningServer; close(): Promise<void> }>) {
  describe(name, () => {
    let here: RunningServer;
    let there: RunningServer;
    let close: () => Promise<void>;
    const took: Record<string, number> = {};
    /** The session's status as stored (whoever may still read it). */
    const statusOf = async (id: string) => (await here.sessions.store.get(id))?.status ?? 'gone';
    /** `who` on the instance that holds the streams (`there`), with the same token. */
    const onThere = (who: Caller) => caller(there.baseUrl, who.user, who.password, who.token);
    beforeAll(async () => {
      ({ here, there, close } = await start());
    });
    afterAll(async () => {
      console.log(`${name}: ms from the change's answer to the stream's close`, JSON.stringify(took));
      await close?.();
    });

    it('a share revoked ends the reader’s stream (and only theirs); the reader then gets 404', async () => {
      const owner = await here.newUser();
      const reader = await here.newUser();
      const id = await running(owner);
      await share(owner, id, reader);
      const theirs = await follow(there.baseUrl, id, bearer(reader));
      const own = await follow(there.baseUrl, id, bearer(owner));
      await Promise.all([theirs.got(1), own.got(1)]);
      expect((await owner.fetch(`/sessions/${id}/shares/${reader.user.id}`, { method: 'DELETE' })).status).toBe(204);
      took.share_revoked = await endsWith(theirs, 'share_revoked', () => statusOf(id), performance.now());
      // The owner's stream goes on past the reader's end.
      await own.got(own.events.length + 1);
      expect(own.closedAt).toBeUndefined();
      expect((await onThere(reader).fetch(`/sessions/${id}/events`)).status).toBe(404);
      await owner.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
      expect((await own.closed).at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    });

    it('a session deleted ends its readers’ streams before its run is stopped', async () => {
      const owner = await here.newUser();
      const reader = await here.newUser();
      const id = await running(owner);
      await share(owner, id, reader);
      const theirs = await follow(there.baseUrl, id, bearer(reader));
      await theirs.got(1);
      const res = await owner.fetch(`/sessions/${id}`, { method: 'DELETE' });
      expect(res.status).toBe(204);
      const events = await theirs.closed;
      expect(events.at(-1)).toMatchObject({ type: 'access.ended', reason: 'session_deleted' });
      expect(events.filter((e) => e.type === 'session.ended')).toEqual([]);
    });

    it('an admin’s password reset ends the user’s token and cookie streams, and their own deep stream, whose debate is cancelled', async () => {
      const admin = await here.admin();
      const user = await here.newUser();
      const id = await running(user);
      const cookie = await signIn(there.baseUrl, user);
      const byToken = await follow(there.baseUrl, id, bearer(user));
      const byCookie = await follow(there.baseUrl, id, { cookie });
      const deep = await open(there.baseUrl, '/consilium/deep/stream', {
        method: 'POST',
        headers: { ...JSON_BODY, ...bearer(user) },
        body: JSON.stringify({ question: 'Streamed until the reset?', rounds: 3 }),
      });
      await Promise.all([byToken.got(1), byCookie.got(1), deep.got(1)]);
      const res = await admin.fetch(`/users/${user.user.id}/password`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ password: 'a-new-password-1' }),
      });
      expect(res.status).toBe(200);
      const answered = performance.now();
      const still = () => statusOf(id);
      took.password_reset = await endsWith(byToken, 'password_reset', still, answered);
      await endsWith(byCookie, 'password_reset', still, answered);
      const streamed = await deep.closed;
      expect(streamed.at(-1)).toMatchObject({
        type: 'access.ended',
        reason: 'password_reset',
        sessionId: streamed[0]!.sessionId,
      });
      // Closing the stream cancelled its (attached) debate, as a client leaving does.
      await expect.poll(() => statusOf(streamed[0]!.sessionId), { timeout: 10_000 }).toBe('cancelled');
      await admin.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    });

    it('disabling a user ends their streams, by token and by cookie', async () => {
      const admin = await here.admin();
      const user = await here.newUser();
      const id = await running(user);
      const cookie = await signIn(there.baseUrl, user);
      const byToken = await follow(there.baseUrl, id, bearer(user));
      const byCookie = await follow(there.baseUrl, id, { cookie });
      await Promise.all([byToken.got(1), byCookie.got(1)]);
      const res = await admin.fetch(`/users/${user.user.id}`, {
        method: 'PATCH',
        headers: JSON_BODY,
        body: JSON.stringify({ disabled: true }),
      });
      expect(res.status).toBe(200);
      const answered = performance.now();
      took.user_disabled = await endsWith(byToken, 'user_disabled', () => statusOf(id), answered);
      await endsWith(byCookie, 'user_disabled', () => statusOf(id), answered);
      await admin.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    });

    it('an own password change that signs out the others ends their streams, and not the one that changed it', async () => {
      const user = await here.newUser();
      const id = await running(user);
      const cookie = await signIn(here.baseUrl, user);
      const byToken = await follow(there.baseUrl, id, bearer(user));
      const byCookie = await follow(here.baseUrl, id, { cookie });
      await Promise.all([byToken.got(1), byCookie.got(1)]);
      const res = await fetch(`${here.baseUrl}/auth/password`, {
        method: 'POST',
        headers: { ...JSON_BODY, cookie, origin: here.baseUrl },
        body: JSON.stringify({ currentPassword: user.password, newPassword: 'a-new-password-2' }),
      });
      expect(res.status).toBe(204);
      took.password_changed = await endsWith(byToken, 'password_changed', () => statusOf(id), performance.now());
      await byCookie.got(byCookie.events.length + 1);
      expect(byCookie.closedAt).toBeUndefined();
      await fetch(`${here.baseUrl}/sessions/${id}/cancel`, { method: 'POST', headers: { cookie, origin: here.baseUrl } });
      expect((await byCookie.closed).at(-1)).toMatchObject({ type: 'session.ended' });
    });

    it('a revoked token and a sign-out end the streams opened with them', async () => {
      const user = await here.newUser();
      const id = await running(user);
      const cookie = await signIn(there.baseUrl, user);
      const byToken = await follow(there.baseUrl, id, bearer(user));
      const byCookie = await follow(there.baseUrl, id, { cookie });
      await Promise.all([byToken.got(1), byCookie.got(1)]);
      const [tokenId] = (await here.accounts.listTokens(user.user.id)).map((t) => t.id);
      const other = await here.accounts.createToken(user.user.id, 'revoking');
      const revoke = await fetch(`${here.baseUrl}/auth/tokens/${tokenId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${other.token}` },
      });
      expect(revoke.status).toBe(204);
      const still = () => statusOf(id);
      took.token_revoked = await endsWith(byToken, 'token_revoked', still, performance.now());
      expect(byCookie.closedAt).toBeUndefined();
      const out = await fetch(`${here.baseUrl}/auth/logout`, { method: 'POST', headers: { cookie, origin: here.baseUrl } });
      expect(out.status).toBe(204);
      took.signed_out = await endsWith(byCookie, 'signed_out', still, performance.now());
      await fetch(`${here.baseUrl}/sessions/${id}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.token}` },
      });
    });

    it('an admin demoted stops following another user’s session they read as an admin', async () => {
      const admin = await here.admin();
      const demoted = await here.newUser({ role: 'admin' });
      const user = await here.newUser();
      const id = await running(user);
      const watching = await follow(there.baseUrl, id, bearer(demoted));
      await watching.got(1);
      const res = await admin.fetch(`/users/${demoted.user.id}`, {
        method: 'PATCH',
        headers: JSON_BODY,
        body: JSON.stringify({ role: 'user' }),
      });
      expect(res.status).toBe(200);
      took.role_changed = await endsWith(watching, 'role_changed', () => statusOf(id), performance.now());
      await user.fetch(`/sessions/${id}/cancel`, { method: 'POST' });
    });
  });
}

suite('access ends on one SQLite instance', async () => {
  const server = await startServer(PACED);
  return { here: server, there: server, close: () => server.close() };
});

describe.skipIf(!postgres.available)('PostgreSQL', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());
  suite('access ends on PostgreSQL: changed on one instance, streamed from another', async () => {
    const database = await pg.createDatabase();
    const here = await startServer({ ...PACED, CONSILIUM_DATABASE: database });
    const there = await startServer({ ...PACED, CONSILIUM_DATABASE: database });
    return { here, there, close: async () => void (await Promise.all([here.close(), there.close()])) };
  });
});
