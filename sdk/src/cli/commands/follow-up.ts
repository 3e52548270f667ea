/**
 * `consilium follow-up`: asks again in a finished session's thread and shows the new run live, as `debate` does
 * (`--json`: the new session once it ends). Options the chosen mode would not use are usage errors, not dropped.
 */
import { jsonLine, oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, GLOBAL } from '../context.js';
import { PANEL_BOOLEANS, PANEL_OPTIONS, panelFlags } from '../panel-flags.js';
import { slotProvider } from '../question.js';
import { detachedEvents, watch } from '../watch.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['mode', 'slot', 'provider', 'rounds', 'quorum', ...PANEL_OPTIONS];
const BOOLEANS = ['full', ...PANEL_BOOLEANS];

export const followUp: Command = {
  options: OPTIONS,
  booleans: BOOLEANS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS, ...BOOLEANS]);
    const [id, text, ...extra] = ctx.parsed.positionals;
    if (!id) throw new UsageError('follow-up needs a session id, e.g. consilium follow-up ses_… "And then?"');
    if (text === undefined || text.trim() === '')
      throw new UsageError('missing the question, e.g. consilium follow-up ses_… "And then?"');
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]} (quote the question)`);
    const mode = stringFlag(ctx.parsed, 'mode');
    if (mode !== undefined && mode !== 'single' && mode !== 'parallel' && mode !== 'deep') {
      throw new UsageError('--mode must be single, parallel or deep');
    }
    const slot = intFlag(ctx.parsed, 'slot', 1, 99);
    const provider = stringFlag(ctx.parsed, 'provider');
    if (slot !== undefined && provider !== undefined) throw new UsageError('give --slot or --provider, not both');
    const panel = panelFlags(ctx.parsed);
    const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
    const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
    // Options the chosen mode would not use are mistakes, not silently dropped.
    const unused: Record<string, readonly string[]> = {
      single: ['slots', 'rounds', 'quorum', 'synthesizer', 'models', ...PANEL_BOOLEANS],
      parallel: ['slot', 'provider', 'rounds', 'quorum', 'synthesizer', 'models', ...PANEL_BOOLEANS],
      deep: ['slot', 'provider'],
    };
    for (const flag of mode === undefined ? [] : unused[mode]!) {
      if (ctx.parsed.flags.has(flag)) throw new UsageError(`--${flag} does not apply to --mode ${mode}`);
    }
    const consilium = ctx.consilium();
    const chosen = slot === undefined ? provider : await slotProvider(consilium, slot);
    const { code, last } = await watch(ctx, {
      events: detachedEvents(ctx, (signal) =>
        consilium.sessions.followUp(id, text, {
          ...(mode !== undefined && { mode }),
          ...(chosen !== undefined && { provider: chosen }),
          ...panel,
          ...(rounds !== undefined && { rounds }),
          ...(quorum !== undefined && { quorum }),
          detach: true,
          signal,
        }),
      ),
      cancel: (sessionId) => consilium.sessions.cancel(sessionId),
      what: `the follow-up of ${oneLine(id)}`,
      quietJson: true,
    });
    if (last?.type !== 'session.ended') return code;
    const session = await consilium.sessions.get(last.sessionId);
    if (ctx.json) ctx.out(jsonLine(session));
    else {
      const thread = session.threadId ? ` · thread ${session.threadId}` : '';
      ctx.out(`${ctx.paint('dim', `follow-up of ${session.parentId ?? id}${thread}`)}\n`);
    }
    return code;
  },
};
