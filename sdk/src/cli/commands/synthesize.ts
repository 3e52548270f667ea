/**
 * `consilium synthesize`: a verdict written from a stored session (`synthesize ses_…`) or from given answers
 * (`--question "…" --answers answers.json`, or `-` for stdin: a JSON array of `{ "slot": 1, "text": "…" }`).
 */

import { readFileSync } from 'node:fs';
import type { SynthesisAnswer } from '../../generated/types.gen.js';
import { jsonLine, oneLine, slotColour } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { onlyFlags, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { renderVerdict } from '../debate-view.js';

const OPTIONS = ['question', 'answers'];

/** The answers file: a JSON array of `{ slot, text, round? }`, checked only for shape; the server checks the rest. */
function parseAnswers(text: string, from: string): SynthesisAnswer[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--answers ${from} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value) || value.some((a) => typeof a !== 'object' || a === null || typeof a.text !== 'string')) {
    throw new UsageError(`--answers ${from} must be a JSON array of { "slot": 1, "text": "…" }`);
  }
  return value as SynthesisAnswer[];
}

export const synthesize: Command = {
  options: OPTIONS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const [id, ...extra] = ctx.parsed.positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    const question = stringFlag(ctx.parsed, 'question');
    const answersFrom = stringFlag(ctx.parsed, 'answers');
    if (id !== undefined && (question !== undefined || answersFrom !== undefined)) {
      throw new UsageError('give a session id, or --question with --answers, not both');
    }
    if (id === undefined && (question === undefined || answersFrom === undefined)) {
      throw new UsageError('give a session id, or --question "…" with --answers FILE (or - for stdin)');
    }
    const body =
      id !== undefined
        ? { sessionId: id }
        : {
            question: question!,
            answers: parseAnswers(
              answersFrom === '-' ? await ctx.io.readStdin() : readAnswers(answersFrom!),
              answersFrom === '-' ? 'from stdin' : oneLine(answersFrom!),
            ),
          };
    const result = await ctx.consilium().debates.synthesize(body);
    if (ctx.json) {
      ctx.out(jsonLine(result));
      return EXIT.ok;
    }
    const { synthesizer } = result.verdict;
    const name = (slot: number) => ctx.paint(slotColour(slot), String(slot));
    ctx.out(
      `${ctx.paint('bold', 'Verdict')} ${ctx.paint('dim', `written by ${synthesizer.slot} ${oneLine(synthesizer.provider)}`)}\n`,
    );
    ctx.out(renderVerdict(result.verdict, ctx.paint, name));
    ctx.out(`${ctx.paint('dim', `session ${result.sessionId} · ${result.usage.totalTokens} tokens`)}\n`);
    return EXIT.ok;
  },
};

function readAnswers(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read --answers ${oneLine(path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
