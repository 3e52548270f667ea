import { useEffect, useRef, useState } from 'preact/hooks';
import { exportSessionMarkdown } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { client, consilium } from '../api.js';
import { ErrorNote } from '../components.js';
import { formatDate } from '../format.js';
import { SourcesSection } from '../grounding/Sources.js';
import { Connection } from './Connection.js';
import { ConsensusMatrix } from './ConsensusMatrix.js';
import { CopyButton } from './Copy.js';
import { Exports } from './Exports.js';
import { IntegritySection } from './IntegritySection.js';
import { isFinished, type SessionView } from './model.js';
import { Panel } from './Panel.js';
import { RoundSection } from './RoundSection.js';
import type { Run } from './runner.js';
import { SlotColumns, SlotColumnsWaiting } from './SlotColumns.js';
import { ThreadPanel } from './Thread.js';
import { Timeline } from './Timeline.js';
import { UsageTable } from './UsageTable.js';
import { useRun } from './use-run.js';
import { VerdictSection } from './VerdictSection.js';

/** Everything about one session, live or stored: the same component for both, so a reopened session looks the same. */
export function SessionPanel({ run }: { run: Run }) {
  useRun(run);
  useKeys(run);
  const view = run.view;
  const slotInfo = (slot: number) => view.slots.find((s) => s.slot === slot);
  const running = !isFinished(view);
  const layout = run.met === undefined && !run.failure ? 'pending' : run.met === 'live' || running ? 'live' : 'opened';
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
          {view.question !== undefined ? visibleControls(view.question) : <span class="muted">Session</span>}
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
          {view.id && isFinished(view) && (
            <>
              <CopyButton what="session as Markdown" label="Copy session as Markdown" text={() => sessionMarkdown(view.id!)} />
              <Exports sessionId={view.id} />
            </>
          )}
        </div>
        <ErrorNote error={run.failure} />
        {view.error && <p class="error">Ended: {visibleControls(view.error)}</p>}
      </header>
      {layout === 'pending' ? (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      ) : layout === 'live' ? (
        <>
          {/* Watched live: the models side by side in boxes of fixed height, the verdict below them; nothing here
              moves when a round starts, the verdict begins or the debate ends (the details are added below). */}
          {view.slots.length > 0 ? <SlotColumns view={view} which="live" /> : <SlotColumnsWaiting />}
          {(view.synthesizer || view.verdict) && <VerdictSection view={view} slotInfo={slotInfo} />}
          {view.integrity && <IntegritySection report={view.integrity} slotInfo={slotInfo} />}
          {view.grounding && <SourcesSection grounding={view.grounding} />}
          {isFinished(view) && <Details view={view} />}
        </>
      ) : (
        <>
          {/* Opened finished: the verdict first, the rounds one step away. */}
          {(view.synthesizer || view.verdict) && <VerdictSection view={view} slotInfo={slotInfo} />}
          {view.integrity && <IntegritySection report={view.integrity} slotInfo={slotInfo} />}
          {view.grounding && <SourcesSection grounding={view.grounding} />}
          <Details view={view} />
        </>
      )}
      {view.id && isFinished(view) && (
        <ThreadPanel
          sessionId={view.id}
          mode={view.mode}
          // An early stop shows as fewer rounds than asked for; a synthesis names its source.
          needsSession={view.mode === 'synthesis' || (view.mode === 'deep' && view.rounds.length < (view.roundsRequested ?? 0))}
        />
      )}
    </div>
  );
}

/** The session's Markdown export, as the API serves it (the one implementation, on the server). */
async function sessionMarkdown(sessionId: string): Promise<string> {
  return (await consilium.settle(exportSessionMarkdown({ client, path: { sessionId }, parseAs: 'text' }))) as unknown as string;
}

type Tab = 'compare' | 'rounds' | 'usage';

/** What is one step away from the verdict: final positions side by side, every round, usage and cost. */
function Details({ view }: { view: SessionView }) {
  const tabs: { id: Tab; label: string }[] = [
    ...(view.rounds.length > 0 ? [{ id: 'compare' as const, label: 'Compare' }] : []),
    { id: 'rounds', label: view.rounds.length === 1 ? 'Answers' : `Rounds (${view.rounds.length})` },
    ...(view.rounds.length > 0 ? [{ id: 'usage' as const, label: 'Usage and cost' }] : []),
  ];
  const [tab, setTab] = useState<Tab>(view.verdict && view.rounds.length > 0 ? 'compare' : 'rounds');
  const move = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : undefined;
    if (next === undefined) return;
    const t = tabs[(next + tabs.length) % tabs.length]!;
    setTab(t.id);
    document.getElementById(`tab-${t.id}`)?.focus();
  };
  return (
    <div class="details">
      <div class="tabs" role="tablist" aria-label="Session details" onKeyDown={move}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} data-testid={`panel-${tab}`}>
        {tab === 'compare' && (
          <>
            {view.consensus && <ConsensusMatrix view={view} shape={view.shape} />}
            <SlotColumns view={view} which="final" />
          </>
        )}
        {tab === 'rounds' && (
          <>
            {view.slots.length > 0 && <Panel view={view} shape={view.shape} />}
            {view.rounds.length > 1 || view.verdict ? <Timeline view={view} shape={view.shape} /> : null}
            {view.rounds.map((round) => (
              <RoundSection key={round.number} round={round} view={view} latest={round.number === view.rounds.at(-1)?.number} />
            ))}
          </>
        )}
        {tab === 'usage' && <UsageTable view={view} shape={view.shape} />}
      </div>
    </div>
  );
}

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/** Esc cancels a running debate; j and k move focus to the next and previous answer on the page. */
function useKeys(run: Run) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      if (e.key === 'Escape' && !isFinished(run.view) && run.view.id) {
        e.preventDefault();
        run.cancel();
      } else if (e.key === 'j' || e.key === 'k') {
        const answers = [...document.querySelectorAll<HTMLElement>('[data-answer]')];
        if (answers.length === 0) return;
        const at = answers.findIndex((a) => a === document.activeElement || a.contains(document.activeElement));
        const next = at === -1 ? (e.key === 'j' ? 0 : answers.length - 1) : at + (e.key === 'j' ? 1 : -1);
        const target = answers[Math.max(0, Math.min(answers.length - 1, next))]!;
        e.preventDefault();
        target.focus({ preventScroll: true });
        target.scrollIntoView({ block: 'nearest' });
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [run]);
}
