/** A stored session as text: its rounds' answers, then the verdict grouped P0/P1/P2 (`sessions show`, `follow-up`). */
import type { Session } from '../generated/types.gen.js';
import { inert, oneLine, type Paint, slotColour } from '../terminal/terminal.js';
import { renderVerdict } from './debate-view.js';
import { renderIntegrity } from './integrity-view.js';

/** A session's status, coloured and padded for the `sessions` list. */
export const statusPaint = (p: Paint, status: string) =>
  p(status === 'completed' ? 'green' : status === 'running' ? 'cyan' : 'yellow', status.padEnd(11));

export function renderSession(s: Session, p: Paint): string {
  const out = [`${p('bold', oneLine(s.question))}`, `${s.id} · ${s.mode} · ${statusPaint(p, s.status).trim()} · ${s.createdAt}`];
  for (const round of s.rounds) {
    out.push('', p('bold', `Round ${round.number} · ${round.kind}`));
    for (const a of round.answers) {
      out.push(
        `${p(slotColour(a.slot), `${a.slot} ${oneLine(a.provider)}`)}: ${a.error ? p('red', `failed (${oneLine(a.error.code)})`) : inert(a.text).trim()}`,
      );
    }
  }
  if (s.verdict) out.push('', p('bold', 'Verdict'), renderVerdict(s.verdict, p).trimEnd());
  if (s.integrity) out.push(renderIntegrity(s.integrity, p).trimEnd());
  return `${out.join('\n')}\n`;
}
