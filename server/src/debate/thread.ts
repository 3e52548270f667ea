/**
 * A follow-up's view of its thread: each earlier exchange condensed to its question and its result
 * (consensus and verdict, or the answers when there is no verdict), each part cut to a fixed length,
 * and only the latest exchanges kept, so the prompt stays bounded however long the thread grows.
 */
import type { Session } from '../../../sdk/src/generated/types.gen.js';

/** At most this many earlier exchanges are shown; older ones are only counted. */
export const THREAD_EXCHANGES = 4;
/** The whole context never exceeds this many characters. */
export const THREAD_CHARS = 6000;

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One earlier session as a few lines. */
function exchange(session: Session, index: number): string {
  const lines = [`### Earlier question ${index}`, `Asked (${session.mode}): ${cut(session.question, 400)}`];
  const verdict = session.verdict;
  if (session.consensus?.agreements.length) {
    const agreed = session.consensus.agreements.slice(0, 3).map((a) => cut(a.statement, 200));
    lines.push(`The panel agreed: ${agreed.join(' | ')}`);
  }
  if (verdict?.format === 'structured') {
    lines.push(`Verdict: ${cut(`${verdict.summary ?? ''} ${verdict.answer ?? ''}`, 700)}`);
    const actions = (['P0', 'P1'] as const).flatMap((p) => (verdict.actions?.[p] ?? []).map((a) => `${p} ${cut(a.title, 100)}`));
    if (actions.length > 0) lines.push(`Actions: ${actions.slice(0, 4).join('; ')}`);
  } else if (verdict?.rawText) {
    lines.push(`Verdict (unstructured): ${cut(verdict.rawText, 500)}`);
  } else {
    const answers = (session.rounds.at(-1)?.answers ?? []).filter((a) => !a.error);
    for (const a of answers.slice(0, 5)) lines.push(`Slot ${a.slot} (${a.provider}) answered: ${cut(a.text, 300)}`);
    if (answers.length === 0) lines.push('(No answer was recorded.)');
  }
  return lines.join('\n');
}

/** The thread so far (oldest first), condensed for a follow-up's prompts. */
export function threadContext(sessions: readonly Session[]): string {
  const shown = sessions.slice(-THREAD_EXCHANGES);
  const skipped = sessions.length - shown.length;
  const parts = shown.map((s, i) => exchange(s, skipped + i + 1));
  // Oldest first out until it fits.
  while (parts.length > 1 && parts.join('\n\n').length > THREAD_CHARS) parts.shift();
  const dropped = sessions.length - parts.length;
  const head = dropped > 0 ? [`(${dropped} earlier exchange${dropped > 1 ? 's' : ''} not shown.)`] : [];
  const text = [...head, ...parts].join('\n\n');
  return text.length > THREAD_CHARS ? text.slice(0, THREAD_CHARS) : text;
}
