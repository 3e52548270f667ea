/**
 * Continuing an interrupted debate (POST /sessions/{id}/continue), on SQLite and on PostgreSQL. A real
 * deep debate runs on offline models, recorded through a store that stops writing mid-round 2, as a
 * killed process does; a server started on the same database marks it `interrupted`, and the debate is
 * continued there. A follower resuming by `Last-Event-ID` from before the stop sees one unbroken debate,
 * and the models are asked only what was missing (each call counted).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { openAccounts } from '../../server/src/accounts/open.js';
import { type Config, loadConfig } from '../../server/src/config/config.js';
import { DebateEngine, type Slot } from '../../server/src/debate/engine.js';
import { ownerOf } from '../../server/src/http/owner.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { SessionCache } from '../../server/src/sessions/cache.js';
import { SessionRecorder } from '../../server/src/sessions/recorder.js';
import type { SessionStore, Step } from '../../server/src/sessions/store.js';
import { openDatabase } from '../../server/src/store/open.js';
import { FakeDebate, storeInterrupted, storeWith } from '../support/fake-debate.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import { type Caller, caller, startServer, TEST_SCRYPT } from '../support/server.js';
import { readSse } from '../support/sse.js';

/** The default panel on offline models, each call's slot pushed to `calls` as it starts. */
function countingEngine(config: Config, calls: number[], tokenDelayMs: number): DebateEngine {
  const panel: Slot[] = config.slots.map((slot) => {
    const model = createSlotModel(slot, {}, { offline: { tokenDelayMs } });
    const doStream = model.languageModel.doStream.bind(model.languageModel);
    model.languageModel.doStream = (options) => {
      calls.push(slot.slot);
      return doStream(options);
    };
    return { config: slot, model };
  });
  return new DebateEngine({ panel, quorum: config.quorum, callTimeoutMs: 60_000, maxRetries: 0, prices: {}, owner: 'nobody' });
}

/** A store that stops writing for good when `frozen` is set: what a killed process leaves behind. */
function freezable(store: SessionStore): SessionStore & { frozen: boolean } {
  const wrapper = storeWith(store, {
    frozen: false,
    write: (step: Step) => (wrapper.frozen ? new Promise<void>(() => undefined) : store.write(step)),
  });
  return wrapper;
}

interface Interrupted {
  id: string;
  /** Every event a client following the run saw before the stop. */
  seen: DebateEvent[];
  user: { user: Caller['user']; password: string; token: string };
}

/**
 * A deep debate of 3 rounds on `database`, stopped once two of round 2's answers are shown: nothing is
 * written from then on. Its owner is a user made here, whose token works on any server of that database.
 */
async function interruptedDebate(database: string): Promise<Interrupted> {
  const config = loadConfig({ CONSILIUM_DATABASE: database, CONSILIUM_LOG_LEVEL: 'silent' });
  const db = await openDatabase(config.database);
  try {
    const accounts = openAccounts(db.accounts, config, TEST_SCRYPT);
    const password = `pw-${randomUUID()}`;
    const { user } = await accounts.createUser({ username: `resumer-${randomUUID().slice(0, 8)}`, role: 'user', password });
    const { token } = await accounts.createToken(user.id, 'tests');
    const store = freezable(db.sessions);
    const recorder = new SessionRecorder({ store, cache: new SessionCache(10), flushMs: 5 });
    // Paced, so the stop lands while round 2's slowest models are still answering.
    const engine = countingEngine(config, [], 3);
    const stop = new AbortController();
    const seen: DebateEvent[] = [];
    let stopped!: (id: string) => void;
    const stopping = new Promise<string>((resolve) => (stopped = resolve));
    const run = engine.deep('Should we continue interrupted debates?', {
      rounds: 3,
      owner: user.id,
      signal: stop.signal,
      onLog: (log, snapshot) => {
        recorder.hook(stop)(log, snapshot);
        const live = recorder.live(log.sessionId)!;
        const unsubscribe = live.subscribe((event) => {
          if (store.frozen) return;
          seen.push(event);
          const round2 = seen.filter((e) => e.type === 'answer.completed' && e.answer.round === 2).length;
          // Once those two are written, the process dies: nothing more is written or shown.
          if (round2 === 2 && event.type === 'answer.completed') {
            live.settled().then(() => {
              store.frozen = true;
              unsubscribe();
              stopped(log.sessionId);
            });
          }
        });
      },
    });
    const id = await stopping;
    stop.abort(new Error('killed'));
    await run;
    return { id, seen, user: { user, password, token } };
  } finally {
    // PostgreSQL: closing gives up this instance's lease, so the next server recovers its session.
    await db.close();
  }
}

