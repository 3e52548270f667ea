/**
 * The SQLite schema as numbered migrations, applied in order on open, each in its own transaction
 * and recorded in `schema_migrations`. Never edit a released migration; add the next one.
 *
 * One numbering serves both dialects: a number names the same change on SQLite and on PostgreSQL
 * (`postgres/migrations.ts`), and a number that one dialect has no use for is absent from its list.
 * A new migration takes the next number neither list has used.
 */
import { StoreError } from '../../sessions/store.js';
import type { Connection } from './connection.js';
import { SEARCH_DOCUMENT } from './search.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, rounds, answers, consensus, verdicts, events',
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        mode TEXT NOT NULL,
        question TEXT NOT NULL,
        -- Lower-cased by the store (Unicode-aware, unlike SQLite's LIKE) for the case-insensitive search.
        question_folded TEXT NOT NULL,
        rounds_requested INTEGER NOT NULL,
        status TEXT NOT NULL,
        missing_slots TEXT NOT NULL, -- JSON array of slot numbers
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        -- The Cost as JSON, read back exactly (SQLite's text-to-REAL conversion is not always correctly
        -- rounded); cost_usd is derived from it for queries and sums.
        cost TEXT NOT NULL,
        cost_usd REAL GENERATED ALWAYS AS (cost ->> 'usd') VIRTUAL,
        prompt_version TEXT,
        created_at TEXT NOT NULL, -- ISO 8601 UTC, so text order is time order
        updated_at TEXT NOT NULL,
        completed_at TEXT
      ) STRICT;
      CREATE INDEX sessions_by_owner ON sessions (owner, created_at DESC, id DESC);
      CREATE INDEX sessions_running ON sessions (status) WHERE status = 'running';

      CREATE TABLE rounds (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        kind TEXT NOT NULL,
        missing_slots TEXT NOT NULL, -- JSON array
        PRIMARY KEY (session_id, number)
      ) STRICT, WITHOUT ROWID;

      -- The Answer as JSON in body; usage and outcome also as columns, to query and sum.
      CREATE TABLE answers (
        session_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        position INTEGER NOT NULL, -- order within the round
        slot INTEGER NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        latency_ms REAL NOT NULL,
        finish_reason TEXT NOT NULL,
        error_code TEXT,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, round, position),
        -- Through the round to the session: deleting either deletes the answers.
        FOREIGN KEY (session_id, round) REFERENCES rounds (session_id, number) ON DELETE CASCADE
      ) STRICT;

      CREATE TABLE consensus (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        body TEXT NOT NULL
      ) STRICT;

      CREATE TABLE verdicts (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        body TEXT NOT NULL
      ) STRICT;

      -- Replay reads one session's events in seq order: clustered on (session_id, seq).
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL, -- the whole DebateEvent as JSON
        PRIMARY KEY (session_id, seq)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'users, sign-ins, API tokens',
    // Secrets are stored as SHA-256 only, passwords as scrypt. Sessions from before accounts keep
    // their owner ('local') until the first admin is created, who adopts them.
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        username_folded TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
        password_hash TEXT NOT NULL,
        disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE sign_ins (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX sign_ins_by_user ON sign_ins (user_id);

      CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        expires_at TEXT
      ) STRICT;
      CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created_at DESC);
    `,
  },
  {
    version: 3,
    name: 'threads (follow-ups), synthesis sources, early stops',
    sql: `
      ALTER TABLE sessions ADD COLUMN thread_id TEXT; -- the thread's first session; NULL when alone
      -- The session's optional links as JSON: parentId, sourceSessionId, earlyStop.
      ALTER TABLE sessions ADD COLUMN links TEXT;
      CREATE INDEX sessions_by_thread ON sessions (thread_id, created_at) WHERE thread_id IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: 'event archives of ended sessions; sessions by age, for retention',
    // An ended session's events, compressed in one row (store/archive.ts); rows left in `events` are
    // above `last_seq`. Sessions already stored are archived by the maintenance sweep, not here.
    sql: `
      CREATE TABLE event_archives (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        last_seq INTEGER NOT NULL,
        body BLOB NOT NULL -- brotli of the events' JSON array
      ) STRICT;
      CREATE INDEX sessions_by_age ON sessions (created_at);
    `,
  },
  {
    version: 8,
    name: 'credential epochs: a password reset or disabling ends sign-ins and tokens for good',
    // Existing sign-ins and tokens are of epoch 0, as their users are: they keep working until the next change.
    sql: `
      ALTER TABLE users ADD COLUMN credentials_epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sign_ins ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_tokens ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 9,
    name: 'archived sessions, read-only shares, full-text search over questions, answers and verdicts',
    // The search index is FTS5, contentless (the text is in answers and verdicts already), keyed by
    // `session_search.id`: an INTEGER PRIMARY KEY, which VACUUM keeps (a session's own rowid it may renumber).
    // The steps keep it in step (steps.ts); deleting a session deletes its key, whose trigger deletes its text.
    sql: `
      ALTER TABLE sessions ADD COLUMN archived_at TEXT;
      CREATE TABLE session_shares (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, user_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX session_shares_by_user ON session_shares (user_id, session_id);

      CREATE TABLE session_search (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE
      ) STRICT;
      CREATE VIRTUAL TABLE session_text USING fts5 (
        body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
      );
      CREATE TRIGGER session_search_deleted AFTER DELETE ON session_search BEGIN
        DELETE FROM session_text WHERE rowid = old.id;
      END;
      INSERT INTO session_search (session_id) SELECT id FROM sessions;
      INSERT INTO session_text (rowid, body) SELECT k.id, ${SEARCH_DOCUMENT} FROM session_search AS k JOIN sessions AS s ON s.id = k.session_id;
    `,
  },
  {
    version: 10,
    name: "a grounded session's page texts in a table of their own, out of the sessions' links",
    // Each page's text once per session (its number is its key; a page's text never changes once read); `links`
    // keeps the pages without it, so a step or a list never carries the texts. Stored sessions move over.
    sql: `
      CREATE TABLE session_sources (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (session_id, n)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO session_sources (session_id, n, sha256, text)
        SELECT s.id, p.value ->> 'n', p.value ->> 'sha256', p.value ->> 'text'
        FROM sessions AS s, json_each(s.links, '$.grounding.pages') AS p
        WHERE s.links ->> '$.grounding' IS NOT NULL AND p.value ->> 'text' IS NOT NULL;
      UPDATE sessions SET links = json_set(links, '$.grounding.pages',
          (SELECT json_group_array(json_remove(p.value, '$.text')) FROM json_each(links, '$.grounding.pages') AS p))
        WHERE links ->> '$.grounding' IS NOT NULL;
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * SQLite's versions from before the numbering was shared, each to its number now, highest first (the
 * version is the key). 4, 5 and 6 are PostgreSQL's own now, so a file holding any of them is numbered
 * the old way.
 */
const RENUMBERED: readonly (readonly [from: number, to: number])[] = [
  [7, 10],
  [6, 9],
  [5, 8],
  [4, 7],
];

async function renumber(db: Connection): Promise<void> {
  const old = 'SELECT 1 AS old FROM schema_migrations WHERE version IN (4, 5, 6) LIMIT 1';
  if (!(await db.first(old))) return;
  await db.exec('BEGIN IMMEDIATE');
  try {
    // Checked again under the write lock: another process may have renumbered it meanwhile.
    if (await db.first(old)) {
      for (const [from, to] of RENUMBERED) await db.run('UPDATE schema_migrations SET version = ? WHERE version = ?', [to, from]);
    }
    await db.exec('COMMIT');
  } catch (error) {
    await db.exec('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Brings the database up to the last migration's version; refuses one written by a newer build. Returns the version. */
export async function migrate(db: Connection, file: string, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const latest = migrations.at(-1)?.version ?? 0;
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const current = async () => (await db.first<{ v: number }>('SELECT coalesce(max(version), 0) AS v FROM schema_migrations'))!.v;
  await renumber(db);

  const found = await current();
  if (found > latest) {
    throw new StoreError(
      'unavailable',
      `${file} has schema version ${found}, newer than this build knows (${latest}); ` +
        'run the Consilium version that wrote it, or restore a backup made by this one',
    );
  }
  const applied = async () =>
    new Set((await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  const before = await applied();
  // Each missing version, whatever the highest applied: branches add migrations out of order.
  for (const migration of migrations) {
    if (before.has(migration.version)) continue;
    // IMMEDIATE takes the write lock first, so two processes opening at once apply it once.
    await db.exec('BEGIN IMMEDIATE');
    try {
      if (!(await applied()).has(migration.version)) {
        await db.exec(migration.sql);
        await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
          migration.version,
          migration.name,
          new Date().toISOString(),
        ]);
      }
      await db.exec('COMMIT');
    } catch (error) {
      await db.exec('ROLLBACK').catch(() => {});
      throw error;
    }
  }
  return current();
}
