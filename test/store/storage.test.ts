/**
 * What a finished debate costs on disk (SQLite, real offline debates through the app): at most 3× its text plus
 * 8 KB once its events are archived; retention deletes old sessions and the file gives their pages back.
 */
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { maintain } from '../../server/src/sessions/maintenance.js';
import { Connection } from '../../server/src/store/sqlite/connection.js';
import { type RunningServer, startServer } from '../support/server.js';

const DEBATES = 20;

/** The answers' and the verdict's text, in UTF-8 bytes. */
function textBytes(s: Session): number {
  const texts = [...s.rounds.flatMap((r) => r.answers.map((a) => a.text)), s.verdict?.summary ?? '', s.verdict?.answer ?? ''];
  return texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
}

describe('storage proportional to the text (SQLite)', () => {
  let server: RunningServer;
  let db: Connection;
  const pages = async () => {
    await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const { page_count } = (await db.first<{ page_count: number }>('PRAGMA page_count'))!;
    const { freelist_count } = (await db.first<{ freelist_count: number }>('PRAGMA freelist_count'))!;
    return { used: page_count - freelist_count, total: page_count };
  };
  beforeAll(async () => {
    server = await startServer();
    db = await Connection.open(server.config.database, sqlite3.OPEN_READWRITE);
    await db.exec('PRAGMA busy_timeout = 5000');
  });
  afterAll(async () => {
    await db?.close();
    await server?.close();
  });

  it('a finished debate keeps at most 3x its text plus 8 KB, and replays its whole text', async () => {
    expect((await db.first<{ auto_vacuum: number }>('PRAGMA auto_vacuum'))!.auto_vacuum).toBe(2); // incremental
    const before = await pages();
    let text = 0;
    const ids: string[] = [];
    for (let i = 0; i < DEBATES; i++) {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: `Storage question ${i}: shard or not?`, rounds: 2 }),
      });
      const session = (await res.json()) as Session;
      expect(session.status).toBe('completed');
      text += textBytes(session);
      ids.push(session.id);
    }
    await server.database.sessions.archivesDone();
    const after = await pages();
    const perDebate = ((after.used - before.used) * 4096) / DEBATES;
    expect(perDebate).toBeLessThanOrEqual((3 * text) / DEBATES + 8192);
    expect((await db.first<{ n: number }>('SELECT count(*) AS n FROM events'))!.n).toBe(0);
    // Replayed from the archive: each answer's deltas join into its text.
    const session = (await (await server.fetch(`/sessions/${ids[0]}`)).json()) as Session;
    const events = await server.database.sessions.events(ids[0]!, 0);
    const joined = events.flatMap((e) => (e.type === 'answer.delta' && e.round === 2 && e.slot === 1 ? [e.delta] : [])).join('');
    expect(joined).toBe(session.rounds[1]!.answers.find((a) => a.slot === 1)!.text);
  });

  it('retention deletes sessions older than the setting and gives their pages back to the file system', async () => {
    const full = await pages();
    const kept = (await server.sessions.store.list({ limit: 100 })).items.length;
    expect(kept).toBeGreaterThanOrEqual(DEBATES);
    // Nothing is that old yet.
    expect(await maintain(server.sessions, { retentionDays: 1 })).toStrictEqual({ archived: 0, deleted: 0 });
    const later = new Date(Date.now() + 2 * 86_400_000);
    expect((await maintain(server.sessions, { retentionDays: 1, now: () => later })).deleted).toBe(kept);
    expect((await server.sessions.store.list({ limit: 100 })).items).toStrictEqual([]);
    const emptied = await pages();
    expect(emptied.total).toBeLessThan(full.total);
  });
});
