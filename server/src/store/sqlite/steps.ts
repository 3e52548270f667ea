/**
 * The SQL that writes steps: each statement covers any number of steps of distinct sessions, with the
 * data inlined as SQL literals, so a transaction of many steps is a handful of statements in one `exec`.
 */
import { eventJson } from '../../debate/events.js';
import type { Step } from '../../sessions/store.js';
import { answerColumns } from '../columns.js';
import { indexSessions } from './search.js';

// Each write statement covers any number of steps, so a transaction of a hundred steps and their
// thousands of events is a handful of statements. Rows go as tuples of literals made here (`row`),
// not as JSON that SQLite takes apart: `json_each` renders every element out of the array as text
// again and parses it once more per column, which would be most of the CPU of a write.
const upsertSessions = (rows: readonly string[]) => `
  INSERT INTO sessions (id, owner, mode, question, question_folded, rounds_requested, status, missing_slots,
    input_tokens, output_tokens, total_tokens, cost, prompt_version, created_at, updated_at, completed_at, thread_id, links)
  VALUES ${rows.join(',')}
  ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, mode = excluded.mode, question = excluded.question,
    question_folded = excluded.question_folded, rounds_requested = excluded.rounds_requested, status = excluded.status,
    missing_slots = excluded.missing_slots, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    total_tokens = excluded.total_tokens, cost = excluded.cost, prompt_version = excluded.prompt_version,
    created_at = excluded.created_at, updated_at = excluded.updated_at, completed_at = excluded.completed_at,
    thread_id = excluded.thread_id, links = excluded.links;`;
// Deleting a round deletes its answers (ON DELETE CASCADE). `a` is [[sessionId, number], ...].
const deleteRounds = (a: string) =>
  `DELETE FROM rounds WHERE (session_id, number) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${a}));`;
const insertRounds = (rows: readonly string[]) =>
  `INSERT INTO rounds (session_id, number, kind, missing_slots) VALUES ${rows.join(',')};`;
const insertAnswers = (rows: readonly string[]) => `
  INSERT INTO answers (session_id, round, position, slot, provider, model, input_tokens, output_tokens, total_tokens,
    latency_ms, finish_reason, error_code, body)
  VALUES ${rows.join(',')};`;
const upsertBody = (table: string, rows: readonly string[]) => `
  INSERT INTO ${table} (session_id, body) VALUES ${rows.join(',')}
  ON CONFLICT (session_id) DO UPDATE SET body = excluded.body;`;
// A page's text never changes once read: a step writes the pages it has, and those already stored stay as they are.
const insertSources = (rows: readonly string[]) =>
  `INSERT INTO session_sources (session_id, n, sha256, text) VALUES ${rows.join(',')} ON CONFLICT DO NOTHING;`;
// `a` is [sessionId, ...].
const deleteBody = (table: string, a: string) => `DELETE FROM ${table} WHERE session_id IN (SELECT value FROM json_each(${a}));`;
// `a` is [{ s: sessionId, e: DebateEvent }, ...] (recovery's end events; steps use `insertEventRows`).
export const insertEvents = (a: string) => `
  INSERT INTO events (session_id, seq, type, body)
  SELECT value ->> 's', value ->> '$.e.seq', value ->> '$.e.type', value -> 'e' FROM json_each(${a});`;
// Events are two thirds of what a debate writes; each body is the event's JSON made once for its stream too.
const insertEventRows = (rows: readonly string[]) => `INSERT INTO events (session_id, seq, type, body) VALUES ${rows.join(',')};`;

/**
 * One row of SQL literals: text quoted (`quoted`; with a NUL in it, as JSON that SQLite decodes), a finite number as it is, an object or array as
 * its JSON text, `undefined` and `null` as NULL. A number that is not finite is NULL too, as its
 * JSON (`null`) was: a NOT NULL column then fails the step rather than store a wrong value.
 */
function row(...values: unknown[]): string {
  let out = '(';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === undefined || v === null) out += 'NULL';
    // `exec` takes the SQL as a C string, which ends at a NUL: such text goes as JSON, read back by SQLite.
    else if (typeof v === 'string') out += v.includes('\0') ? `(${literal(v)} ->> '$')` : quoted(v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'NULL';
    else if (typeof v === 'boolean') out += v ? '1' : '0';
    else out += literal(v);
  }
  return `${out})`;
}

