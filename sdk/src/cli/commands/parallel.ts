/**
 * `consilium parallel`: every slot (or `--slots`) answers once, side by side, shown live as `debate` shows a round
 * (`--full`: every answer in full as it is written; `--json`: one event per line; `--wiki SOURCE`: grounded in a
 * wiki source of the server's, its sources printed at the end). Ctrl-C cancels it on the server.
 */

import { UsageError } from '../../terminal/usage.js';
import { onlyFlags, stringFlag } from '../args.js';
import { type Command, GLOBAL } from '../context.js';
import { question } from '../question.js';
import { detachedEvents, watch } from '../watch.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['slots', 'full', 'wiki'];

/** `--slots 1,3` as slot numbers. */
export function slotList(value: string | undefined): number[] | undefined {
  return value?.split(',').map((n) => {
    if (!/^\d{1,2}$/.test(n.trim())) throw new UsageError('--slots must be slot numbers separated by commas, e.g. 1,3');
    return Number(n);
  });
}

export const parallel: Command = {
  options: OPTIONS,
  booleans: ['full'],
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const slots = slotList(stringFlag(ctx.parsed, 'slots'));
    const wiki = stringFlag(ctx.parsed, 'wiki');
    const text = question(ctx, 'parallel');
    const consilium = ctx.consilium();
    const { code } = await watch(ctx, {
      events: detachedEvents(ctx, (signal) =>
        consilium.debates.parallel(text, {
          ...(slots !== undefined && { slots }),
          ...(wiki !== undefined && { grounding: { source: wiki } }),
          detach: true,
          signal,
        }),
      ),
      cancel: (sessionId) => consilium.sessions.cancel(sessionId),
    });
    return code;
  },
};
