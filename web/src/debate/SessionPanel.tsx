import { useEffect, useRef } from 'preact/hooks';
import { ErrorNote, useRun } from '../components.js';
import { formatDate } from '../format.js';
import { SourcesSection } from '../grounding/Sources.js';
import { Connection } from './Connection.js';
import { ConsensusMatrix } from './ConsensusMatrix.js';
import { Exports } from './Exports.js';
import { isFinished } from './model.js';
import { Panel } from './Panel.js';
import { RoundSection } from './RoundSection.js';
import type { Run } from './runner.js';
import { ThreadPanel } from './Thread.js';
import { Timeline } from './Timeline.js';
import { UsageTable } from './UsageTable.js';
import { VerdictSection } from './VerdictSection.js';

/** Everything about one session, live or stored: the same component for both, so a reopened session looks the same. */
export function SessionPanel({ run }: { run: Run }) {
  useRun(run);
  const view = run.view;
  const slotInfo = (slot: number) => view.slots.find((s) => s.slot === slot);
  const running = !isFinished(view);
  const heading = useRef<HTMLHeadingElement>(null);
  // The view that held focus (the Ask form, a follow-up form, a history link) went away when this one replaced it:
  // focus the heading once it names the question, so a screen reader reads the question and the debate's status
  // (its description) rather than nothing. Focus the user put somewhere is left where it is.
  const named = view.question !== undefined;
  useEffect(() => {
    if (named && (document.activeElement === null || document.activeElement === document.body)) heading.current?.focus();
  }, [named]);
  return (
    <div class="session" data-status={view.status}>
      <header class="card session-head">
        <div class="session-meta">
          {/* A live region: starting → running → completed (or failed, cancelled) is announced as it happens. */}
          <span class={`pill pill-${view.status}`} data-testid="session-status" id="session-status" role="status">
            <span class="sr-only">Debate </span>
            {view.status}
          </span>
          {view.mode && <span class="pill">{view.mode}</span>}
          {view.roundsRequested && view.mode === 'deep' ? <span class="pill">{view.roundsRequested} rounds</span> : null}
          <Connection run={run} />
          {view.startedAt && <span class="muted">{formatDate(view.startedAt)}</span>}
        </div>
        {/* The question is the user's text, not Markdown: shown exactly as typed (line breaks kept), as in history. */}
        <h1 class="question" ref={heading} tabIndex={-1} aria-describedby="session-status">
          {view.question ?? <span class="muted">Session</span>}
        </h1>
        <div class="session-actions">
          {/* Any running session can be cancelled (the server refuses what is not the user's): a reloaded page too. */}
          {running && view.id && (
            <button type="button" class="danger" onClick={() => run.cancel()}>
              Cancel debate
            </button>
          )}
          {/* The server stopped mid-run: the debate can go on from what was stored, in this same session. */}
          {view.status === 'interrupted' && view.id && (
            <button type="button" onClick={() => run.continue()}>
              Continue debate
            </button>
          )}
          {view.id && isFinished(view) && <Exports sessionId={view.id} />}
        </div>
        <ErrorNote error={run.failure} />
        {view.error && <p class="error">Ended: {view.error}</p>}
      </header>
      {/* Sections that change only with the debate's shape skip the frames where only text streamed in. */}
      {view.slots.length > 0 && <Panel slots={view.slots} />}
      {view.rounds.length > 1 || view.verdict ? <Timeline view={view} shape={view.shape} /> : null}
      {view.rounds.map((round) => (
        <RoundSection key={round.number} round={round} view={view} latest={round.number === view.rounds.at(-1)?.number} />
      ))}
      {view.consensus && <ConsensusMatrix view={view} shape={view.shape} />}
      {view.grounding && <SourcesSection grounding={view.grounding} />}
      {(view.synthesizer || view.verdict) && <VerdictSection view={view} slotInfo={slotInfo} />}
      {view.rounds.length > 0 && <UsageTable view={view} shape={view.shape} />}
      {view.id && isFinished(view) && <ThreadPanel sessionId={view.id} mode={view.mode} />}
    </div>
  );
}
