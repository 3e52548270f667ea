import { memo } from 'preact/compat';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { SlotInfo } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { OfflineMark, SlotName } from '../components.js';
import { slotLook } from '../slots.js';
import { CopyButton } from './Copy.js';
import { LiveMarkdown } from './LiveMarkdown.js';
import { Markdown } from './Markdown.js';
import { type AnswerView, answersOfSlot, type SessionView, slotFailure } from './model.js';
import { StatusChip } from './StatusChip.js';

const KIND = { independent: 'independent', critique: 'critique', final: 'final position' } as const;

/**
 * The five models side by side, one column each (a row that scrolls sideways on a phone). `live`: each column holds
 * the slot's answers round after round, in a box of fixed height, so text arriving anywhere moves nothing else on
 * the page; a column follows its end only while the reader is at its end. `final`: each slot's last answer (the
 * "compare" view), with whether it changed its position.
 */
export function SlotColumns({ view, which }: { view: SessionView; which: 'live' | 'final' }) {
  const label = which === 'live' ? 'The debate, live, by model' : 'Final positions side by side';
  return (
    <section class={`card columns columns-${which}`} aria-label={label} data-testid={`columns-${which}`}>
      {which === 'final' && <h2>Compare final positions</h2>}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section class="columns-row" tabIndex={0} aria-label={label}>
        {view.slots.map((info) => (
          <Column key={info.slot} view={view} info={info} which={which} />
        ))}
      </section>
    </section>
  );
}

/** Where the live columns go while the panel is not known yet: their height, so their arrival moves nothing below. */
export function SlotColumnsWaiting() {
  return (
    <section class="card columns columns-live" aria-label="The debate, live, by model" aria-busy="true">
      <div class="columns-row">
        <section class="column">
          <header class="column-head">
            <span class="muted small">Starting the models…</span>
          </header>
          <div class="column-body" />
        </section>
      </div>
    </section>
  );
}

function Column({ view, info, which }: { view: SessionView; info: SlotInfo; which: 'live' | 'final' }) {
  const all = answersOfSlot(view, info.slot);
  const answers = which === 'live' ? all : all.slice(-1);
  const failure = slotFailure(view, info.slot);
  const change = view.verdict?.positionChanges.find((p) => p.slot === info.slot);
  const box = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  /** Where this column last scrolled itself: the reader's scroll may not have reached `onScroll` yet. */
  const placed = useRef<number | undefined>(undefined);
  useLayoutEffect(() => {
    const el = box.current;
    if (which !== 'live' || !el) return;
    if (placed.current !== undefined && el.scrollTop < placed.current - 4) atEnd.current = false;
    if (atEnd.current && el.scrollHeight > el.clientHeight) {
      el.scrollTop = el.scrollHeight;
      placed.current = el.scrollTop;
    }
  });
  return (
    <section
      class={`${slotLook(info.slot).className} column`}
      data-slot={info.slot}
      aria-label={`${info.provider} (${info.model})`}
    >
      <header class="column-head">
        <SlotName slot={info.slot} info={info} />
        <span class="muted small">{info.model}</span>
        {info.status === 'offline' && <OfflineMark />}
        {failure && (
          <span class="failing small" data-testid="slot-failing" title={visibleControls(failure.message)}>
            <span aria-hidden="true">✕</span> failing: {failure.code}
          </span>
        )}
      </header>
      {failure && <p class="error small column-cause">{visibleControls(failure.message)}</p>}
      {which === 'final' && change && (
        <p class="small column-position">
          <strong>{change.changed ? `Changed${change.round ? ` in R${change.round}` : ''}` : 'Held'}</strong>:{' '}
          {visibleControls(change.reason)}
        </p>
      )}
      <div
        class="column-body"
        ref={box}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
        }}
      >
        {answers.length === 0 && <p class="muted small">Waiting for the first round…</p>}
        {answers.map((a) => (
          <ColumnAnswer
            key={a.round}
            answer={a}
            rev={a.rev}
            kind={view.rounds.find((r) => r.number === a.round)?.kind}
            which={which}
          />
        ))}
      </div>
    </section>
  );
}

const ColumnAnswer = memo(
  function ColumnAnswer({
    answer,
    kind,
    which,
  }: {
    answer: AnswerView;
    rev: number;
    kind?: keyof typeof KIND;
    which: 'live' | 'final';
  }) {
    return (
      <div class="col-answer" data-answer="" data-round={answer.round} data-slot={answer.slot} tabIndex={-1}>
        <p class="col-answer-head small">
          <span>
            R{answer.round}
            {kind ? ` · ${KIND[kind]}` : ''}
          </span>{' '}
          <StatusChip status={answer.status} />{' '}
          {answer.text && <CopyButton what={`answer of slot ${answer.slot}, round ${answer.round}`} text={() => answer.text} />}
        </p>
        {answer.status === 'failed' && answer.error && (
          <p class="error small">
            {answer.error.code} — {visibleControls(answer.error.message)}
          </p>
        )}
        {/* One renderer from the first delta to the end in the live view: finishing changes nothing on screen. */}
        {which === 'live' ? (
          <LiveMarkdown
            text={answer.text}
            class="answer-text"
            done={answer.status !== 'streaming' && answer.status !== 'thinking'}
          />
        ) : (
          <Markdown text={answer.text} class="answer-text" />
        )}
      </div>
    );
  },
  (a, b) => a.rev === b.rev && a.answer === b.answer && a.kind === b.kind && a.which === b.which,
);
