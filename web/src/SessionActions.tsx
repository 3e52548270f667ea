/**
 * What can be done with a session from its page, besides reading it (the panel's part): share it read-only, archive or
 * delete it (with Undo), run it again, edit its question and send it again, synthesize a verdict of a parallel session
 * or of a deep one that ended without one (its final round missed the quorum: the answers it has are kept). Why a
 * session did not complete is said here, as stored with it, when its end event did not already say it.
 * Continuing an interrupted one is the panel's "Continue debate". Only the owner (or an admin) sees share, archive and
 * delete; someone it is shared with reads a note that it is read-only, and is offered nothing the server would refuse
 * them (a verdict of it, a follow-up's run again in its owner's thread).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ConsiliumError, type Session, type Share, type User } from '../../sdk/src/index.js';
import { visibleControls } from '../../sdk/src/terminal/terminal.js';
import { consilium } from './api.js';
import { ErrorNote } from './components.js';
import type { Run } from './debate/runner.js';
import { sessionHref } from './router.js';
import { archiveWithUndo, deleteWithUndo } from './undo.js';

const ended = (status: string | undefined) => status !== undefined && status !== 'running' && status !== 'starting';

export function SessionActions({ id, run, user }: { id: string; run: Run; user?: User }) {
  const [session, setSession] = useState<Session>();
  const [error, setError] = useState<ConsiliumError>();
  const [busy, setBusy] = useState<string>();
  const [editing, setEditing] = useState(false);
  const [reload, setReload] = useState(0);
  // Read again when the run ends: its status, verdict and whether it can be synthesized change then.
  // Per run: the page keeps this component when it moves to another session, and a fast run can end before a render
  // sees it running, so the status held over from the last run would never change and never read the new one again.
  const [status, setStatus] = useState(run.view.status);
  useEffect(() => {
    setStatus(run.view.status);
    return run.subscribe(() => setStatus(run.view.status));
  }, [run]);
  useEffect(() => {
    let live = true;
    consilium.sessions.get(id).then(
      (s) => live && setSession(s),
      // The panel shows a session that cannot be read (404); anything else is said here.
      (err: ConsiliumError) => live && err.status !== 404 && setError(err),
    );
    return () => {
      live = false;
    };
  }, [id, run, ended(status), reload]);

  if (!session) return error ? <ErrorNote error={error} /> : null;
  const mine = user === undefined || session.owner === user.id || user.role === 'admin';
  const finished = ended(status) && session.status !== 'running';
  const act = async (label: string, work: () => Promise<unknown>) => {
    setBusy(label);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err instanceof ConsiliumError ? err : new ConsiliumError(String(err), { code: 'internal_error' }));
    } finally {
      setBusy(undefined);
    }
  };
  const open = (started: { sessionId: string }) => {
    location.hash = sessionHref(started.sessionId);
  };
  const answered = session.rounds[0]?.answers.some((a) => !a.error && a.text) ?? false;
  // What the server would refuse is not offered: a follow-up is asked again in its thread, which only its owner may
  // add to; a synthesis reads its source, and a verdict of this session reads it, which someone it is only shared
  // with may not (an admin may read any).
  const own = user === undefined || session.owner === user.id;
  const rerunnable = session.parentId === undefined || own;
  const readsAsOwner = own || user?.role === 'admin';

  return (
    <section class="card session-manage" aria-label="Session actions">
      {!mine && (
        <p class="small" data-testid="read-only">
          Shared with you, read-only: you can read, follow and export it.
        </p>
      )}
      {finished && session.endReason && session.endReason !== run.view.error && (
        <p class="small" data-testid="end-reason">
          Did not complete: {visibleControls(session.endReason)}
        </p>
      )}
      {session.unmatchedLabels && session.unmatchedLabels.length > 0 && (
        <details class="small" data-testid="unmatched-labels">
          <summary>
            {session.unmatchedLabels.length} {session.unmatchedLabels.length === 1 ? 'holder' : 'holders'} in the final answers
            matched no panel member (credited to no one)
          </summary>
          <ul>
            {session.unmatchedLabels.map((u) => (
              <li key={`${u.reader}-${u.statement}-${u.text}`}>
                Slot {u.reader} credited “{visibleControls(u.statement)}” to “{visibleControls(u.text)}”
              </li>
            ))}
          </ul>
        </details>
      )}
      {session.archivedAt && <p class="small muted">Archived: it is not in your history list (History → Show: Archived).</p>}
      <div class="actions-row">
        {finished && session.mode !== 'synthesis' && rerunnable && (
          <>
            <button
              type="button"
              disabled={busy !== undefined}
              onClick={() => act('rerun', () => consilium.sessions.rerun(id).then(open))}
            >
              Run again
            </button>
            <button type="button" disabled={busy !== undefined} aria-expanded={editing} onClick={() => setEditing(!editing)}>
              Edit and resend
            </button>
          </>
        )}
        {finished && session.mode === 'synthesis' && session.sourceSessionId && readsAsOwner && rerunnable && (
          <button
            type="button"
            disabled={busy !== undefined}
            onClick={() => act('rerun', () => consilium.sessions.rerun(id).then(open))}
          >
            Synthesize again
          </button>
        )}
        {finished &&
          (session.mode === 'parallel' || (session.mode === 'deep' && !session.verdict)) &&
          answered &&
          readsAsOwner && (
            <button
              type="button"
              disabled={busy !== undefined}
              onClick={() => act('synthesize', () => consilium.debates.synthesize({ sessionId: id }).then(open))}
            >
              {busy === 'synthesize' ? 'Synthesizing…' : 'Synthesize a verdict'}
            </button>
          )}
        {mine && session.owner === user?.id && <ShareButton id={id} />}
        {mine && (
          <>
            {session.archivedAt ? (
              <button
                type="button"
                disabled={busy !== undefined}
                onClick={() => act('unarchive', () => consilium.sessions.archive(id, false).then(() => setReload((n) => n + 1)))}
              >
                Unarchive
              </button>
            ) : (
              <button
                type="button"
                disabled={busy !== undefined}
                onClick={() => act('archive', () => archiveWithUndo(id, session.question, () => setReload((n) => n + 1)))}
              >
                Archive
              </button>
            )}
            {finished && (
              <button
                type="button"
                class="danger"
                onClick={() => {
                  deleteWithUndo(id, session.question);
                  location.hash = '#/sessions';
                }}
              >
                Delete
              </button>
            )}
          </>
        )}
      </div>
      {editing && (
        <EditAndResend
          question={session.question}
          busy={busy !== undefined}
          onSend={(question) => act('resend', () => consilium.sessions.rerun(id, { question }).then(open))}
        />
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function EditAndResend({ question, busy, onSend }: { question: string; busy: boolean; onSend: (q: string) => void }) {
  const [text, setText] = useState(question);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <form
      class="resend"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onSend(text);
      }}
    >
      <label for="resend-q">Question to send, with the same settings</label>
      <textarea id="resend-q" ref={field} rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <button type="submit" disabled={busy || !text.trim()}>
        Send
      </button>
    </form>
  );
}

/** "Share…": a dialog listing whom it is shared with, to add a user by name or stop sharing with one. */
function ShareButton({ id }: { id: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [shares, setShares] = useState<Share[]>();
  const [username, setUsername] = useState('');
  const [error, setError] = useState<ConsiliumError>();
  const load = () => consilium.sessions.shares(id).then(setShares, setError);
  const show = () => {
    setError(undefined);
    void load();
    dialog.current?.showModal();
  };
  const share = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await consilium.sessions.share(id, username.trim());
      setUsername('');
      await load();
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };
  const unshare = async (userId: string) => {
    setError(undefined);
    await consilium.sessions.unshare(id, userId).catch(setError);
    await load();
  };
  return (
    <>
      <button type="button" onClick={show} aria-haspopup="dialog">
        Share…
      </button>
      <dialog ref={dialog} class="share-dialog" aria-labelledby="share-h">
        <h2 id="share-h">Share read-only</h2>
        <p class="small muted">The users you name can read, follow and export this session, not change it.</p>
        <form onSubmit={share} class="share-form">
          <label for="share-user">Username</label>
          <input
            id="share-user"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
            autocomplete="off"
            required
          />
          <button type="submit">Share</button>
        </form>
        <ErrorNote error={error} />
        <h3>Shared with</h3>
        {shares && shares.length === 0 && <p class="small muted">Nobody yet.</p>}
        {shares && shares.length > 0 && (
          <ul class="shares">
            {shares.map((s) => (
              <li key={s.userId}>
                <span>{s.username}</span>{' '}
                <button
                  type="button"
                  class="small"
                  onClick={() => unshare(s.userId)}
                  aria-label={`Stop sharing with ${s.username}`}
                >
                  Stop sharing
                </button>
              </li>
            ))}
          </ul>
        )}
        <form method="dialog">
          <button type="submit">Close</button>
        </form>
      </dialog>
    </>
  );
}
