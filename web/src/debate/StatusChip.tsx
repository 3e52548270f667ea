import type { AnswerStatus } from './model.js';

const STATUS_LABEL: Record<AnswerStatus, string> = {
  thinking: 'thinking…',
  streaming: 'streaming',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};
const STATUS_ICON: Record<AnswerStatus, string> = { thinking: '…', streaming: '▸', done: '✓', failed: '✕', cancelled: '■' };

export function StatusChip({ status }: { status: AnswerStatus }) {
  return (
    <span class={`status status-${status}`}>
      <span aria-hidden="true">{STATUS_ICON[status]}</span> {STATUS_LABEL[status]}
    </span>
  );
}