async function events(on: Caller, id: string, lastEventId: number): Promise<DebateEvent[]> {
  const res = await on.fetch(`/sessions/${id}/events`, { headers: { 'last-event-id': String(lastEventId) } });
  expect(res.status).toBe(200);
  const got: DebateEvent[] = [];
  for await (const message of readSse(res)) got.push(JSON.parse(message.data) as DebateEvent);
  return got;
}

const without = (answers: readonly Answer[]) => answers.map(({ latencyMs: _, ...a }) => a);

function describeContinue(name: string, database: () => Promise<string>, skip?: string): void {
  describe.skipIf(skip !== undefined)(`continuing an interrupted deep debate: ${name}`, () => {
    it('keeps what was answered, asks only what was missing, and goes on to the verdict in one unbroken stream', async () => {
      const location = await database();
      const { id, seen, user } = await interruptedDebate(location);
      const lastSeen = Math.max(...seen.map((e) => e.seq));

      const calls: number[] = [];
      const server = await startServer(
        { CONSILIUM_DATABASE: location },
        { debate: (config, sessions) => ({ engine: countingEngine(config, calls, 0), sessions, ownerOf }) },
      );
      try {
        const me = caller(server.baseUrl, user.user, user.password, user.token);
        const before = (await (await me.fetch(`/sessions/${id}`)).json()) as Session;
        expect(before.status).toBe('interrupted');
        expect(before.rounds.map((r) => r.number)).toEqual([1, 2]);
        const kept = before.rounds[1]!.answers;
        expect(kept.length).toBeGreaterThanOrEqual(2);
        expect(kept.length).toBeLessThan(5);
        const missing = [1, 2, 3, 4, 5].filter((slot) => !kept.some((a) => a.slot === slot));
        // A follower that was there when it stopped saw it end interrupted.
        const interruptedEnd = (await events(me, id, lastSeen)).at(-1)!;
        expect(interruptedEnd).toMatchObject({ type: 'session.ended', status: 'interrupted' });

        // Someone else's session is not there to continue; nor is one that does not exist.
        const other = await server.newUser();
        expect((await other.fetch(`/sessions/${id}/continue`, { method: 'POST' })).status).toBe(404);
        const unknown = await me.fetch('/sessions/ses_01JD3W8Y6Q2N5Z4K7M9P1R3T5V/continue', { method: 'POST' });
        expect(unknown.status).toBe(404);
        expect(calls).toEqual([]);

        const res = await me.fetch(`/sessions/${id}/continue`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ detach: true }),
        });
        expect(res.status).toBe(202);
        expect(await res.json()).toEqual({ sessionId: id, status: 'running' });
        expect(res.headers.get('location')).toBe(`/sessions/${id}`);

        // Resumed from the last event seen before the stop: the rest of the debate, one sequence, one end.
        const resumed = await events(me, id, lastSeen);
        const seqs = resumed.map((e) => e.seq);
        expect(seqs[0]).toBeGreaterThan(lastSeen);
        for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
        const ends = resumed.filter((e) => e.type === 'session.ended');
        expect(ends).toHaveLength(1);
        expect(resumed.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
        // Everything the continued run raised comes after the interrupted end a follower may have seen.
        const continued = resumed.filter((e) => e.seq > interruptedEnd.seq);
        expect(continued.length).toBeGreaterThan(0);
        expect(resumed.filter((e) => e.seq <= interruptedEnd.seq).every((e) => e.type !== 'session.ended')).toBe(true);
        expect(await events(me, id, interruptedEnd.seq)).toStrictEqual(continued);

        const progress = continued.filter((e) => e.type !== 'answer.delta' && e.type !== 'verdict.delta');
        const shapes = progress.map((e) =>
          e.type === 'round.started'
            ? `round.started ${e.round} [${e.slots.join(',')}]`
            : e.type === 'answer.completed'
              ? `answer ${e.answer.round}`
              : e.type === 'round.ended'
                ? `round.ended ${e.round}`
                : e.type,
        );
        expect(shapes).toEqual([
          `round.started 2 [${missing.join(',')}]`,
          ...missing.map(() => 'answer 2'),
          'round.ended 2',
          'round.started 3 [1,2,3,4,5]',
          ...[1, 2, 3, 4, 5].map(() => 'answer 3'),
          'round.ended 3',
          'consensus',
          'synthesis.started',
          'verdict',
          'integrity',
          'session.ended',
        ]);
        const askedAgain = progress.flatMap((e) =>
          e.type === 'answer.completed' && e.answer.round === 2 ? [e.answer.slot] : [],
        );
        expect(askedAgain.sort()).toEqual(missing);
        // Each model call counted: round 2's missing slots, the final round, the verdict. Kept answers were not asked again.
        expect([...calls].sort()).toEqual([...missing, 1, 2, 3, 4, 5, 1].sort());

        const after = (await (await me.fetch(`/sessions/${id}`)).json()) as Session;
        expect(after).toMatchObject({
          id,
          owner: user.user.id,
          createdAt: before.createdAt,
          status: 'completed',
          missingSlots: [],
        });
        expect(after.rounds.map((r) => r.number)).toEqual([1, 2, 3]);
        expect(after.rounds[0]).toStrictEqual(before.rounds[0]);
        for (const answer of kept) expect(after.rounds[1]!.answers).toContainEqual(answer);
        expect(after.rounds[1]!.answers.map((a) => a.slot)).toEqual([1, 2, 3, 4, 5]);
        expect(after.consensus).toBeDefined();
        expect(after.verdict?.format).toBe('structured');
        // Usage goes on from what was spent before the stop.
        expect(after.usage.totalTokens).toBeGreaterThan(before.usage.totalTokens);
        expect(without(after.rounds[1]!.answers.filter((a) => missing.includes(a.slot)))).toHaveLength(missing.length);

        // Finished: there is nothing more to continue.
        const again = await me.fetch(`/sessions/${id}/continue`, { method: 'POST' });
        expect(again.status).toBe(409);
        expect(await again.json()).toMatchObject({ code: 'conflict', detail: expect.stringContaining('completed') });
        expect(calls).toHaveLength(missing.length + 6);
      } finally {
        await server.close();
      }
    });
  });
}

