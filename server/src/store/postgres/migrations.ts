/**
 * The PostgreSQL schema, as numbered migrations applied in order on open. Applied versions are
 * recorded in `schema_migrations`; a migration is never edited once released, only followed.
 * The numbering is SQLite's too (`sqlite/migrations.ts`): a number names the same change in both lists,
 * and 4, 5 and 6 are PostgreSQL's alone. A new migration takes the next number neither list has used.
 */
import type { PoolClient } from 'pg';
import { SEARCH_TEXT_CHARS, StoreError } from '../../sessions/store.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, rounds, answers, consensus, verdicts, events',
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
    version: 5,
    name: 'a step in one statement, written only by the instance running its session',
    // One round trip per step: a transaction of eight statements held its connection idle in transaction
    // for eight event-loop turns, and under load the pool's connections queued behind each other.
    // A run's later step (p_run = 'later') and a first step's retry write only a session still `running`
    // and this instance's: a session deleted, or recovered by another instance, answers 'gone'.
    sql: `
      -- Deleted sessions' ids, so a run's step still on its way (a retry of its first) cannot create one again.
      CREATE TABLE deleted_sessions (
        id text COLLATE "C" PRIMARY KEY,
        deleted_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE FUNCTION consilium_write_step(
        p_writer text, p_run text,
        p_id text, p_owner text, p_mode text, p_question text, p_status text, p_rounds_requested integer,
        p_missing integer[], p_input bigint, p_output bigint, p_total bigint, p_cost double precision,
        p_priced boolean, p_created timestamptz, p_updated timestamptz, p_completed timestamptz,
        p_prompt_version text, p_thread text, p_links jsonb,
        p_round_numbers integer[], p_round_shapes json,
        a_round integer[], a_position integer[], a_slot integer[], a_provider text[], a_model text[],
        a_input bigint[], a_output bigint[], a_total bigint[], a_latency double precision[], a_finish text[],
        a_error text[], a_body json[],
        p_set_consensus boolean, p_consensus json, p_set_verdict boolean, p_verdict json,
        e_seq integer[], e_type text[], e_body json[],
        p_channel text, p_notice text
      ) RETURNS text LANGUAGE plpgsql AS $fn$
      DECLARE
        top integer;
        fresh integer;
        known integer;
      BEGIN
        IF p_run = 'later' THEN
          UPDATE sessions SET owner = p_owner, mode = p_mode, question = p_question, status = p_status,
            rounds_requested = p_rounds_requested, missing_slots = p_missing, input_tokens = p_input,
            output_tokens = p_output, total_tokens = p_total, cost_usd = p_cost, cost_priced = p_priced,
            created_at = p_created, updated_at = p_updated, completed_at = p_completed,
            prompt_version = p_prompt_version, thread_id = p_thread, links = p_links
          WHERE id = p_id AND writer = p_writer AND status = 'running';
        ELSIF p_run = 'first' AND EXISTS (SELECT 1 FROM deleted_sessions WHERE id = p_id) THEN
          RETURN 'gone';
        ELSE
          INSERT INTO sessions (id, owner, mode, question, status, rounds_requested, missing_slots, input_tokens,
            output_tokens, total_tokens, cost_usd, cost_priced, created_at, updated_at, completed_at, prompt_version,
            writer, thread_id, links)
          VALUES (p_id, p_owner, p_mode, p_question, p_status, p_rounds_requested, p_missing, p_input, p_output,
            p_total, p_cost, p_priced, p_created, p_updated, p_completed, p_prompt_version, p_writer, p_thread, p_links)
          ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, mode = EXCLUDED.mode, question = EXCLUDED.question,
            status = EXCLUDED.status, rounds_requested = EXCLUDED.rounds_requested, missing_slots = EXCLUDED.missing_slots,
            input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
            total_tokens = EXCLUDED.total_tokens, cost_usd = EXCLUDED.cost_usd, cost_priced = EXCLUDED.cost_priced,
            created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, completed_at = EXCLUDED.completed_at,
            prompt_version = EXCLUDED.prompt_version, writer = EXCLUDED.writer, thread_id = EXCLUDED.thread_id,
            links = EXCLUDED.links
          WHERE p_run IS NULL OR (sessions.writer = p_writer AND sessions.status = 'running');
        END IF;
        IF NOT FOUND THEN
          RETURN 'gone';
        END IF;

        IF cardinality(p_round_numbers) > 0 THEN
          DELETE FROM rounds WHERE session_id = p_id AND number = ANY (p_round_numbers);
          INSERT INTO rounds (session_id, number, kind, missing_slots)
          SELECT p_id, (r->>'number')::integer, r->>'kind', ARRAY(SELECT json_array_elements_text(r->'missingSlots')::integer)
          FROM json_array_elements(p_round_shapes) r;
          INSERT INTO answers (session_id, round, position, slot, provider, model, input_tokens, output_tokens,
            total_tokens, latency_ms, finish_reason, error_code, body)
          SELECT p_id, t.* FROM unnest(a_round, a_position, a_slot, a_provider, a_model, a_input, a_output, a_total,
            a_latency, a_finish, a_error, a_body) AS t;
        END IF;
        IF p_set_consensus THEN
          IF p_consensus IS NULL THEN
            DELETE FROM consensus WHERE session_id = p_id;
          ELSE
            INSERT INTO consensus (session_id, body) VALUES (p_id, p_consensus)
            ON CONFLICT (session_id) DO UPDATE SET body = EXCLUDED.body;
          END IF;
        END IF;
        IF p_set_verdict THEN
          IF p_verdict IS NULL THEN
            DELETE FROM verdicts WHERE session_id = p_id;
          ELSE
            INSERT INTO verdicts (session_id, body) VALUES (p_id, p_verdict)
            ON CONFLICT (session_id) DO UPDATE SET body = EXCLUDED.body;
          END IF;
        END IF;

        IF cardinality(e_seq) > 0 THEN
          SELECT COALESCE(max(seq), 0) INTO top FROM events WHERE session_id = p_id;
          INSERT INTO events (session_id, seq, type, body)
          SELECT p_id, e.seq, e.type, e.body FROM unnest(e_seq, e_type, e_body) AS e(seq, type, body) WHERE e.seq > top;
          GET DIAGNOSTICS fresh = ROW_COUNT;
          -- A retried step whose first attempt committed unseen (the connection broke on the reply) finds its events stored.
          SELECT count(*) INTO known FROM events ev JOIN unnest(e_seq, e_body) AS e(seq, body) ON ev.seq = e.seq
          WHERE ev.session_id = p_id AND e.seq <= top AND ev.body::text = e.body::text;
          IF fresh + known <> cardinality(e_seq) THEN
            RAISE EXCEPTION 'session %: an event''s seq is not above every stored event''s', p_id USING ERRCODE = 'unique_violation';
          END IF;
        END IF;
        PERFORM pg_notify(p_channel, p_notice);
        RETURN 'ok';
      END
      $fn$;
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
  {
    version: 7,
    name: 'event archives of ended sessions; sessions by age, for retention',
    // As SQLite's: an ended session's events compressed in one row (store/archive.ts), rows left in `events`
    // above `last_seq`. Sessions already stored are archived by the maintenance sweep, not here.
    sql: `
      CREATE TABLE event_archives (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        last_seq integer NOT NULL,
        body bytea NOT NULL
      );
      -- Already compressed: TOAST stores it out of line without trying to compress it again.
      ALTER TABLE event_archives ALTER COLUMN body SET STORAGE EXTERNAL;
      CREATE INDEX sessions_by_age ON sessions (created_at);
    `,
  },
  {
    version: 8,
    name: 'credential epochs: a password reset or disabling ends sign-ins and tokens for good',
    // Existing sign-ins and tokens are of epoch 0, as their users are: they keep working until the next change.
    sql: `
      ALTER TABLE users ADD COLUMN credentials_epoch integer NOT NULL DEFAULT 0;
      ALTER TABLE sign_ins ADD COLUMN epoch integer NOT NULL DEFAULT 0;
      ALTER TABLE api_tokens ADD COLUMN epoch integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 9,
    name: 'archived sessions, read-only shares, full-text search over questions, answers and verdicts',
    // As SQLite's, with PostgreSQL's own full-text search: one tsvector per session ('simple': words as they
    // are, in any language, as SQLite's unicode61 keeps them), kept in step by triggers on what a step writes
    // (the question, answers, the verdict), so no path that writes them can leave the index behind.
    sql: `
      ALTER TABLE sessions ADD COLUMN archived_at timestamptz;
      CREATE TABLE session_shares (
        session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, user_id)
      );
      CREATE INDEX session_shares_by_user ON session_shares (user_id, session_id);

      CREATE TABLE session_search (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        document tsvector NOT NULL
      );
      CREATE INDEX session_search_document ON session_search USING gin (document);

      -- A stored body the index can read text from: json's -> and ->> refuse a \\u0000 or a lone surrogate's escape
      -- (which answers may hold, and the steps store), so both go, and nothing else (an escaped backslash stays one).
      -- JSON.stringify escapes a surrogate only when it is alone.
      CREATE FUNCTION consilium_clean_json(j json) RETURNS json LANGUAGE sql IMMUTABLE AS $fn$
        SELECT regexp_replace(j::text, '(\\\\\\\\)|\\\\u0000|\\\\ud[89a-f][0-9a-f]{2}', '\\1', 'gi')::json
      $fn$;
      -- Positions stripped: only membership is asked, and a stripped vector stays far under the 1 MB limit.
      CREATE FUNCTION consilium_index_session(p_id text) RETURNS void LANGUAGE sql AS $fn$
        INSERT INTO session_search (session_id, document)
        SELECT s.id, strip(to_tsvector('simple', left(concat_ws(' ', s.question,
          (SELECT concat_ws(' ', v.body ->> 'summary', v.body ->> 'answer', v.body ->> 'rawText',
              (SELECT string_agg(concat_ws(' ', x ->> 'title', x ->> 'rationale'), ' ')
               FROM json_each(v.body -> 'actions') AS g, json_array_elements(g.value) AS x))
            FROM (SELECT consilium_clean_json(body) AS body FROM verdicts WHERE session_id = s.id) v),
          (SELECT string_agg(consilium_clean_json(a.body) ->> 'text', ' ' ORDER BY a.round, a.position)
           FROM answers a WHERE a.session_id = s.id)
        ), ${SEARCH_TEXT_CHARS})))
        FROM sessions s WHERE s.id = p_id
        ON CONFLICT (session_id) DO UPDATE SET document = EXCLUDED.document;
      $fn$;
      CREATE FUNCTION consilium_index_session_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM consilium_index_session(NEW.id);
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER sessions_indexed AFTER INSERT ON sessions
        FOR EACH ROW EXECUTE FUNCTION consilium_index_session_row();
      CREATE TRIGGER sessions_reindexed AFTER UPDATE OF question ON sessions
        FOR EACH ROW WHEN (OLD.question IS DISTINCT FROM NEW.question) EXECUTE FUNCTION consilium_index_session_row();
      CREATE FUNCTION consilium_index_verdict_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM consilium_index_session(OLD.session_id);
        ELSE
          PERFORM consilium_index_session(NEW.session_id);
        END IF;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER verdicts_indexed AFTER INSERT OR UPDATE OR DELETE ON verdicts
        FOR EACH ROW EXECUTE FUNCTION consilium_index_verdict_row();
      -- Once per statement: a step writes a round's answers in one INSERT.
      CREATE FUNCTION consilium_index_answers() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
      BEGIN
        FOR r IN SELECT DISTINCT session_id FROM added LOOP
          PERFORM consilium_index_session(r.session_id);
        END LOOP;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER answers_indexed AFTER INSERT ON answers
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION consilium_index_answers();
      SELECT consilium_index_session(id) FROM sessions;
    `,
  },
  {
    version: 10,
    name: "a grounded session's page texts in a table of their own, out of the sessions' links",
    // As SQLite's: each page's text once per session, keyed by its number; links keeps the pages without it, so
    // a list (which reads links whole) or a step never carries the texts. Stored sessions move over.
    sql: `
      CREATE TABLE session_sources (
        session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        n integer NOT NULL,
        sha256 text NOT NULL,
        text text NOT NULL,
        PRIMARY KEY (session_id, n)
      );
      INSERT INTO session_sources (session_id, n, sha256, text)
        SELECT s.id, (p ->> 'n')::integer, p ->> 'sha256', p ->> 'text'
        FROM sessions s, jsonb_array_elements(s.links -> 'grounding' -> 'pages') AS p
        WHERE jsonb_typeof(s.links -> 'grounding' -> 'pages') = 'array' AND p ->> 'text' IS NOT NULL;
      UPDATE sessions SET links = jsonb_set(links, '{grounding,pages}',
          (SELECT coalesce(jsonb_agg(e.p - 'text' ORDER BY e.o), '[]'::jsonb)
           FROM jsonb_array_elements(links -> 'grounding' -> 'pages') WITH ORDINALITY AS e (p, o)))
        WHERE jsonb_typeof(links -> 'grounding' -> 'pages') = 'array';
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
