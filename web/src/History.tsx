import { useEffect, useRef, useState } from 'preact/hooks';
import { type ConsiliumError, listSessions, type SessionPage, type SessionSummary, type User } from '../../sdk/src/index.js';
import { visibleControls } from '../../sdk/src/terminal/terminal.js';
import { client, consilium } from './api.js';
import { ErrorNote } from './components.js';
import { formatCost, formatDate, formatTokens } from './format.js';
import { sessionHref } from './router.js';
import { archiveWithUndo, deleteWithUndo, onToasts, pendingDeletes } from './undo.js';

const PAGE = 20;
const MODES = ['single', 'parallel', 'deep', 'synthesis'] as const;
const STATUSES = ['running', 'completed', 'partial', 'cancelled', 'interrupted', 'failed'] as const;

/** Which sessions the list shows: your own, your archived ones, or those shared with you. */
type View = 'mine' | 'archived' | 'shared';

export interface Filters {
  view: View;
  mode: string;
  status: string;
  /** `YYYY-MM-DD` (local day) or empty. */
  from: string;
  to: string;
}
const noFilters: Filters = { view: 'mine', mode: '', status: '', from: '', to: '' };

/** The search field's id: Ctrl/Cmd+K focuses it (`App.tsx`). */
export const SEARCH_ID = 'history-q';

/** The list query for `text` and `filters` (dates are local days: `to` includes its whole day). */
export function listQuery(text: string, f: Filters): Parameters<typeof consilium.sessions.list>[0] {
  const day = (d: string, plus = 0) => {
    const date = new Date(`${d}T00:00:00`);
    date.setDate(date.getDate() + plus);
    return date.toISOString();
  };
  return {
    ...(text.trim() && { text: text.trim() }),
    ...(f.view === 'shared' && { shared: true }),
    ...(f.view === 'archived' && { archived: true }),
    ...(f.mode && { mode: f.mode as (typeof MODES)[number] }),
    ...(f.status && { status: f.status as (typeof STATUSES)[number] }),
    ...(f.from && { from: day(f.from) }),
    ...(f.to && { to: day(f.to, 1) }),
  };
}

/**
 * Past sessions, newest first, a page at a time: full-text search over questions, answers and verdicts (the server's
 * index), filters by mode, status and day, your archive and what others shared with you; archive and delete with Undo.
 */
