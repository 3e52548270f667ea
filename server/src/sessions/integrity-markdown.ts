/**
 * A deep session's integrity report in its Markdown export: the one line on the verdict and the round-1 vote,
 * the vote itself, each slot's positions and moves, and the flags. Positions and reasons are model text:
 * each goes through the export's escaping (`inline`), never raw.
 */
import type { IntegrityReport, SlotIntegrity } from '../../../sdk/src/generated/types.gen.js';

const DIRECTIONS: Record<SlotIntegrity['direction'], string> = {
  unchanged: 'held',
  towards_majority: 'moved to the majority',
  away_from_majority: 'left the majority',
  to_other: 'moved to another slot’s position',
  new_position: 'moved to a new position',
  unknown: 'position not stated',
};

const REASONS: Record<SlotIntegrity['reason'], string> = {
  stated: 'its reason',
  majority: 'only the majority as its reason',
  none: 'no reason given',
  held: '',
};

const FLAGS: Record<IntegrityReport['flags'][number]['kind'], string> = {
  conformity: 'Conformity',
  collapse: 'Collapse',
  dissent_kept: 'Dissent kept',
  same_family: 'Same family',
};

export function integritySection(report: IntegrityReport, inline: (text: string) => string): string[] {
  const out = ['## Integrity', '', `**${inline(report.summary)}**`, ''];
  const { vote } = report;
  out.push(
    `- Round-1 vote: ${vote.position !== undefined ? `${inline(vote.position)} (${vote.slots?.length} of ${vote.answered})` : vote.tie ? 'a tie' : 'none'}; ${vote.stated} of ${vote.answered} answers stated a position`,
  );
  for (const p of vote.positions) out.push(`  - ${inline(p.position)}: slot ${p.slots.join(', ')}`);
  const verdict = report.verdict;
  out.push(
    `- Verdict's position: ${verdict.position !== undefined ? inline(verdict.position) : 'none stated'} (${verdict.source.replace('_', ' ')})`,
  );
  if (report.adaptive) {
    const a = report.adaptive;
    const agreement = a.agreement !== undefined ? `${Math.round(a.agreement * 100)} %` : 'undecided';
    const saved = a.saved
      ? `; saved about ${a.saved.calls} calls, ${a.saved.tokens} tokens, $${a.saved.usd.toFixed(4)}${a.saved.priced ? '' : ' (lower bound)'}`
      : '';
    out.push(
      `- Adaptive: agreement ${agreement}, threshold ${Math.round(a.threshold * 100)} % — ${a.stopped ? 'stopped after round 1' : 'debated on'}${saved}`,
    );
  }
  out.push('', '| Slot | Model | Round 1 | Final | Move | Reason |', '| --- | --- | --- | --- | --- | --- |');
  for (const s of report.slots) {
    // `inline` escapes `|` too, so model text cannot end a cell.
    const cell = (text: string | undefined) => (text === undefined ? '—' : inline(text));
    const move = `${DIRECTIONS[s.direction]}${s.towards?.length ? ` (slot ${s.towards.join(', ')})` : ''}`;
    const reason =
      s.reason === 'held' ? '' : `${REASONS[s.reason]}${s.reasonText && s.reason !== 'none' ? `: ${s.reasonText}` : ''}`;
    out.push(
      `| ${s.slot} | ${cell(`${s.provider} ${s.model} (${s.family})`)} | ${cell(s.first)} | ${cell(s.final)} | ${cell(move)} | ${cell(reason || undefined)} |`,
    );
  }
  out.push('');
  if (report.flags.length > 0) {
    out.push('### Flags', '');
    for (const f of report.flags) out.push(`- **${FLAGS[f.kind]}** — ${inline(f.message)}`);
    out.push('');
  }
  return out;
}
