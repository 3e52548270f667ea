import { memo } from 'preact/compat';
import type { SlotInfo } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { OfflineMark, SlotName } from '../components.js';
import { formatCost, formatUsage } from '../format.js';
import { slotLook } from '../slots.js';
import { CopyButton } from './Copy.js';
import { LiveMarkdown } from './LiveMarkdown.js';
import { Markdown } from './Markdown.js';
import { type AnswerView, failureLabel } from './model.js';
import { StatusChip } from './StatusChip.js';

/** One model's answer in a round; re-rendered only when the answer changed (`rev`). */
export const AnswerCard = memo(
  function AnswerCard({ answer, info }: { answer: AnswerView; rev: number; info?: SlotInfo }) {
    const look = slotLook(answer.slot);
    const offline = answer.answer?.offline ?? info?.status === 'offline';
    return (
      <article
        class={`${look.className} answer answer-${answer.status}`}
        data-slot={answer.slot}
        data-round={answer.round}
        data-answer=""
        tabIndex={-1}
      >
        <header>
          <SlotName slot={answer.slot} info={info} />
          <StatusChip status={answer.status} />
          {offline && <OfflineMark />}
          {answer.text && <CopyButton what={`answer of slot ${answer.slot}, round ${answer.round}`} text={() => answer.text} />}
        </header>
        <p class="muted small">
          {answer.answer?.model ?? info?.model}
          {info?.strength ? ` · ${info.strength}` : ''}
        </p>
        {answer.status === 'failed' && answer.error && (
          <p class="error small" role="status">
            {failureLabel(answer.error)} — {visibleControls(answer.error.message)}
            {answer.error.attempts > 1 ? ` (${answer.error.attempts} attempts)` : ''}
          </p>
        )}
        {answer.status === 'streaming' || answer.status === 'thinking' ? (
          // While streaming: Markdown chunk by chunk (only the growing end re-renders); all of it once it ended.
          <LiveMarkdown text={answer.text} class="answer-text" />
        ) : (
          <Markdown text={answer.text} class="answer-text" />
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
