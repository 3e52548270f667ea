import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Action, Cost, SlotInfo, Usage } from '../../../sdk/src/index.js';
import { ErrorNote, OfflineMark, SlotChip, SlotName, StatusChip, useRun } from '../components.js';
import { formatCost, formatDate, formatTokens, formatUsage } from '../format.js';
import { slotLook } from '../slots.js';
import { Exports } from './Exports.js';
import { Markdown } from './Markdown.js';
import {
  type AnswerView,
  costOfRound,
  costOfSlot,
  isFinished,
  type RoundView,
  type SessionView,
  sumCosts,
  usageBySlot,
  usageOfRound,
  verdictSpend,
} from './model.js';
import type { Run } from './runner.js';
import { StreamingText } from './StreamingText.js';
import { ThreadPanel } from './Thread.js';

const KIND_LABEL = { independent: 'independent answers', critique: 'critique', final: 'final positions' } as const;

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
      {(view.synthesizer || view.verdict) && <VerdictSection view={view} slotInfo={slotInfo} />}
      {view.rounds.length > 0 && <UsageTable view={view} shape={view.shape} />}
      {view.id && isFinished(view) && <ThreadPanel sessionId={view.id} mode={view.mode} />}
    </div>
  );
}

function Connection({ run }: { run: Run }) {
  if (isFinished(run.view) && run.connection === 'closed') return null;
  const label = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', closed: 'disconnected' }[
    run.connection
  ];
  return (
    <span class={`pill conn conn-${run.connection}`} role="status">
      {label}
    </span>
  );
}

/** The panel: each slot's colour, shape, provider, model, strength and whether it is a real model. */
const Panel = memo(function Panel({ slots }: { slots: SlotInfo[] }) {
  return (
    <section class="card" aria-label="The panel">
      <ul class="panel">
        {slots.map((s) => (
          <li key={s.slot} class={`${slotLook(s.slot).className} panel-slot ${s.status === 'offline' ? 'is-offline' : ''}`}>
            <SlotName slot={s.slot} info={s} />
            <span class="muted small">{s.model}</span>
            <span class="small">{s.strength}</span>
            {s.status === 'offline' ? <OfflineMark /> : <span class="live-mark small">● live</span>}
          </li>
        ))}
      </ul>
    </section>
  );
});

/** Rounds as a timeline: one row per model, a cell per round, and where each model changed its position and why. */
const sameShape = (a: { shape: number }, b: { shape: number }) => a.shape === b.shape;

