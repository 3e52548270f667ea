/** A run's cost estimate as text (`debate --estimate`), and the warning a run over its budget prints before it starts. */
import type { Estimate, EstimateRange } from '../generated/types.gen.js';
import { oneLine, type Paint } from '../terminal/terminal.js';

const tokens = (r: EstimateRange) => `${Math.round(r.low)}–${Math.round(r.high)} (~${Math.round(r.expected)})`;
const usd = (r: EstimateRange, priced: boolean) =>
  `$${r.low.toFixed(4)}–$${r.high.toFixed(4)} (~$${r.expected.toFixed(4)})${priced ? '' : ', some models unpriced'}`;
const calls = (r: EstimateRange) => (r.low === r.high ? `${r.low}` : `${r.low}–${r.high}`);

export function renderEstimate(estimate: Estimate, paint: Paint): string {
  const out = [paint('bold', `Estimate (${estimate.mode})`)];
  for (const s of estimate.slots) {
    out.push(
      `  ${s.slot} ${oneLine(s.provider)} ${paint('dim', oneLine(s.model))}${s.offline ? paint('dim', ' (offline)') : ''}: ${calls(s.calls)} calls · in ${tokens(s.inputTokens)} · out ${tokens(s.outputTokens)} · ${usd(s.costUsd, s.priced)}${s.pastAnswers > 0 ? paint('dim', ` · from ${s.pastAnswers} past answers`) : ''}`,
    );
  }
  const t = estimate.total;
  out.push(
    `  ${paint('bold', 'total')}: ${calls(t.calls)} calls · in ${tokens(t.inputTokens)} · out ${tokens(t.outputTokens)} · ${usd(t.costUsd, t.priced)}`,
  );
  out.push(paint('dim', `  ${oneLine(estimate.note)}`));
  if (estimate.budget) {
    const colour = estimate.budget.verdict === 'within' ? 'green' : estimate.budget.verdict === 'exceeds' ? 'red' : 'yellow';
    out.push(`  ${paint(colour, oneLine(estimate.budget.message))}`);
  }
  return `${out.join('\n')}\n`;
}
