/**
 * An evaluation's question set: JSON Lines, one question per line, each with its reference answer and how an
 * answer is graded against it.
 *
 * ```jsonl
 * {"id": "capital", "question": "What is the capital of Australia?", "reference": "Canberra"}
 * {"question": "Which planet is closest to the Sun?", "choices": ["Venus", "Mercury", "Mars"], "reference": "B"}
 * {"question": "How many minutes from 14:10 to 16:45?", "reference": "155", "grader": "number", "tolerance": 0}
 * {"question": "Name element 26.", "reference": "^(iron|fe)$", "grader": "regex"}
 * {"question": "Why does the Moon show phases?", "reference": "We see more or less of its lit half.", "grader": "judge", "judge": 2}
 * ```
 *
 * `grader` is `exact` unless given (`choice` when `choices` are given). `id` is the line's number unless given;
 * ids are unique. Blank lines and lines starting with `#` are skipped.
 */

export type Grader = 'exact' | 'choice' | 'number' | 'regex' | 'judge';

export interface EvalQuestion {
  id: string;
  question: string;
  reference: string;
  choices?: string[];
  grader: Grader;
  /** `number`: the largest difference from the reference still graded right; 0 unless given. */
  tolerance?: number;
  /** `regex`: the pattern an answer must match (case-insensitive); the reference unless given. */
  pattern?: string;
  /** `judge`: the slot that grades; the run's `judge` unless given. */
  judge?: number;
}

/** A question set that cannot be used, with the line (from 1) where it went wrong. */
export class EvalInputError extends Error {
  override readonly name = 'EvalInputError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const GRADERS: readonly Grader[] = ['exact', 'choice', 'number', 'regex', 'judge'];
const KNOWN = new Set(['id', 'question', 'reference', 'choices', 'grader', 'tolerance', 'pattern', 'judge']);

export function parseQuestions(jsonl: string): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  const ids = new Set<string>();
  for (const [i, raw] of jsonl.split(/\r?\n/).entries()) {
    const line = i + 1;
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new EvalInputError(line, `not JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EvalInputError(line, 'not a JSON object');
    const q = value as Record<string, unknown>;
    const unknown = Object.keys(q).filter((k) => !KNOWN.has(k));
    if (unknown.length > 0) throw new EvalInputError(line, `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`);
    const string = (key: string, required: boolean): string | undefined => {
      const v = q[key];
      if (v === undefined && !required) return undefined;
      if (typeof v === 'number' && key !== 'question') return String(v);
      if (typeof v !== 'string' || v.trim() === '') throw new EvalInputError(line, `"${key}" must be a non-empty string`);
      return v;
    };
    const question = string('question', true)!;
    const reference = string('reference', true)!;
    const id = string('id', false) ?? String(line);
    if (ids.has(id)) throw new EvalInputError(line, `the id "${id}" is used twice`);
    ids.add(id);
    let choices: string[] | undefined;
    if (q.choices !== undefined) {
      if (
        !Array.isArray(q.choices) ||
        q.choices.length < 2 ||
        q.choices.length > 26 ||
        !q.choices.every((c) => typeof c === 'string' && c.trim() !== '')
      ) {
        throw new EvalInputError(line, '"choices" must be 2 to 26 non-empty strings');
      }
      choices = q.choices as string[];
    }
    const grader = (q.grader ?? (choices ? 'choice' : 'exact')) as Grader;
    if (!GRADERS.includes(grader)) throw new EvalInputError(line, `"grader" must be one of ${GRADERS.join(', ')}`);
    const entry: EvalQuestion = { id, question, reference, grader, ...(choices && { choices }) };
    if (grader === 'choice') {
      if (!choices) throw new EvalInputError(line, 'the choice grader needs "choices"');
      if (choiceIndex(reference, choices) === undefined) {
        throw new EvalInputError(
          line,
          `"reference" must name one of the choices (a letter A–${letter(choices.length - 1)} or its text)`,
        );
      }
    }
    if (q.tolerance !== undefined) {
      if (grader !== 'number' || typeof q.tolerance !== 'number' || !(q.tolerance >= 0)) {
        throw new EvalInputError(line, '"tolerance" is a number ≥ 0, for the number grader');
      }
      entry.tolerance = q.tolerance;
    }
    if (grader === 'number' && numberIn(reference) === undefined) throw new EvalInputError(line, '"reference" must be a number');
    if (q.pattern !== undefined || grader === 'regex') {
      const pattern = string('pattern', false) ?? reference;
      if (grader !== 'regex') throw new EvalInputError(line, '"pattern" is for the regex grader');
      try {
        new RegExp(pattern, 'i');
      } catch (error) {
        throw new EvalInputError(line, `the pattern does not compile (${(error as Error).message})`);
      }
      if (q.pattern !== undefined) entry.pattern = pattern;
    }
    if (q.judge !== undefined) {
      if (grader !== 'judge' || !Number.isInteger(q.judge) || (q.judge as number) < 1 || (q.judge as number) > 5) {
        throw new EvalInputError(line, '"judge" is a slot number 1–5, for the judge grader');
      }
      entry.judge = q.judge as number;
    }
    out.push(entry);
  }
  if (out.length === 0) throw new EvalInputError(1, 'no question');
  return out;
}

export const letter = (i: number) => String.fromCharCode(65 + i);

/** What the panel is asked: the question, and its choices by letter when it has them. */
export function askedQuestion(q: EvalQuestion): string {
  if (!q.choices) return q.question;
  const listed = q.choices.map((c, i) => `${letter(i)}) ${c}`).join('\n');
  return `${q.question}\n\n${listed}\n\nAnswer with the letter of one choice.`;
}

/** The choice a text names: its letter (`B`, `(B)`, `B) Mercury`) or its whole text; undefined when it names none. */
export function choiceIndex(text: string, choices: readonly string[]): number | undefined {
  const t = text.trim();
  const byLetter = /^\(?([A-Za-z])\)?(?:[).:\s]|$)/.exec(t);
  if (byLetter) {
    const i = byLetter[1]!.toUpperCase().charCodeAt(0) - 65;
    if (i >= 0 && i < choices.length && (t.length <= 3 || /^\(?[A-Za-z][).:]/.test(t) || t.length === 1)) return i;
  }
  const norm = normalizeAnswer(t);
  const i = choices.findIndex((c) => normalizeAnswer(c) === norm);
  return i >= 0 ? i : undefined;
}

/** Case, spacing, wrapping quotes and closing punctuation aside. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/^[\s"'“”‘’*_`]+|[\s"'“”‘’*_`.!?;:,]+$/g, '')
    .replace(/\s+/g, ' ');
}

/** The first number in a text (`1,234.5`, `-3`, `42%`), or undefined. */
export function numberIn(text: string): number | undefined {
  const m = /-?\d[\d,]*(?:\.\d+)?|-?\.\d+/.exec(text);
  if (!m) return undefined;
  const n = Number(m[0].replace(/,(?=\d{3}\b)/g, ''));
  return Number.isFinite(n) ? n : undefined;
}
