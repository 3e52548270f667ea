/** A stored session as text: its rounds' answers, then the verdict grouped P0/P1/P2 (`sessions show`, `follow-up`). */
import type { Session } from '../generated/types.gen.js';
import { inert, oneLine, type Paint, slotColour } from '../terminal/terminal.js';
import { renderVerdict } from './debate-view.js';
import { renderIntegrity } from './integrity-view.js';

/** A session's status, coloured and padded for the `sessions` list. */
export const statusPaint = (p: Paint, status: string) =>
  p(status === 'completed' ? 'green' : status === 'running' ? 'cyan' : 'yellow', status.padEnd(11));

/** The `sessions` list: a header row, then a row per session (its question cut to 60 characters). */
export function sessionTable(
  rows: readonly Pick<Session, 'id' | 'status' | 'mode' | 'createdAt' | 'question'>[],
  p: Paint,
): string {
  const id = Math.max(2, ...rows.map((s) => s.id.length));
  const created = Math.max(7, ...rows.map((s) => s.createdAt.length));
  const header = `${'ID'.padEnd(id)}  ${'STATUS'.padEnd(11)}  ${'MODE'.padEnd(9)} ${'CREATED'.padEnd(created)}  QUESTION`;
  const lines = rows.map(
    (s) =>
      `${s.id.padEnd(id)}  ${statusPaint(p, s.status)}  ${s.mode.padEnd(9)} ${s.createdAt.padEnd(created)}  ${oneLine(s.question).slice(0, 60)}`,
  );
  return `${[p('bold', header), ...lines].join('\n')}\n`;
}

export function renderSession(s: Session, p: Paint): string {
  const out = [`${p('bold', oneLine(s.question))}`, `${s.id} · ${s.mode} · ${statusPaint(p, s.status).trim()} · ${s.createdAt}`];
  if (s.endReason) out.push(p('yellow', `Did not complete: ${oneLine(s.endReason)}`));
  for (const round of s.rounds) {
    out.push('', p('bold', `Round ${round.number} · ${round.kind}`));
    for (const a of round.answers) {
      out.push(
        `${p(slotColour(a.slot), `${a.slot} ${oneLine(a.provider)}`)}: ${a.error ? p('red', `failed (${oneLine(a.error.code)})`) : inert(a.text).trim()}`,
      );
    }
  }
  for (const u of s.unmatchedLabels ?? [])
    out.push(
      p(
        'yellow',
        `Slot ${u.reader} credited "${oneLine(u.statement)}" to "${oneLine(u.text)}": no panel member, credited to no one`,
      ),
    );
  if (s.verdict) out.push('', p('bold', 'Verdict'), renderVerdict(s.verdict, p).trimEnd());
  // A deep debate whose final round missed its quorum has no verdict, but its answers are kept.
  else if (s.mode === 'deep' && s.status !== 'running' && s.rounds.some((r) => r.answers.some((a) => !a.error)))
    out.push('', `No verdict. Synthesize one from the stored answers: consilium synthesize ${s.id}`);
  if (s.integrity) out.push(renderIntegrity(s.integrity, p).trimEnd());
  return `${out.join('\n')}\n`;
}
