/**
 * Bytes stored per finished debate, as a ratio to its text (the answers' and the verdict's), before and after
 * archiving: real offline 2-round debates through the app on SQLite; "after" is the file as the store leaves it,
 * "before" the same file with every archive put back as one row per event (what the store wrote before archives).
 * Both are measured as compact copies (`VACUUM INTO`), less an empty store's copy.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import type { Session } from '../sdk/src/generated/types.gen.js';
import { eventJson } from '../server/src/debate/events.js';
import { unpackEvents } from '../server/src/store/archive.js';
import { Connection } from '../server/src/store/sqlite/connection.js';
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';

const DEBATES = 100;

export async function benchStorage(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-bench-storage-'));
  const server = await startServer();
  try {
    const db = await Connection.open(server.config.database, sqlite3.OPEN_READWRITE);
    let n = 0;
    const compact = async (from: Connection) => {
      const file = join(dir, `copy-${++n}.db`);
      await from.run('VACUUM INTO ?1', [file]);
      return { file, bytes: statSync(file).size };
    };
    const empty = await compact(db);
    let text = 0;
    for (let i = 0; i < DEBATES; i++) {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: `Storage bench ${i}: shard the sessions table by owner?`, rounds: 2 }),
      });
      const s = (await res.json()) as Session;
      const texts = [...s.rounds.flatMap((r) => r.answers.map((a) => a.text)), s.verdict?.summary ?? '', s.verdict?.answer ?? ''];
      text += texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
    }
    // Each ended session is archived just after its end, in the background.
    await server.database.sessions.archivesDone();
    const after = await compact(db);
    await db.close();
    // The same sessions unarchived: each archive back as rows, as the store kept them before.
    const beforeFile = join(dir, 'before.db');
    copyFileSync(after.file, beforeFile);
    const old = await Connection.open(beforeFile, sqlite3.OPEN_READWRITE);
    for (const { session_id, body } of await old.all<{ session_id: string; body: Buffer }>(
      'SELECT session_id, body FROM event_archives',
    )) {
      const rows = unpackEvents(body).map((e) => [e.seq, e.type, eventJson(e)]);
      await old.run(
        'INSERT INTO events (session_id, seq, type, body) SELECT ?1, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?2)',
        [session_id, JSON.stringify(rows)],
      );
    }
    await old.exec('DELETE FROM event_archives');
    const before = await compact(old);
    await old.close();

    const perText = (bytes: number) => (bytes - empty.bytes) / text;
    const perDebate = (bytes: number) => (bytes - empty.bytes) / DEBATES / 1024;
    console.log(
      `storage: ${DEBATES} offline 2-round debates, ${(text / DEBATES / 1024).toFixed(1)} KB of text each; ` +
        `before ${perDebate(before.bytes).toFixed(1)} KB (${perText(before.bytes).toFixed(1)}x the text), ` +
        `after ${perDebate(after.bytes).toFixed(1)} KB (${perText(after.bytes).toFixed(2)}x the text); ` +
        `goal <= 3x + 8 KB = ${((3 * text) / DEBATES / 1024 + 8).toFixed(1)} KB`,
    );
    record({
      id: 'before',
      label: 'bytes stored per debate / its text, events as rows (before archives)',
      value: round(perText(before.bytes), 1),
      unit: '×',
    });
    record({
      id: 'after',
      label: 'bytes stored per debate / its text, events archived',
      value: round(perText(after.bytes), 2),
      unit: '×',
    });
    record({
      id: 'after-kb',
      label: 'bytes stored per finished debate, events archived',
      value: round(perDebate(after.bytes), 1),
      unit: 'KB',
      goal: { op: '≤', value: round((3 * text) / DEBATES / 1024 + 8, 1) },
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
