/**
 * The sessions layer keeps owners apart, without HTTP: one owner's session reads as absent to
 * another — by id (from the store and from the cache), in lists and searches, for replay and
 * export (which start from that read), and for delete, which neither removes nor cancels it.
 * Real SQLite, cache and recorder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import { debateSteps, FakeDebate } from '../../../test/sessions/store-contract.js';
import { EventLog } from '../debate/events.js';
import { SessionCache } from './cache.js';
import { sessionMarkdown } from './markdown.js';
import { SessionRecorder } from './recorder.js';
import { ALL_OWNERS, Sessions } from './sessions.js';
import { SqliteSessionStore } from './sqlite/store.js';

const ALICE = 'usr_alice';
const BOB = 'usr_bob';

let dir: string;
let sessions: Sessions;
let store: SqliteSessionStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-sessions-'));
  store = await SqliteSessionStore.open(join(dir, 'sessions.db'));
  const cache = new SessionCache(50);
  sessions = new Sessions({ store, cache, recorder: new SessionRecorder({ store, cache, flushMs: 5 }) });
});
afterEach(async () => {
  await sessions.close(100);
  rmSync(dir, { recursive: true, force: true });
});

/** A finished debate of `owner`'s, stored step by step as the recorder would. */
async function stored(owner: string, question: string, createdAt: string): Promise<Session> {
  const d = new FakeDebate({ owner, question, createdAt });
  for (const step of debateSteps(d, 2, 1)) await store.write(step);
  return d.session;
}

/** Every event `follow` sends for a session read by `owner` (as a replay starts: read, then follow). */
async function replay(id: string, owner: string): Promise<DebateEvent[] | undefined> {
  const session = await sessions.get(id, owner);
  if (!session) return undefined;
  const sent: DebateEvent[] = [];
  await sessions.follow(
    session,
    0,
    async (e) => {
      sent.push(e);
    },
    new AbortController().signal,
  );
  return sent;
}