export function History({ q: initial, user }: { q: string; user?: User }) {
  const [q, setQ] = useState(initial);
  const [query, setQuery] = useState(initial);
  const [filters, setFilters] = useState<Filters>(noFilters);
  // Cursors of the pages before the current one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<SessionPage>();
  const [error, setError] = useState<ConsiliumError>();
  const [reload, setReload] = useState(0);
  const [, setHidden] = useState(0);
  const cursor = cursors.at(-1);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => onToasts(() => setHidden((n) => n + 1)), []);
  useEffect(() => {
    if (focusSearchOnOpen) search.current?.focus();
    focusSearchOnOpen = false;
  }, []);

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
      .settle(listSessions({ client, query: { limit: PAGE, ...(cursor && { cursor }), ...listQuery(query, filters) } }))
      .then(
        (p) => live && setPage(p),
        (err) => live && setError(err),
      );
    return () => {
      live = false;
    };
  }, [query, cursor, filters, reload]);

  const setFilter = (change: Partial<Filters>) => {
    setFilters({ ...filters, ...change });
    setCursors([undefined]);
  };
  const hidden = pendingDeletes();
  const items = page?.items.filter((s) => !hidden.has(s.id)) ?? [];
  const filtered = query.trim() !== '' || JSON.stringify(filters) !== JSON.stringify(noFilters);

  return (
    <section class="card" aria-labelledby="history-h">
      <h1 id="history-h">History</h1>
      <search class="search">
        <label for={SEARCH_ID}>
          Search questions, answers and verdicts <kbd class="small muted">Ctrl K</kbd>
        </label>
        <input
          id={SEARCH_ID}
          ref={search}
          type="search"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
          placeholder="Words in the question, an answer or the verdict"
        />
      </search>
      <fieldset class="filters">
        <legend class="sr-only">Filters</legend>
        <label>
          Show
          <select value={filters.view} onChange={(e) => setFilter({ view: e.currentTarget.value as View })}>
            <option value="mine">My sessions</option>
            <option value="archived">Archived</option>
            <option value="shared">Shared with me</option>
          </select>
        </label>
        <label>
          Mode
          <select value={filters.mode} onChange={(e) => setFilter({ mode: e.currentTarget.value })}>
            <option value="">Any</option>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={filters.status} onChange={(e) => setFilter({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={filters.from} onInput={(e) => setFilter({ from: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="date" value={filters.to} onInput={(e) => setFilter({ to: e.currentTarget.value })} />
        </label>
      </fieldset>
      <ErrorNote error={error} />
      {page && items.length === 0 && (
        <p class="muted">
          {filtered ? 'No session matches.' : filters.view === 'shared' ? 'Nothing is shared with you.' : 'No sessions yet.'}
        </p>
      )}
      {items.length > 0 && (
        <ul class="history">
          {items.map((s) => (
            <HistoryItem
              key={s.id}
              session={s}
              mine={filters.view !== 'shared' && s.owner === user?.id}
              onChange={() => setReload((n) => n + 1)}
            />
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

function HistoryItem({ session: s, mine, onChange }: { session: SessionSummary; mine: boolean; onChange: () => void }) {
  const [error, setError] = useState<ConsiliumError>();
  const archive = () => archiveWithUndo(s.id, s.question, onChange).catch(setError);
  const unarchive = () => consilium.sessions.archive(s.id, false).then(onChange, setError);
  return (
    <li>
      <a href={sessionHref(s.id)} class="history-link">
        <span class="history-q">{visibleControls(s.question)}</span>
        {s.verdictPreview && (
          <span class="history-verdict small" data-testid="verdict-preview">
            <span class="muted">Verdict: </span>
            {s.verdictPreview}
          </span>
        )}
        <span class="history-meta small">
          <span class={`pill pill-${s.status}`}>{s.status}</span> <span class="pill">{s.mode}</span>{' '}
          {s.parentId && (
            <>
              <span class="pill" title="Asked in an earlier session's thread; its page shows the thread">
                follow-up
              </span>{' '}
            </>
          )}
          {!mine && s.archivedAt === undefined && <span class="pill">shared with you</span>}{' '}
          <span class="muted">
            {formatDate(s.createdAt)} · {formatTokens(s.usage.totalTokens)} tokens · {formatCost(s.cost)}
          </span>
        </span>
      </a>
      {mine && (
        <span class="history-actions">
          {s.archivedAt === undefined ? (
            <button type="button" class="small" onClick={archive} aria-label={`Archive “${visibleControls(s.question)}”`}>
              Archive
            </button>
          ) : (
            <button type="button" class="small" onClick={unarchive} aria-label={`Unarchive “${visibleControls(s.question)}”`}>
              Unarchive
            </button>
          )}
          <button
            type="button"
            class="small danger"
            onClick={() => deleteWithUndo(s.id, s.question, (deleted) => deleted && onChange())}
            aria-label={`Delete “${visibleControls(s.question)}”`}
          >
            Delete
          </button>
        </span>
      )}
      <ErrorNote error={error} />
    </li>
  );
}

/** Set by Ctrl/Cmd+K before it opens History, so the search field takes focus once it is shown. */
let focusSearchOnOpen = false;

/** Ctrl/Cmd+K: opens History (when elsewhere) and puts the cursor in its search field. */
export function openSearch(): void {
  const field = document.getElementById(SEARCH_ID);
  if (field) {
    field.focus();
    return;
  }
  focusSearchOnOpen = true;
  location.hash = '#/sessions';
}
