import { useEffect, useState } from 'preact/hooks';
import { type ConsiliumError, getSessionThread, type Session, type Thread as ThreadData } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { client, consilium } from '../api.js';
import { ErrorNote } from '../components.js';
import { replaceHash, sessionHref } from '../router.js';
import { DEFAULT_ROUNDS } from './rounds.js';
import { startRun } from './runner.js';
import { liveRuns } from './runs.js';

/**
 * A finished session's thread (its earlier and later questions, oldest first), what early stop saved, and the form to
 * ask a follow-up, which runs in the same thread and opens as its own session.
 */
export function ThreadPanel({
  sessionId,
  mode,
  needsSession,
}: {
  sessionId: string;
  mode?: string;
  /**
   * Whether the stored session may say more than its events (an early stop, the session it was synthesized from):
   * only then is the whole document fetched; parsing a session with a 5 MB answer holds the page for tens of ms.
   */
  needsSession: boolean;
}) {
  const [thread, setThread] = useState<ThreadData>();
  const [session, setSession] = useState<Session>();
  const [question, setQuestion] = useState('');
  const [followMode, setFollowMode] = useState<'single' | 'parallel' | 'deep'>(
    mode === 'single' || mode === 'parallel' ? mode : 'deep',
  );
  // The API's own default (`FollowUpRequest.rounds`: 3 unless given), so the form asks what an API call would.
  const [rounds, setRounds] = useState(DEFAULT_ROUNDS);
  const [error, setError] = useState<ConsiliumError>();
  useEffect(() => {
    consilium.settle(getSessionThread({ client, path: { sessionId } })).then(setThread, () => undefined);
    if (needsSession) consilium.sessions.get(sessionId).then(setSession, () => undefined);
  }, [sessionId, needsSession]);

  const ask = (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const text = question.trim();
    if (!text) return;
    const run = startRun(
      {
        mode: 'follow-up',
        parentId: sessionId,
        request: { question: text, mode: followMode, ...(followMode === 'deep' && { rounds }) },
      },
      (id) => {
        liveRuns.set(id, run);
        replaceHash(sessionHref(id));
        dispatchEvent(new HashChangeEvent('hashchange'));
      },
    );
    const unsubscribe = run.subscribe(() => {
      if (run.failure && !run.view.id) {
        setError(run.failure);
        unsubscribe();
      }
    });
  };

  const early = session?.earlyStop;
  return (
    <section class="card" aria-labelledby="thread-h">
      <h2 id="thread-h">Thread</h2>
      {early && (
        <p class="small" data-testid="early-stop">
          Stopped early after round {early.afterRound}: every model kept its position. Saved {early.roundsSaved} round(s),{' '}
          {early.callsSaved} calls, about {early.tokensSaved} tokens.
        </p>
      )}
      {session?.sourceSessionId && (
        <p class="small">
          Synthesized from <a href={sessionHref(session.sourceSessionId)}>an earlier session</a>.
        </p>
      )}
      {thread && thread.sessions.length > 1 && (
        <ol class="thread" data-testid="thread">
          {thread.sessions.map((s) => (
            <li key={s.id}>
              {s.id === sessionId ? (
                <strong aria-current="page">{visibleControls(s.question)}</strong>
              ) : (
                <a href={sessionHref(s.id)}>{visibleControls(s.question)}</a>
              )}{' '}
              <span class="muted small">
                {s.mode} · {s.status}
              </span>
            </li>
          ))}
        </ol>
      )}
      <form class="row-form follow-up" onSubmit={ask}>
        <label class="grow">
          Follow-up question
          <input id="follow-up" required value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        </label>
        <label>
          Mode
          <select
            id="follow-up-mode"
            value={followMode}
            onChange={(e) => setFollowMode(e.currentTarget.value as typeof followMode)}
          >
            <option value="single">single</option>
            <option value="parallel">parallel</option>
            <option value="deep">deep</option>
          </select>
        </label>
        {followMode === 'deep' && (
          <label>
            Rounds
            <select id="follow-up-rounds" value={String(rounds)} onChange={(e) => setRounds(Number(e.currentTarget.value))}>
              {[2, 3, 4, 5].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit" class="primary">
          Ask follow-up
        </button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
