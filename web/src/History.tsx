import { useEffect, useState } from 'preact/hooks';
import { type ConsiliumError, listSessions, type SessionPage } from '../../sdk/src/index.js';
import { client, consilium } from './api.js';
import { ErrorNote } from './components.js';
import { formatCost, formatDate, formatTokens } from './format.js';
import { sessionHref } from './router.js';

const PAGE = 20;

/** Past sessions, newest first: searchable by question, a page at a time (cursor pagination). */
export function History({ q: initial }: { q: string }) {
  const [q, setQ] = useState(initial);
  const [query, setQuery] = useState(initial);
  // Cursors of the pages before the current one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<SessionPage>();
  const [error, setError] = useState<ConsiliumError>();
  const cursor = cursors.at(-1);

  useEffect(() => {
    const timer = setTimeout(() => {
      if (q !== query) {
        setQuery(q);
        setCursors([undefined]);
        history.replaceState(null, '', q ? `#/sessions?q=${encodeURIComponent(q)}` : '#/sessions');
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [q]);

  useEffect(() => {
    let live = true;
    setError(undefined);
    consilium
      .settle(listSessions({ client, query: { limit: PAGE, ...(cursor && { cursor }), ...(query && { q: query }) } }))
      .then(
        (p) => live && setPage(p),
        (err) => live && setError(err),
      );
    return () => {
      live = false;
    };
  }, [query, cursor]);

  return (
    <section class="card" aria-labelledby="history-h">
      <h1 id="history-h">History</h1>
      <search class="search">
        <label for="history-q">Search questions</label>
        <input
          id="history-q"
          type="search"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
          placeholder="Text in the question"
        />
      </search>
      <ErrorNote error={error} />
      {page && page.items.length === 0 && <p class="muted">{query ? 'No session asks that.' : 'No sessions yet.'}</p>}
      {page && page.items.length > 0 && (
        <ul class="history">
          {page.items.map((s) => (
            <li key={s.id}>
              <a href={sessionHref(s.id)} class="history-link">
                <span class="history-q">{s.question}</span>
                <span class="history-meta small">
                  <span class={`pill pill-${s.status}`}>{s.status}</span> <span class="pill">{s.mode}</span>{' '}
                  {s.parentId && (
                    <>
                      <span class="pill" title="Asked in an earlier session's thread; its page shows the thread">
                        follow-up
                      </span>{' '}
                    </>
                  )}
                  <span class="muted">
                    {formatDate(s.createdAt)} · {formatTokens(s.usage.totalTokens)} tokens · {formatCost(s.cost)}
                  </span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span class="muted small">Page {cursors.length}</span>
        <button type="button" disabled={!page?.nextCursor} onClick={() => setCursors([...cursors, page!.nextCursor])}>
          Older →
        </button>
      </nav>
    </section>
  );
}
