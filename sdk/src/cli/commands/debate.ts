/**
 * `consilium debate`: a deep debate streamed live (or as JSON lines, or every answer in full with `--full`), then
 * the consensus and the verdict. Ctrl-C, or stdout closing, cancels it on the server.
 */
import { oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, type Parsed, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { renderEstimate } from '../estimate-view.js';
import { PANEL_BOOLEANS, PANEL_OPTIONS, panelFlags } from '../panel-flags.js';
import { question } from '../question.js';
import { watch } from '../watch.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['rounds', 'quorum', 'wiki', 'strategy', 'agreement', 'max-tokens', 'max-cost', ...PANEL_OPTIONS];
const BOOLEANS = ['full', 'estimate', ...PANEL_BOOLEANS];

/** `--strategy`, `--agreement`, `--max-tokens` and `--max-cost`: how the debate runs and what it may spend. */
function trustFlags(parsed: Parsed) {
  const strategy = stringFlag(parsed, 'strategy');
  if (strategy !== undefined && strategy !== 'debate' && strategy !== 'adaptive') {
    throw new UsageError('--strategy must be debate or adaptive');
  }
  const number = (name: string, check: (n: number) => boolean, what: string) => {
    const raw = stringFlag(parsed, name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !check(n)) throw new UsageError(`--${name} must be ${what}`);
    return n;
  };
  const agreement = number('agreement', (n) => n >= 0.5 && n <= 1, 'a share from 0.5 to 1 (e.g. 0.8)');
  if (agreement !== undefined && strategy !== 'adaptive') throw new UsageError('--agreement is for --strategy adaptive');
  const maxTokens = number('max-tokens', (n) => Number.isInteger(n) && n >= 1, 'a whole number of tokens');
  const maxCostUsd = number('max-cost', (n) => Number.isFinite(n) && n > 0, 'a cost in US dollars above 0 (e.g. 0.25)');
  const budget = {
    ...(maxTokens !== undefined && { maxTokens }),
    ...(maxCostUsd !== undefined && { maxCostUsd }),
  };
  return {
    ...(strategy !== undefined && { strategy: strategy as 'debate' | 'adaptive' }),
    ...(agreement !== undefined && { agreement }),
    ...(Object.keys(budget).length > 0 && { budget }),
  };
}

export const debate: Command = {
  options: OPTIONS,
  booleans: BOOLEANS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS, ...BOOLEANS]);
    const panel = panelFlags(ctx.parsed);
    const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
    const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
    const wiki = stringFlag(ctx.parsed, 'wiki');
    const trust = trustFlags(ctx.parsed);
    const text = question(ctx, 'debate');
    const consilium = ctx.consilium();
    const asked = { ...(rounds !== undefined && { rounds }), ...panel, ...trust };
    // Before it starts: the estimate alone (`--estimate`), or a warning when it would not fit the budget.
    if (ctx.parsed.flags.has('estimate') || trust.budget) {
      // The estimate takes what changes the cost: not who is quoted how, nor the threshold.
      const { anonymous: _, agreement: __, ...request } = asked;
      const estimate = await consilium.debates.estimate(text, request);
      if (ctx.parsed.flags.has('estimate')) {
        ctx.out(ctx.json ? `${JSON.stringify(estimate)}\n` : renderEstimate(estimate, ctx.paint));
        return EXIT.ok;
      }
      if (estimate.budget && estimate.budget.verdict !== 'within') {
        ctx.io.stderr.write(`consilium: ${oneLine(estimate.budget.message)}\n`);
      }
    }
    const { code } = await watch(ctx, {
      events: (signal) =>
        consilium.debates.stream(text, {
          ...asked,
          ...(quorum !== undefined && { quorum }),
          ...(wiki !== undefined && { grounding: { source: wiki } }),
          signal,
        }),
    });
    return code;
  },
};