describe('owners are isolated in the sessions layer', () => {
  let a1: Session;
  let a2: Session;
  let b1: Session;
  beforeEach(async () => {
    a1 = await stored(ALICE, 'Shared words: should Alice shard?', '2026-01-01T10:00:00.000Z');
    b1 = await stored(BOB, 'Shared words: should Bob shard?', '2026-01-01T11:00:00.000Z');
    a2 = await stored(ALICE, "Alice's second question", '2026-01-01T12:00:00.000Z');
  });

  it('read: the owner gets the session; anyone else gets nothing, from the store or from the cache', async () => {
    // Cold: nothing cached yet, so the read goes to the store.
    expect(await sessions.get(a1.id, BOB)).toBeUndefined();
    expect(await sessions.get(a1.id, '')).toBeUndefined();
    expect(await sessions.get(a1.id, ALICE)).toEqual(a1);
    // Warm: Alice's read cached it; Bob's read of the cached copy is still refused.
    expect(sessions.cache.get(a1.id)).toEqual(a1);
    expect(await sessions.get(a1.id, BOB)).toBeUndefined();
    expect(await sessions.get(b1.id, ALICE)).toBeUndefined();
    expect(await sessions.get(b1.id, BOB)).toEqual(b1);
  });

  it("list and search: each owner sees only their own, newest first; nobody sees another's", async () => {
    expect((await sessions.list(ALICE, {})).items.map((s) => s.id)).toEqual([a2.id, a1.id]);
    expect((await sessions.list(BOB, {})).items.map((s) => s.id)).toEqual([b1.id]);
    expect((await sessions.list('usr_nobody', {})).items).toEqual([]);
    // Both owners have a question with these words: the search stays within the owner's.
    expect((await sessions.list(ALICE, { q: 'shared words' })).items.map((s) => s.id)).toEqual([a1.id]);
    expect((await sessions.list(BOB, { q: 'shared words' })).items.map((s) => s.id)).toEqual([b1.id]);
    // A cursor from Alice's pages walks only Alice's sessions.
    const first = await sessions.list(ALICE, { limit: 1 });
    expect(first.items.map((s) => s.id)).toEqual([a2.id]);
    const second = await sessions.list(ALICE, { limit: 1, cursor: first.nextCursor! });
    expect(second.items.map((s) => s.id)).toEqual([a1.id]);
    expect(second.nextCursor).toBeUndefined();
    // A cursor is only a position: Bob using Alice's still gets Bob's sessions older than it, nothing of Alice's.
    expect((await sessions.list(BOB, { limit: 5, cursor: first.nextCursor! })).items.map((s) => s.id)).toEqual([b1.id]);
  });

  it('every owner only when asked for explicitly (ALL_OWNERS, for admins); no string stands for it', async () => {
    expect((await sessions.list(ALL_OWNERS, {})).items.map((s) => s.id)).toEqual([a2.id, b1.id, a1.id]);
    expect(await sessions.get(b1.id, ALL_OWNERS)).toEqual(b1);
    for (const pretender of ['all', '*', 'ALL_OWNERS']) {
      expect((await sessions.list(pretender, {})).items).toEqual([]);
      expect(await sessions.get(b1.id, pretender)).toBeUndefined();
    }
  });

  it('events: a replay starts only for the owner, and carries only that session', async () => {
    expect(await replay(a1.id, BOB)).toBeUndefined();
    const events = await replay(a1.id, ALICE);
    expect(events).toEqual(await store.events(a1.id, 0));
    expect(events!.length).toBeGreaterThan(5);
    expect(new Set(events!.map((e) => e.sessionId))).toEqual(new Set([a1.id]));
    expect(events!.at(-1)).toMatchObject({ type: 'session.ended' });
  });

  it('export: only the owner gets a document to export', async () => {
    expect(await sessions.get(b1.id, ALICE)).toBeUndefined();
    const mine = await sessions.get(b1.id, BOB);
    expect(sessionMarkdown(mine!)).toContain('Shared words: should Bob shard?');
  });

  it("delete: another owner's delete is refused and removes nothing; the owner's removes everything", async () => {
    expect(await sessions.delete(a1.id, BOB)).toBe(false);
    expect(await store.get(a1.id)).toEqual(a1);
    expect(await store.events(a1.id, 0)).not.toEqual([]);
    expect(await sessions.get(a1.id, ALICE)).toEqual(a1);

    expect(await sessions.delete(a1.id, ALICE)).toBe(true);
    expect(await store.get(a1.id)).toBeUndefined();
    expect(await store.events(a1.id, 0)).toEqual([]);
    expect(await sessions.get(a1.id, ALICE)).toBeUndefined();
    expect((await sessions.list(ALICE, {})).items.map((s) => s.id)).toEqual([a2.id]);
    // A second delete finds nothing.
    expect(await sessions.delete(a1.id, ALICE)).toBe(false);
    // Bob's session is untouched throughout.
    expect(await sessions.get(b1.id, BOB)).toEqual(b1);
  });

  it("delete of another owner's running session neither cancels it nor removes it", async () => {
    const d = new FakeDebate({ owner: ALICE, question: 'Still running' });
    const log = new EventLog(d.session.id);
    const run = new AbortController();
    sessions.recorder.hook(run)(log, () => ({ ...d.session, id: log.sessionId }));
    log.emit({ type: 'round.started', round: 1, kind: 'independent', slots: [1] });
    await sessions.recorder.live(log.sessionId)!.settled();
    expect((await sessions.get(log.sessionId, ALICE))?.status).toBe('running');

    expect(await sessions.delete(log.sessionId, BOB)).toBe(false);
    expect(run.signal.aborted).toBe(false);
    expect(await store.get(log.sessionId)).toBeDefined();

    // The owner's delete cancels the run, waits for its end, then removes it.
    const deleting = sessions.delete(log.sessionId, ALICE);
    await expect.poll(() => run.signal.aborted).toBe(true);
    log.emit({
      type: 'session.ended',
      status: 'cancelled',
      missingSlots: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      cost: { usd: 0, priced: true },
    });
    expect(await deleting).toBe(true);
    expect(await store.get(log.sessionId)).toBeUndefined();
  });
});
