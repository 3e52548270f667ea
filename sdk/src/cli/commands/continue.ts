/**
 * `consilium continue`: an `interrupted` session (the server stopped mid-run) continued to its end, shown as
 * `debate` shows a run: what it said before the interruption, then the rest live. Ctrl-C cancels it on the server.
 */

import { UsageError } from '../../terminal/usage.js';
import { onlyFlags } from '../args.js';
import { type Command, GLOBAL } from '../context.js';
import { detachedEvents, watch } from '../watch.js';

const OPTIONS = ['full'];

export const continueRun: Command = {
  options: OPTIONS,
  booleans: ['full'],
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const [id, ...extra] = ctx.parsed.positionals;
    if (!id) throw new UsageError('continue needs a session id, e.g. consilium continue ses_…');
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    const consilium = ctx.consilium();
    const { code } = await watch(ctx, {
      // The same session goes on: following it from the start reads the whole debate, kept answers and new ones.
      events: detachedEvents(ctx, async (signal) => {
        await consilium.sessions.continue(id, { detach: true, signal });
        return { sessionId: id };
      }),
      cancel: (sessionId) => consilium.sessions.cancel(sessionId),
    });
    return code;
  },
};