/**
 * A JSON text as an SQL string literal, quoted the way SQLite's own `%Q` does (the one escape there
 * is: ' becomes ''). Why not a bound parameter: node-sqlite3 makes every statement a trip to its
 * worker thread and back through the event loop, and on a busy server each trip waits its turn, so
 * a step of eight parameterized statements took 50–90 ms under a running debate; inlined, a whole
 * transaction is one `exec`, one trip.
 */
function literal(value: unknown): string {
  return quoted(JSON.stringify(value));
}

/** A text (JSON, or a plain string) as an SQL string literal (see `literal`). */
function quoted(json: string): string {
  return `'${json.replaceAll("'", "''")}'`;
}

/** The statements writing steps of distinct sessions, one per table, data inlined. */
export function stepsSql(steps: readonly Step[]): string {
  const headers: string[] = [];
  const roundKeys: [string, number][] = [];
  const rounds: string[] = [];
  const answers: string[] = [];
  const bodies = {
    consensus: { set: [] as string[], cleared: [] as string[] },
    verdicts: { set: [] as string[], cleared: [] as string[] },
  };
  const events: string[] = [];
  const indexed: string[] = [];
  const sources: string[] = [];
  for (const { session: s, ...step } of steps) {
    // The searchable text changes with the question (a session's first step), an answer or the verdict.
    if (step.run !== 'later' || (step.rounds?.length ?? 0) > 0 || step.verdict) indexed.push(s.id);
    const id = quoted(s.id);
    const { parentId, sourceSessionId, earlyStop, panel, labels, rankings, promptCuts, integrity, adaptive, tags } = s;
    const { endReason, unmatchedLabels } = s;
    // A grounded session's pages go in `links` without their text, which is written once to `session_sources`.
    const grounding = s.grounding && { ...s.grounding, pages: s.grounding.pages.map(({ text: _, ...p }) => p) };
    const links = {
      parentId,
      sourceSessionId,
      earlyStop,
      panel,
      labels,
      rankings,
      promptCuts,
      grounding,
      integrity,
      adaptive,
      tags,
      unmatchedLabels,
      endReason,
    };
    for (const p of s.grounding?.pages ?? []) if (p.text !== undefined) sources.push(row(s.id, p.n, p.sha256, p.text));
    const linked = Object.values(links).some((v) => v !== undefined);
    headers.push(
      row(
        s.id,
        s.owner,
        s.mode,
        s.question,
        s.question.toLowerCase(),
        s.roundsRequested,
        s.status,
        s.missingSlots,
        s.usage.inputTokens,
        s.usage.outputTokens,
        s.usage.totalTokens,
        s.cost,
        s.promptVersion,
        s.createdAt,
        s.updatedAt,
        s.completedAt,
        s.threadId,
        linked ? links : undefined,
      ),
    );
    for (const number of step.rounds ?? []) {
      roundKeys.push([s.id, number]);
      const round = s.rounds.find((r) => r.number === number);
      if (!round) continue;
      rounds.push(row(s.id, round.number, round.kind, round.missingSlots));
      for (const [position, a] of round.answers.entries()) {
        answers.push(row(s.id, ...answerColumns(round.number, position, a), a));
      }
    }
    if (step.consensus) {
      if (s.consensus) bodies.consensus.set.push(row(s.id, s.consensus));
      else bodies.consensus.cleared.push(s.id);
    }
    if (step.verdict) {
      if (s.verdict) bodies.verdicts.set.push(row(s.id, s.verdict));
      else bodies.verdicts.cleared.push(s.id);
    }
    // A NULL seq (never, from the recorder) fails the step on the NOT NULL column rather than write a wrong row.
    for (const e of step.events)
      events.push(`(${id},${Number.isSafeInteger(e.seq) ? e.seq : 'NULL'},${quoted(e.type)},${quoted(eventJson(e))})`);
  }
  const sql = [upsertSessions(headers)];
  if (sources.length > 0) sql.push(insertSources(sources));
  if (roundKeys.length > 0) sql.push(deleteRounds(literal(roundKeys)));
  if (rounds.length > 0) sql.push(insertRounds(rounds));
  if (answers.length > 0) sql.push(insertAnswers(answers));
  for (const [table, { set, cleared }] of Object.entries(bodies)) {
    if (set.length > 0) sql.push(upsertBody(table, set));
    if (cleared.length > 0) sql.push(deleteBody(table, literal(cleared)));
  }
  if (events.length > 0) sql.push(insertEventRows(events));
  if (indexed.length > 0) sql.push(indexSessions(literal(indexed)));
  return sql.join('\n');
}
