/**
 * A deep session's integrity report as text (`debate` after the verdict, `sessions show`): the one line on the
 * verdict and the round-1 vote, each slot from round 1 to its final position, and the flags. Positions and
 * reasons are model text: inert, one line each.
 */
import type { IntegrityReport } from '../generated/types.gen.js';
import { FLAG_LABELS, MOVE_LABELS } from '../integrity-labels.js';
import { oneLine, type Paint } from '../terminal/terminal.js';

export function renderIntegrity(report: IntegrityReport, paint: Paint, name: (slot: number) => string = String): string {
  const quote = (text: string | undefined) => (text === undefined ? '—' : `“${oneLine(text)}”`);
  const out = ['', paint('bold', 'Integrity'), oneLine(report.summary)];
  const { vote } = report;
  if (vote.positions.length > 0) {
    out.push(
      paint(
        'dim',
        `round-1 positions: ${vote.positions.map((p) => `${quote(p.position)} ${p.slots.map(name).join(', ')}`).join(' · ')}`,
      ),
    );
  }
  const a = report.adaptive;
  if (a) {
    const saved = a.saved
      ? `; saved ~${a.saved.calls} calls, ${a.saved.tokens} tokens${a.saved.priced ? `, $${a.saved.usd.toFixed(4)}` : ''}`
      : '';
    out.push(
      paint(
        'dim',
        `adaptive: agreement ${a.agreement === undefined ? '—' : `${Math.round(a.agreement * 100)}%`} of ${Math.round(a.threshold * 100)}% needed — ${a.stopped ? 'stopped after round 1' : 'debated on'}${saved}`,
      ),
    );
  }
  for (const s of report.slots) {
    const reason =
      s.reason === 'held'
        ? ''
        : s.reason === 'none'
          ? ', no reason given'
          : s.reason === 'majority'
            ? ', only the majority as its reason'
            : `: ${oneLine(s.reasonText ?? '')}`;
    out.push(`  ${name(s.slot)}: ${quote(s.first)} → ${quote(s.final)} ${paint('dim', `${MOVE_LABELS[s.direction]}${reason}`)}`);
  }
  for (const f of report.flags) {
    out.push(
      `  ${paint(f.kind === 'dissent_kept' ? 'blue' : 'yellow', `⚑ ${FLAG_LABELS[f.kind].toLowerCase()}`)} ${oneLine(f.message)}`,
    );
  }
  return `${out.join('\n')}\n`;
}
