/**
 * `consilium eval` as a library: run a question set with reference answers through several strategies on one
 * panel (each slot alone, the round-1 vote, the full debate, adaptive) and report accuracy with its interval,
 * cost, tokens, wall time and the cases the debate flipped.
 */
export { gradeLocally, JUDGE_MARK, judgePrompt, readJudgement } from './graders.js';
export { askedQuestion, EvalInputError, type EvalQuestion, type Grader, parseQuestions } from './questions.js';
export { evalHtml, evalMarkdown, type ReportOptions } from './report.js';
export {
  EVAL_STRATEGIES,
  type EvalOptions,
  type EvalProgress,
  type EvalRecord,
  type EvalResult,
  type EvalSettings,
  type EvalStrategy,
  evalSettings,
  type Flip,
  type Outcome,
  runEval,
  type StrategySummary,
  summarize,
} from './run.js';
export { wilson } from './stats.js';
