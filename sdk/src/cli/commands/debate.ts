/**
 * `consilium debate`: a deep debate streamed live (or as JSON lines, or every answer in full with `--full`), then
 * the consensus and the verdict. Ctrl-C, or stdout closing, cancels it on the server.
 */
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, GLOBAL } from '../context.js';
import { PANEL_BOOLEANS, PANEL_OPTIONS, panelFlags } from '../panel-flags.js';
import { question } from '../question.js';
import { watch } from '../watch.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['rounds', 'quorum', 'wiki', ...PANEL_OPTIONS];
const BOOLEANS = ['full', ...PANEL_BOOLEANS];

export const debate: Command = {
  options: OPTIONS,
  booleans: BOOLEANS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS, ...BOOLEANS]);
    const panel = panelFlags(ctx.parsed);
    const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
    const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
    const wiki = stringFlag(ctx.parsed, 'wiki');
    const text = question(ctx, 'debate');
    const consilium = ctx.consilium();
    const { code } = await watch(ctx, {
      events: (signal) =>
        consilium.debates.stream(text, {
          ...(rounds !== undefined && { rounds }),
          ...(quorum !== undefined && { quorum }),
          ...panel,
          ...(wiki !== undefined && { grounding: { source: wiki } }),
          signal,
        }),
    });
    return code;
  },
};
