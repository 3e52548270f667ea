/** The full-text index's SQL (FTS5, migration 9): the text a session is found by, and the match it is searched with. */
import { SEARCH_TEXT_CHARS } from '../../sessions/store.js';

/**
 * A session's searchable text from what is stored (sessions `s`): its question, its verdict (summary, answer,
 * raw text, actions) and its answers, at most `SEARCH_TEXT_CHARS` characters. Events are never read: archived
 * or not, the text is the same.
 */
export const SEARCH_DOCUMENT = `substr(concat_ws(' ', s.question,
  (SELECT concat_ws(' ', v.body ->> 'summary', v.body ->> 'answer', v.body ->> 'rawText',
      (SELECT group_concat(concat_ws(' ', x.value ->> 'title', x.value ->> 'rationale'), ' ')
       FROM json_each(v.body, '$.actions') AS g, json_each(g.value) AS x))
    FROM verdicts AS v WHERE v.session_id = s.id),
  (SELECT group_concat(a.body ->> 'text', ' ' ORDER BY a.round, a.position) FROM answers AS a WHERE a.session_id = s.id)
), 1, ${SEARCH_TEXT_CHARS})`;

/** Indexes again the sessions `ids` (an SQL expression of a JSON array of ids), as they stand in this transaction. */
export const indexSessions = (ids: string) => `
  INSERT INTO session_search (session_id) SELECT value FROM json_each(${ids}) WHERE true ON CONFLICT (session_id) DO NOTHING;
  INSERT OR REPLACE INTO session_text (rowid, body)
  SELECT k.id, ${SEARCH_DOCUMENT} FROM session_search AS k JOIN sessions AS s ON s.id = k.session_id
  WHERE k.session_id IN (SELECT value FROM json_each(${ids}));`;

/** An FTS5 query for `searchTerms`' words: every word, the last also as a prefix when asked. Words hold no quote. */
export function ftsQuery({ terms, prefix }: { terms: readonly string[]; prefix: boolean }): string {
  return terms.map((t, i) => `"${t}"${prefix && i === terms.length - 1 ? '*' : ''}`).join(' ');
}