const Timeline = memo(function Timeline({ view }: { view: SessionView; shape: number }) {
  const changes = new Map((view.verdict?.positionChanges ?? []).map((p) => [p.slot, p]));
  return (
    <section class="card" aria-labelledby="timeline-h">
      <h2 id="timeline-h">Timeline</h2>
      <div class="scroll-x">
        <table class="timeline">
          <thead>
            <tr>
              <th scope="col">Model</th>
              {view.rounds.map((r) => (
                <th scope="col" key={r.number}>
                  R{r.number} <span class="muted small">{r.kind}</span>
                </th>
              ))}
              <th scope="col">Position</th>
            </tr>
          </thead>
          <tbody>
            {view.slots.map((s) => {
              const change = changes.get(s.slot);
              return (
                <tr key={s.slot} class={slotLook(s.slot).className}>
                  <th scope="row">
                    <SlotName slot={s.slot} info={s} />
                  </th>
                  {view.rounds.map((r) => {
                    const a = r.answers.get(s.slot);
                    const moved = change?.changed && change.round === r.number;
                    return (
                      <td key={r.number} class={moved ? 'moved' : ''}>
                        {a ? <StatusChip status={a.status} /> : <span class="muted">—</span>}
                        {moved && (
                          <span class="moved-mark" title={change.reason}>
                            {' '}
                            <span aria-hidden="true">↺</span> changed
                          </span>
                        )}
                      </td>
                    );
                  })}
                  <td class="reason">
                    {change ? (
                      <>
                        <strong>{change.changed ? `Changed${change.round ? ` in R${change.round}` : ''}` : 'Held'}</strong>:{' '}
                        {change.reason}
                      </>
                    ) : (
                      <span class="muted">{view.verdict ? 'not reported' : 'after the verdict'}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}, sameShape);

function RoundSection({ round, view, latest }: { round: RoundView; view: SessionView; latest: boolean }) {
  // Only the latest round is unfolded unless the reader says otherwise: a long session opens (and a replay runs)
  // rendering five answers, not all of them; a folded round's cards render only when it is opened.
  const [open, setOpen] = useState<boolean | undefined>(undefined);
  const shown = latest || (open ?? round.answers.size <= 1);
  return (
    <section class="card round" aria-labelledby={`round-${round.number}`}>
      <h2 id={`round-${round.number}`}>
        <button type="button" class="fold" aria-expanded={shown} onClick={() => setOpen(!shown)} disabled={latest}>
          <span aria-hidden="true">{shown ? '▾' : '▸'}</span> Round {round.number} · {KIND_LABEL[round.kind]}
        </button>
        <span class="muted small"> {formatUsage(usageOfRound(round))}</span>
        {round.ended && round.quorumMet === false && <span class="error small"> quorum not met</span>}
      </h2>
      {shown && (
        <div class="answers">
          {[...round.answers.values()].map((a) => (
            <AnswerCard key={a.slot} answer={a} rev={a.rev} info={view.slots.find((s) => s.slot === a.slot)} />
          ))}
        </div>
      )}
    </section>
  );
}

const AnswerCard = memo(
  function AnswerCard({ answer, info }: { answer: AnswerView; rev: number; info?: SlotInfo }) {
    const look = slotLook(answer.slot);
    const offline = answer.answer?.offline ?? info?.status === 'offline';
    return (
      <article class={`${look.className} answer answer-${answer.status}`} data-slot={answer.slot} data-round={answer.round}>
        <header>
          <SlotName slot={answer.slot} info={info} />
          <StatusChip status={answer.status} />
          {offline && <OfflineMark />}
        </header>
        <p class="muted small">
          {answer.answer?.model ?? info?.model}
          {info?.strength ? ` · ${info.strength}` : ''}
        </p>
        {answer.status === 'failed' && answer.error && (
          <p class="error small" role="status">
            Failed: {answer.error.code} — {answer.error.message}
            {answer.error.attempts > 1 ? ` (${answer.error.attempts} attempts)` : ''}
          </p>
        )}
        {answer.status === 'done' ? (
          <Markdown text={answer.text} class="answer-text" />
        ) : (
          // While streaming: plain text, cheap to update every frame; Markdown once it is complete.
          <StreamingText text={answer.text} class="answer-text" />
        )}
        {answer.answer && (
          <p class="muted small">
            {formatUsage(answer.answer.usage)}
            {answer.answer.cost ? ` · ${formatCost(answer.answer.cost)}` : ''} · {(answer.answer.latencyMs / 1000).toFixed(1)} s
          </p>
        )}
      </article>
    );
  },
  (a, b) => a.answer === b.answer && a.rev === b.rev && a.info === b.info,
);

/** Statements × models: who holds each agreement, and each side of each disagreement. */
const ConsensusMatrix = memo(function ConsensusMatrix({ view }: { view: SessionView; shape: number }) {
  const consensus = view.consensus!;
  const slots = view.slots.map((s) => s.slot);
  const info = (slot: number) => view.slots.find((s) => s.slot === slot);
  const cells = (holders: number[], mark: string) =>
    slots.map((slot) => (
      <td key={slot} class={holders.includes(slot) ? `${slotLook(slot).className} held` : 'not-held'}>
        {holders.includes(slot) ? (
          <>
            <span aria-hidden="true">{mark}</span>
            <span class="sr-only">holds</span>
          </>
        ) : (
          <span class="sr-only">does not hold</span>
        )}
      </td>
    ));
  return (
    <section class="card" aria-labelledby="consensus-h">
      <h2 id="consensus-h">Consensus after round {consensus.round}</h2>
      <div class="scroll-x">
        <table class="matrix" data-testid="consensus-matrix">
          <thead>
            <tr>
              <th scope="col">Statement</th>
              {slots.map((slot) => (
                <th scope="col" key={slot}>
                  <SlotChip slot={slot} info={info(slot)} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {consensus.agreements.length > 0 && (
              <tr class="group">
                <th scope="rowgroup" colSpan={slots.length + 1}>
                  Agreements
                </th>
              </tr>
            )}
            {consensus.agreements.map((a, i) => (
              <tr key={`a${i}`} class="agreement">
                <th scope="row">
                  <Markdown text={a.statement} class="inline" />
                </th>
                {cells(a.slots, '✓')}
              </tr>
            ))}
            {consensus.disagreements.map((d, i) => [
              <tr key={`d${i}`} class="group">
                <th scope="rowgroup" colSpan={slots.length + 1}>
                  Disagreement: <Markdown text={d.topic} class="inline" />
                </th>
              </tr>,
              ...d.positions.map((p, j) => (
                <tr key={`d${i}p${j}`} class="position">
                  <th scope="row">
                    <span class="side">{String.fromCharCode(65 + j)}</span> <Markdown text={p.position} class="inline" />
                  </th>
                  {cells(p.slots, String.fromCharCode(65 + j))}
                </tr>
              )),
            ])}
          </tbody>
        </table>
      </div>
      {consensus.agreements.length === 0 && consensus.disagreements.length === 0 && <p class="muted">No statements reported.</p>}
    </section>
  );
}, sameShape);

function Supporters({
  slots,
  rounds,
  slotInfo,
}: {
  slots: number[];
  rounds?: number[];
  slotInfo: (s: number) => SlotInfo | undefined;
}) {
  return (
    <span class="supporters">
      {slots.map((s) => (
        <SlotChip key={s} slot={s} info={slotInfo(s)} />
      ))}
      {rounds && rounds.length > 0 && <span class="muted small"> rounds {rounds.join(', ')}</span>}
    </span>
  );
}

function VerdictSection({ view, slotInfo }: { view: SessionView; slotInfo: (s: number) => SlotInfo | undefined }) {
  const verdict = view.verdict;
  const synth = verdict?.synthesizer ?? view.synthesizer;
  return (
    <section class="card verdict" aria-labelledby="verdict-h" aria-live="polite" aria-busy={!verdict}>
      <h2 id="verdict-h">Verdict {!verdict && <span class="status status-streaming">being written…</span>}</h2>
      {synth && (
        <p class="small">
          Synthesized by <SlotName slot={synth.slot} info={slotInfo(synth.slot)} /> ({synth.model}
          {synth.reason === 'fallback' ? `, fallback for slot ${synth.fallbackFrom ?? 1}` : ''}) —{' '}
          {synth.participated ? 'it also debated, so it judged its own answers' : 'it did not take part in the debate'}.
        </p>
      )}
      {!verdict && (view.verdictText.summary || view.verdictText.answer) && (
        <div class="verdict-stream" data-testid="verdict-stream">
          {view.verdictText.summary && <p class="streaming summary">{view.verdictText.summary}</p>}
          {view.verdictText.answer && <p class="streaming">{view.verdictText.answer}</p>}
        </div>
      )}
      {verdict?.format === 'unstructured' && verdict.rawText && <Markdown text={verdict.rawText} />}
      {verdict?.summary && <Markdown text={verdict.summary} class="summary" />}
      {verdict?.answer && <Markdown text={verdict.answer} />}
      {verdict?.confidence !== undefined && <p class="small">Confidence: {Math.round(verdict.confidence * 100)}%</p>}
      {verdict?.actions && (
        <div class="actions">
          {(['P0', 'P1', 'P2'] as const).map((p) => (
            <div key={p} class={`priority priority-${p}`}>
              <h3>
                <span class="prio">{p}</span> {p === 'P0' ? 'now' : p === 'P1' ? 'next' : 'later'}
              </h3>
              {verdict.actions![p].length === 0 ? (
                <p class="muted small">None.</p>
              ) : (
                <ul>
                  {verdict.actions![p].map((a: Action, i: number) => (
                    <li key={i}>
                      <strong>
                        <Markdown text={a.title} class="inline" />
                      </strong>
                      <Markdown text={a.rationale} class="small" />
                      <Supporters slots={a.supportingSlots} rounds={a.supportingRounds} slotInfo={slotInfo} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </div>
      )}
      {verdict && verdict.dissent.length > 0 && (
        <div>
          <h3>Dissent</h3>
          <ul>
            {verdict.dissent.map((d, i) => (
              <li key={i}>
                <Supporters slots={d.slots} slotInfo={slotInfo} /> <Markdown text={d.text} class="inline" />
              </li>
            ))}
          </ul>
        </div>
      )}
      {verdict?.degradation.degraded && (
        <div class="degraded">
          <h3>Degraded</h3>
          <ul>
            {verdict.degradation.reasons.map((r, i) => (
              <li key={i}>
                <SlotChip slot={r.slot} info={slotInfo(r.slot)} /> {r.round ? `round ${r.round}` : 'synthesis'}: {r.code} —{' '}
                {r.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** Tokens and cost in one cell: cost from the server's price table, "≥" when some of it had no price. */
function Spend({ usage, cost }: { usage?: Usage; cost?: Cost }) {
  return (
    <>
      {formatTokens(usage?.totalTokens ?? 0)}
      <br />
      <span class="muted small cost">{formatCost(cost)}</span>
    </>
  );
}

const UsageTable = memo(function UsageTable({ view }: { view: SessionView; shape: number }) {
  const bySlot = usageBySlot(view);
  const verdict = verdictSpend(view);
  const synth = view.verdict?.synthesizer.slot ?? view.synthesizer?.slot;
  const addUsage = (a: Usage | undefined, b: Usage | undefined) =>
    a && b ? { inputTokens: 0, outputTokens: 0, totalTokens: a.totalTokens + b.totalTokens } : (a ?? b);
  return (
    <section class="card" aria-labelledby="usage-h">
      <h2 id="usage-h">Usage and cost</h2>
      <div class="scroll-x">
        <table class="usage" data-testid="usage-table">
          <thead>
            <tr>
              <th scope="col">Model</th>
              {view.rounds.map((r) => (
                <th scope="col" key={r.number}>
                  R{r.number}
                </th>
              ))}
              {verdict && <th scope="col">Verdict</th>}
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {view.slots.map((s) => {
              const writes = verdict && s.slot === synth;
              return (
                <tr key={s.slot} data-slot={s.slot}>
                  <th scope="row">
                    <SlotName slot={s.slot} info={s} />
                  </th>
                  {view.rounds.map((r) => {
                    const a = r.answers.get(s.slot)?.answer;
                    return <td key={r.number}>{a ? <Spend usage={a.usage} cost={a.cost} /> : '—'}</td>;
                  })}
                  {verdict && <td>{writes ? <Spend usage={verdict.usage} cost={verdict.cost} /> : '—'}</td>}
                  <td>
                    <Spend
                      usage={writes ? addUsage(bySlot.get(s.slot), verdict.usage) : bySlot.get(s.slot)}
                      cost={writes ? sumCosts([costOfSlot(view, s.slot), verdict.cost]) : costOfSlot(view, s.slot)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All models</th>
              {view.rounds.map((r) => (
                <td key={r.number} data-round={r.number}>
                  <Spend usage={usageOfRound(r)} cost={costOfRound(r)} />
                </td>
              ))}
              {verdict && (
                <td>
                  <Spend usage={verdict.usage} cost={verdict.cost} />
                </td>
              )}
              <td>
                <Spend
                  usage={
                    view.usage ?? {
                      inputTokens: 0,
                      outputTokens: 0,
                      totalTokens: [...bySlot.values()].reduce((n, u) => n + u.totalTokens, 0),
                    }
                  }
                  cost={view.cost}
                />
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      <p>
        Total: {formatUsage(view.usage)} · <strong data-testid="total-cost">{formatCost(view.cost)}</strong>
      </p>
      <p class="muted small">
        Tokens, then cost, per model and round, from the server's price table; "≥" means some usage had no price (a live model
        missing from the table), so the figure is a lower bound; the offline stand-in costs nothing; "—" means not reported.
      </p>
    </section>
  );
}, sameShape);
