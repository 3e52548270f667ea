/**
 * The crash test: a real server process (`npm start`) is SIGKILLed in the middle of a deep debate's
 * round and started again. The session is `interrupted`, every answer the server reported stored
 * before the kill is there exactly as it was streamed, replay ends with the interruption, and
 * SQLite's integrity check is `ok`; continued, it reaches its verdict in the same session. (Events
 * are streamed as they happen and committed a few milliseconds later, so "stored" is what the
 * history read back before the kill.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Answer, DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { envWith, kill, npmStart, type Run, runs, type SignedIn, signIn, stop, waitForStdout } from '../support/process.js';
import { readSse } from '../support/sse.js';

const BANNER = /is serving (http:\/\/127\.0\.0\.1:\d+)\n/;
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'consilium-crash-'));
});
afterAll(async () => {
  await Promise.all(runs.map(stop));
  rmSync(dataDir, { recursive: true, force: true });
});

const ADMIN_PASSWORD = 'crash-test-admin-password';

async function start(): Promise<{ run: Run; baseUrl: string } & SignedIn> {
  // Paced offline models, so the kill lands while models are still answering.
  const run = npmStart(
    envWith(dataDir, { PORT: '0', CONSILIUM_OFFLINE_TOKEN_MS: '12', CONSILIUM_ADMIN_PASSWORD: ADMIN_PASSWORD }),
  );
  const [, baseUrl] = await waitForStdout(run, BANNER);
  return { run, baseUrl: baseUrl!, ...(await signIn(baseUrl!, 'admin', ADMIN_PASSWORD)) };
}

function integrityCheck(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => {
      if (err) return reject(err);
      db.get('PRAGMA integrity_check', (error, row: { integrity_check: string } | undefined) => {
        db.close();
        if (error) reject(error);
        else resolve(row?.integrity_check ?? 'no row');
      });
    });
  });
}

it('keeps every answer completed before a SIGKILL mid-round, marks the session interrupted, and continues it to its verdict', async () => {
  const first = await start();
  const res = await first.fetch(`/consilium/deep/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Will this survive a crash?', rounds: 3 }),
  });
  expect(res.status).toBe(200);
  const completed: Answer[] = [];
  let sessionId = '';
  // Read by hand rather than `for await … break`, which would cancel the stream: the client stays
  // connected, as one would be when the server dies.
  const messages = readSse(res)[Symbol.asyncIterator]();
  // Mid-round: round 1 is whole, and round 2 has some answers but not all.
  while (completed.filter((a) => a.round === 2).length < 2) {
    const next = await messages.next();
    if (next.done) throw new Error('the stream ended before round 2 was half done');
    const event = JSON.parse(next.value.data) as DebateEvent;
    sessionId = event.sessionId;
    if (event.type === 'answer.completed') completed.push(event.answer);
  }
  // What the server reports stored, once it has the answers the stream showed.
  let before: Answer[] = [];
  await expect
    .poll(async () => {
      const read = (await (await first.fetch(`/sessions/${sessionId}`)).json()) as Session;
      before = read.rounds.flatMap((r) => r.answers);
      return completed.every((a) => before.some((b) => b.round === a.round && b.slot === a.slot));
    })
    .toBe(true);
  // Every seq the client was shown, up to the kill and whatever was in flight when it died.
  const seen: DebateEvent[] = [];
  const drained = (async () => {
    try {
      for (let next = await messages.next(); !next.done; next = await messages.next()) {
        seen.push(JSON.parse(next.value.data) as DebateEvent);
      }
    } catch {
      // The connection dies with the server.
    }
  })();
  // A few more events arrive than were committed when the history was read: killed with them in flight.
  await expect.poll(() => seen.length, { timeout: 30_000, interval: 5 }).toBeGreaterThanOrEqual(3);
  await kill(first.run);
  const killedAt = Date.now();
  await drained;
  const lastSeen = Math.max(0, ...seen.map((e) => e.seq));
  expect(completed.filter((a) => a.round === 1)).toHaveLength(5);
  expect(before).toEqual(expect.arrayContaining(completed));

  const second = await start();
  const readyAt = Date.now();
  const got = await second.fetch(`/sessions/${sessionId}`);
  expect(got.status).toBe(200);
  const session = (await got.json()) as Session;
  expect(session.status).toBe('interrupted');
  // Recovery marks it complete when the new process starts: after the kill, before it serves.
  const completedAt = Date.parse(session.completedAt ?? '');
  expect(completedAt).toBeGreaterThanOrEqual(killedAt);
  expect(completedAt).toBeLessThanOrEqual(readyAt);
  expect(session.updatedAt).toBe(session.completedAt);
  expect(Date.parse(session.createdAt)).toBeLessThan(killedAt);
  const stored = session.rounds.flatMap((r) => r.answers);
  for (const answer of before) {
    expect(stored.find((a) => a.round === answer.round && a.slot === answer.slot)).toStrictEqual(answer);
  }
  expect(session.rounds.map((r) => r.number)).toEqual([1, 2]);

  const replay = await second.fetch(`/sessions/${sessionId}/events`);
  const events: DebateEvent[] = [];
  for await (const message of readSse(replay)) events.push(JSON.parse(message.data) as DebateEvent);
  expect(events[0]!.type).toBe('session.started');
  expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'interrupted', ts: session.completedAt });
  const seqs = events.map((e) => e.seq);
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  // No seq the client saw was given to another event: recovery's end is above all of them.
  expect(events.at(-1)!.seq).toBeGreaterThan(lastSeen);
  for (const shown of seen) {
    const stored = events.find((e) => e.seq === shown.seq);
    if (stored) expect(stored).toStrictEqual(shown);
  }
  // Resuming with the last id the client holds (a token's, or any other) ends with the session's end.
  for (const lastEventId of [lastSeen, ...seen.slice(-3).map((e) => e.seq)]) {
    const resumed = await second.fetch(`/sessions/${sessionId}/events`, {
      headers: { 'last-event-id': String(lastEventId) },
    });
    const after: DebateEvent[] = [];
    for await (const message of readSse(resumed)) after.push(JSON.parse(message.data) as DebateEvent);
    expect(after.at(-1)).toStrictEqual(events.at(-1));
    expect(after.every((e) => e.seq > lastEventId)).toBe(true);
  }
  // missingSlots names every slot of the stopped round that had no complete answer.
  const round2 = session.rounds.find((r) => r.number === 2)!;
  const unanswered = [1, 2, 3, 4, 5].filter((slot) => !round2.answers.some((a) => a.slot === slot && !a.error));
  expect(unanswered.length).toBeGreaterThan(0);
  expect(session.missingSlots).toEqual(unanswered);
  expect(events.at(-1)).toMatchObject({ missingSlots: unanswered });

  // Every completed answer's event is in the replay.
  const replayedAnswers = events.flatMap((e) => (e.type === 'answer.completed' ? [e.answer] : []));
  expect(replayedAnswers).toEqual(expect.arrayContaining(before));

  // Continued after the restart: the kept answers stay, the debate reaches its verdict in the same session,
  // and the client resuming from the last event it saw before the kill reads one debate to its one end.
  const continued = await second.fetch(`/sessions/${sessionId}/continue`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(continued.status).toBe(200);
  const finished = (await continued.json()) as Session;
  expect(finished).toMatchObject({ id: sessionId, status: 'completed', createdAt: session.createdAt });
  expect(finished.verdict?.format).toBe('structured');
  for (const answer of round2.answers.filter((a) => !a.error)) expect(finished.rounds[1]!.answers).toContainEqual(answer);
  const rest = await second.fetch(`/sessions/${sessionId}/events`, { headers: { 'last-event-id': String(lastSeen) } });
  const tail: DebateEvent[] = [];
  for await (const message of readSse(rest)) tail.push(JSON.parse(message.data) as DebateEvent);
  const tailSeqs = tail.map((e) => e.seq);
  expect(tailSeqs).toEqual([...new Set(tailSeqs)].sort((a, b) => a - b));
  expect(tail.filter((e) => e.type === 'session.ended')).toEqual([tail.at(-1)]);
  expect(tail.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
  expect(tail.find((e) => e.type === 'round.started')).toMatchObject({ round: 2, slots: unanswered });
  expect(tail.some((e) => e.type === 'verdict')).toBe(true);

  await stop(second.run);
  expect(await integrityCheck(join(dataDir, 'consilium.db'))).toBe('ok');
}, 120_000);