let cluster: TestPostgres | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  if (postgres.available) cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeContinue('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-continue-'));
  dirs.push(dir);
  return join(dir, 'consilium.db');
});
describeContinue('PostgreSQL', () => cluster!.createDatabase(), postgres.available ? undefined : postgres.reason);

describe('continuing: what is refused, and a continued run is a run like any other', () => {
  it('refuses a synthesis of posted answers (409); a continued run can be cancelled, and stays the same session', async () => {
    const server = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '5' });
    try {
      const synthesis = new FakeDebate({ owner: server.user.id, mode: 'synthesis', roundsRequested: 1 });
      await server.sessions.store.write(synthesis.start().step());
      await server.sessions.store.recoverInterrupted(new Date());
      const refused = await server.fetch(`/sessions/${synthesis.session.id}/continue`, { method: 'POST' });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ code: 'conflict', detail: expect.stringContaining('not stored') });
      expect((await (await server.fetch(`/sessions/${synthesis.session.id}`)).json()) as Session).toMatchObject({
        status: 'interrupted',
      });

      const d = await storeInterrupted(server.sessions.store, server.user.id);
      const started = await server.fetch(`/sessions/${d.session.id}/continue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ detach: true }),
      });
      expect(started.status).toBe(202);
      // Running again, here: a second continue is refused while it runs.
      const twice = await server.fetch(`/sessions/${d.session.id}/continue`, { method: 'POST' });
      expect(twice.status).toBe(409);
      expect(await twice.json()).toMatchObject({ detail: expect.stringContaining('running') });
      const cancelled = (await (await server.fetch(`/sessions/${d.session.id}/cancel`, { method: 'POST' })).json()) as Session;
      expect(cancelled).toMatchObject({ id: d.session.id, status: 'cancelled', createdAt: d.session.createdAt });
      const tail = await events(server, d.session.id, d.lastSeq);
      expect(tail.filter((e) => e.type === 'session.ended')).toEqual([tail.at(-1)]);
      expect(tail.at(-1)).toMatchObject({ type: 'session.ended', status: 'cancelled' });
    } finally {
      await server.close();
    }
  });
});
