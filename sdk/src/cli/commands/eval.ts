/**
 * `consilium eval <questions.jsonl>`: the question set through each strategy on the server's panel (`runEval`),
 * with progress on stderr, then a Markdown and an HTML report in the output folder and the summary on stdout.
 * Every finished session is appended to `<out>/state.jsonl` as it ends; run the same command again after an
 * interruption and it goes on from there, asking nothing it already has.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConsiliumError } from '../../errors.js';
import {
  EVAL_STRATEGIES,
  EvalInputError,
  type EvalQuestion,
  type EvalRecord,
  type EvalSettings,
  type EvalStrategy,
  evalHtml,
  evalMarkdown,
  evalSettings,
  parseQuestions,
  runEval,
} from '../../eval/index.js';
import { canRedraw, oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { slotList } from '../panel-flags.js';

const OPTIONS = ['out', 'strategies', 'rounds', 'slots', 'agreement', 'judge', 'concurrency'];
const BOOLEANS = ['fresh'];

/** The state file's first line: what the run is, so a resumed one can be checked to be the same. */
interface RunHeader {
  type: 'run';
  runId: string;
  settings: EvalSettings;
  /** Each question's id and text, in order. */
  questions: [string, string][];
}

function strategiesFlag(raw: string | undefined): EvalStrategy[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.split(',').map((s) => s.trim());
  for (const s of list) {
    if (!EVAL_STRATEGIES.includes(s as EvalStrategy)) {
      throw new UsageError(`--strategies takes ${EVAL_STRATEGIES.join(', ')} (comma-separated), not "${oneLine(s)}"`);
    }
  }
  return list as EvalStrategy[];
}

/** The run kept in `file`: its header and records; a line cut short by a crash is left out. */
function readState(file: string): { header?: RunHeader; records: EvalRecord[] } {
  if (!existsSync(file)) return { records: [] };
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  let header: RunHeader | undefined;
  const records: EvalRecord[] = [];
  for (const line of lines) {
    let value: { type?: string } & Record<string, unknown>;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (value.type === 'run') header = value as unknown as RunHeader;
    else if (value.type === 'record') records.push(value.record as EvalRecord);
  }
  return { ...(header && { header }), records };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const evaluate: Command = {
  options: OPTIONS,
  booleans: BOOLEANS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS, ...BOOLEANS]);
    const [file, ...extra] = ctx.parsed.positionals;
    if (file === undefined) throw new UsageError('missing the question set, e.g. consilium eval questions.jsonl');
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    let questions: EvalQuestion[];
    try {
      questions = parseQuestions(readFileSync(file, 'utf8'));
    } catch (error) {
      if (error instanceof EvalInputError) throw new UsageError(`${file}: ${error.message}`);
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const agreementRaw = stringFlag(ctx.parsed, 'agreement');
    const agreement = agreementRaw === undefined ? undefined : Number(agreementRaw);
    if (agreement !== undefined && !(agreement >= 0.5 && agreement <= 1))
      throw new UsageError('--agreement must be a share from 0.5 to 1');
    const strategies = strategiesFlag(stringFlag(ctx.parsed, 'strategies'));
    const rounds = intFlag(ctx.parsed, 'rounds', 2, 5);
    const slots = slotList(ctx.parsed);
    const judge = intFlag(ctx.parsed, 'judge', 1, 5);
    const settings = evalSettings({
      ...(strategies && { strategies }),
      ...(rounds !== undefined && { rounds }),
      ...(slots && { slots }),
      ...(agreement !== undefined && { agreement }),
      ...(judge !== undefined && { judge }),
    });
    const concurrency = intFlag(ctx.parsed, 'concurrency', 1, 8) ?? 2;
    const name = basename(file).replace(/\.[^.]*$/, '') || 'eval';
    const out = stringFlag(ctx.parsed, 'out') ?? `eval-${name}`;
    const stateFile = join(out, 'state.jsonl');
    mkdirSync(out, { recursive: true });
    if (ctx.parsed.flags.has('fresh')) rmSync(stateFile, { force: true });

    const listed = questions.map((q): [string, string] => [q.id, q.question]);
    const kept = readState(stateFile);
    let header = kept.header;
    if (header && (!same(header.settings, settings) || !same(header.questions, listed))) {
      throw new UsageError(
        `${stateFile} holds a run with other settings or questions; give --fresh to start over, or another --out`,
      );
    }
    if (!header) {
      const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13);
      header = {
        type: 'run',
        runId: `${name
          .toLowerCase()
          .replace(/[^a-z0-9._-]/g, '-')
          .slice(0, 40)}-${stamp.toLowerCase()}`,
        settings,
        questions: listed,
      };
      writeFileSync(stateFile, `${JSON.stringify(header)}\n`);
    }
    const { runId } = header;

    const consilium = ctx.consilium();
    const controller = new AbortController();
    const release = ctx.io.onInterrupt(() => controller.abort());
    const stop = () => controller.abort();
    ctx.closed.addEventListener('abort', stop);
    const live = canRedraw(ctx.io.stdout.isTTY, ctx.io.env) && !ctx.json;
    const err = (line: string) => ctx.io.stderr.write(line);
    let drawn = false;
    const show = (line: string, keep: boolean) => {
      if (live) {
        err(`\r\u001b[2K${line}${keep ? '\n' : ''}`);
        drawn = !keep;
      } else if (keep) err(`${line}\n`);
    };
    let total = 0;
    let done = 0;
    try {
      const result = await runEval(consilium, {
        questions,
        ...settings,
        runId,
        concurrency,
        done: kept.records,
        signal: controller.signal,
        onRecord: (record) => appendFileSync(stateFile, `${JSON.stringify({ type: 'record', record })}\n`),
        onProgress: (p) => {
          total = p.total;
          done = p.done;
          if (p.last === undefined && p.waitingMs === undefined) {
            show(
              `eval ${runId}: ${p.total} sessions for ${questions.length} questions${p.resumed > 0 ? `, ${p.resumed} kept from before` : ''}; state in ${stateFile}`,
              true,
            );
            return;
          }
          const what = p.waitingMs
            ? `the server limits runs: waiting ${Math.round(p.waitingMs / 1000)} s`
            : `${oneLine(p.last!.questionId)} ${p.last!.kind} ${p.last!.status}`;
          show(`eval: ${p.done}/${p.total} · ${what}`, !live);
        },
      });
      if (drawn) err('\n');
      const md = evalMarkdown(result, { baseUrl: ctx.server?.url });
      writeFileSync(join(out, 'report.md'), md);
      writeFileSync(join(out, 'report.html'), evalHtml(result, { baseUrl: ctx.server?.url }));
      err(`eval: wrote ${join(out, 'report.md')} and ${join(out, 'report.html')}\n`);
      if (ctx.json) {
        const { records: _, ...summary } = result;
        ctx.out(`${JSON.stringify(summary)}\n`);
      } else ctx.out(md);
      return EXIT.ok;
    } catch (error) {
      if (drawn) err('\n');
      if (error instanceof ConsiliumError && error.code === 'aborted' && controller.signal.aborted) {
        if (ctx.closed.aborted) return EXIT.closed;
        err(
          `consilium: eval interrupted: ${done} of ${total} sessions kept in ${stateFile}; run the same command again to go on\n`,
        );
        return EXIT.interrupted;
      }
      throw error;
    } finally {
      release();
      ctx.closed.removeEventListener('abort', stop);
    }
  },
};
