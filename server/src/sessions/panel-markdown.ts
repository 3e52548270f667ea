/**
 * The parts of a Markdown export about how the panel was run: who debated and synthesized, who was
 * behind each anonymous label, the peer ranking, and where prompts were cut to fit a budget. Only
 * numbers and the ranking's reasons (model text, escaped by the caller's `inline`) appear here.
 */
import type { Session } from '../../../sdk/src/generated/types.gen.js';

/** The header line describing the panel of a deep session, if it recorded one. */
export function panelLine(session: Session): string[] {
  const p = session.panel;
  if (!p) return [];
  const parts = [
    `slots ${p.slots.join(', ')}`,
    ...(p.synthesizer !== undefined ? [`synthesizer slot ${p.synthesizer}`] : []),
    p.anonymous ? 'peers anonymous, in a shuffled order' : 'peers named',
    ...(p.ranking ? ['peer ranking'] : []),
    ...(p.models ?? []).map((m) => `slot ${m.slot} on model ${m.model}`),
  ];
  return [`- Panel: ${parts.join('; ')}`];
}

/** The sections on labels, rankings and prompt cuts; `inline` escapes model text. */
export function panelSections(session: Session, inline: (text: string) => string): string[] {
  const out: string[] = [];
  for (const r of session.rankings ?? []) {
    out.push(`## Peer ranking after round ${r.round}`, '');
    for (const e of r.aggregate) {
      out.push(
        `${e.rank}. Slot ${e.slot}: ${e.points} Borda points from ${e.ballots} ballot${e.ballots === 1 ? '' : 's'}${e.tied ? ' (tied)' : ''}`,
      );
    }
    out.push('');
    if (r.note) out.push(`_${inline(r.note)}_`, '');
    for (const b of r.ballots) {
      out.push(`- Slot ${b.slot} ranked: ${b.order.map((o) => `slot ${o.slot} (${inline(o.reason)})`).join(' > ')}`);
    }
    for (const m of r.missing) out.push(`- Slot ${m.slot} gave no ranking: ${inline(m.reason)}`);
    out.push('');
  }
  const labels = session.labels ?? [];
  if (labels.length > 0) {
    out.push('## Who was behind each label', '');
    for (const l of labels) {
      const what = l.purpose === 'ranking' ? `ranking of round ${l.round}` : `round ${l.round}`;
      out.push(`- ${what}, slot ${l.reader} read: ${l.responses.map((r) => `${r.label} = slot ${r.slot}`).join(', ')}`);
    }
    out.push('');
  }
  const cuts = session.promptCuts ?? [];
  if (cuts.length > 0) {
    out.push('## Prompts cut to fit a context budget', '');
    for (const c of cuts) {
      const where = c.round === 0 ? 'the verdict' : `round ${c.round}`;
      out.push(
        `- ${where}, slot ${c.reader}'s prompt: slot ${c.slot}'s answer${c.quotedRound ? ` (round ${c.quotedRound})` : ''} kept ${c.keptChars} of ${c.chars} characters`,
      );
    }
    out.push('');
  }
  return out;
}
