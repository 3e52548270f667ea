/**
 * A position: the short line an answer ends with, `POSITION: <answer in a few words>` (round 1, the final
 * round's position and the verdict's answer are asked for one; see `prompts.ts`). It is read the way the
 * critique round's `POSITION: unchanged` line is, from the answer's last lines, and tolerant of what real
 * models do to such a line: Markdown emphasis or a list marker around it, another case, a closing remark
 * after it. Two positions are the same when their keys are: the consensus's `normalizeStatement` (case,
 * spacing, closing punctuation aside) of the line stripped of quotes and emphasis.
 */
import { normalizeStatement } from './consensus.js';

/** How far from the end a position line is looked for: models sometimes add a line after it. */
const TAIL_LINES = 4;
const MAX_CHARS = 200;

const LINE = /^[\s>*_`#-]*position[*_`]*\s*[:：][*_`]*\s*(.*)$/i;

/** The position an answer's last lines state, cleaned; undefined when none does (or it is a critique's "unchanged"). */
export function readPosition(text: string): string | undefined {
  const lines = text.split(/\r\n?|\n/).filter((l) => l.trim() !== '');
  for (const line of lines.slice(-TAIL_LINES).reverse()) {
    const m = LINE.exec(line.trim());
    if (!m) continue;
    const value = cleanPosition(m[1]!);
    if (value === '' || /^(un)?changed$/i.test(value)) return undefined;
    return value.length > MAX_CHARS ? `${value.slice(0, MAX_CHARS - 1)}…` : value;
  }
  return undefined;
}

/** The line's words without the quotes, emphasis and closing full stop a model wraps them in. */
export function cleanPosition(raw: string): string {
  let value = raw.trim();
  for (let previous = ''; previous !== value; ) {
    previous = value;
    value = value
      .replace(/^[*_`"'“”‘’«»\s]+|[*_`"'“”‘’«»\s]+$/g, '')
      .replace(/\.$/, '')
      .trim();
  }
  return value.replace(/\s+/g, ' ');
}

/** What two positions are compared by. */
export function positionKey(position: string): string {
  return normalizeStatement(cleanPosition(position));
}
