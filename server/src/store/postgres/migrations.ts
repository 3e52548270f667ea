/**
 * The PostgreSQL schema, as numbered migrations applied in order on open. Applied versions are
 * recorded in `schema_migrations`; a migration is never edited once released, only followed.
 */
import type { PoolClient } from 'pg';
import { StoreError } from '../../sessions/store.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions',
    // The same tables as SQLite's. Ids collate "C": byte order, as SQLite compares them, whatever the
    // database's locale. `writer` is the instance that last wrote the session; see `instances`.
    sql: `
      CREATE TABLE sessions (
        id text COLLATE "C" PRIMARY KEY,
        owner text NOT NULL,
        mode text NOT NULL,
        question text NOT NULL,
        status text NOT NULL,
        rounds_requested integer NOT NULL,
        missing_slots integer[] NOT NULL,
        input_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        total_tokens bigint NOT NULL,
        cost_usd double precision NOT NULL,
        cost_priced boolean NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        prompt_version text,
        writer text
      );
      CREATE INDEX sessions_owner_created ON sessions (owner, created_at DESC, id DESC);
      CREATE INDEX sessions_running ON sessions (writer) WHERE status = 'running';

      CREATE TABLE rounds (
        session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        number integer NOT NULL,
        kind text NOT NULL,
        missing_slots integer[] NOT NULL,
        PRIMARY KEY (session_id, number)
      );

      -- The Answer whole in body; usage and outcome also as columns, to query and sum.
      CREATE TABLE answers (
        session_id text COLLATE "C" NOT NULL,
        round integer NOT NULL,
        position integer NOT NULL,
        slot integer NOT NULL,
        provider text NOT NULL,
        model text NOT NULL,
        input_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        total_tokens bigint NOT NULL,
        latency_ms double precision NOT NULL,
        finish_reason text NOT NULL,
        error_code text,
        body jsonb NOT NULL,
        PRIMARY KEY (session_id, round, position),
        FOREIGN KEY (session_id, round) REFERENCES rounds (session_id, number) ON DELETE CASCADE
      );

      CREATE TABLE consensus (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        body jsonb NOT NULL
      );

      CREATE TABLE verdicts (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        body jsonb NOT NULL
      );

      CREATE TABLE events (
        session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        type text NOT NULL,
        body jsonb NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      -- Leases of the running server instances: a session whose writer holds no live lease is orphaned.
      CREATE TABLE instances (
        id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'users, sign-ins, API tokens',
    // The same tables as SQLite's. Secrets are stored as SHA-256 only, passwords as scrypt.
    sql: `
      CREATE TABLE users (
        id text COLLATE "C" PRIMARY KEY,
        username text NOT NULL,
        username_folded text COLLATE "C" NOT NULL UNIQUE,
        role text NOT NULL CHECK (role IN ('admin', 'user')),
        password_hash text NOT NULL,
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );

      CREATE TABLE sign_ins (
        id text COLLATE "C" PRIMARY KEY,
        user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        secret_hash text COLLATE "C" NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sign_ins_by_user ON sign_ins (user_id);

      CREATE TABLE api_tokens (
        id text COLLATE "C" PRIMARY KEY,
        user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        secret_hash text COLLATE "C" NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz,
        expires_at timestamptz
      );
      CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created_at DESC);
    `,
  },
  {
    version: 3,
    name: 'threads (follow-ups), synthesis sources, early stops',
    sql: `
      ALTER TABLE sessions ADD COLUMN thread_id text COLLATE "C"; -- the thread's first session; NULL when alone
      ALTER TABLE sessions ADD COLUMN links jsonb; -- parentId, sourceSessionId, earlyStop
      CREATE INDEX sessions_by_thread ON sessions (thread_id, created_at) WHERE thread_id IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: 'bodies as json, which keeps any text a model sends',
    // jsonb refuses `\u0000` and a lone surrogate's escape (it cannot hold them as text), so an answer or
    // event carrying one failed the whole write; json keeps the escapes as they were sent.
    sql: `
      ALTER TABLE answers ALTER COLUMN body TYPE json USING body::json;
      ALTER TABLE consensus ALTER COLUMN body TYPE json USING body::json;
      ALTER TABLE verdicts ALTER COLUMN body TYPE json USING body::json;
      ALTER TABLE events ALTER COLUMN body TYPE json USING body::json;
    `,
  },
  {
    version: 6,
    name: 'rate limits and running debates, shared by the instances',
    // Keys are hashes (see limits.ts). A bucket is as good as absent once `full_at` has passed, and a slot once its
    // instance's lease (`instances`) is gone: both are swept.
    sql: `
      CREATE TABLE limit_buckets (
        key text COLLATE "C" PRIMARY KEY,
        tokens double precision NOT NULL,
        at timestamptz NOT NULL,
        took boolean NOT NULL,
        full_at timestamptz NOT NULL
      );
      CREATE INDEX limit_buckets_full_at ON limit_buckets (full_at);

      CREATE TABLE limit_slots (
        id text COLLATE "C" PRIMARY KEY,
        key text COLLATE "C" NOT NULL,
        instance text NOT NULL,
        acquired_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX limit_slots_by_key ON limit_slots (key);
    `,
  },
];

/** Serializes migrations across instances; any constant unlikely to collide with another application's. */
const MIGRATION_LOCK = 0x636f6e73696c69n; // "consili"

/**
 * Applies the missing migrations, each in its own transaction, under a session advisory lock, so
 * instances starting together migrate once and the later ones find the work done.
 */
export async function migrate(client: PoolClient, list: readonly Migration[] = migrations): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const known = Math.max(0, ...list.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new StoreError(
        'unavailable',
        `The database's schema is at version ${newest}, newer than this server knows (${known}); upgrade the server.`,
      );
    }
    const done: number[] = [];
    for (const migration of [...list].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      done.push(migration.version);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
}
