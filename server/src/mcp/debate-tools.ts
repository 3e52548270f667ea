/** The tools that run models: `consult` (a deep debate), `ask` (one model), `parallel`, `synthesize`, `continue_session`. */

import type { Register } from './context.js';
import { askInput, consultInput, continueSessionInput, parallelInput, synthesizeInput } from './inputs.js';
import { outcomeOutput } from './outcome.js';
import { toolError } from './results.js';
import { runTool } from './run-tool.js';

export const registerDebateTools: Register = (server, ctx) => {
  const { runs } = ctx;
  const outputSchema = outcomeOutput;

  server.registerTool(
    'consult',
    {
      title: 'Consult the council',
      description:
        'Debate a question among several models in rounds (3 by default), then return one verdict with actions (P0 now, P1 next, P2 later), the dissent, the cost and a link to the session. Slow: minutes with live models; reports progress per round. `grounding.source` grounds it in a configured wiki (see the consilium://sources resource).',
      inputSchema: consultInput,
      outputSchema,
    },
    (args, extra) => runTool(ctx, extra, (caller) => runs.deep(args, caller)),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask one model',
      description:
        'One model’s answer to a question (the panel’s first slot unless `slot` or `provider` names another). No debate, no verdict.',
      inputSchema: askInput,
      outputSchema,
    },
    (args, extra) => {
      const { slot, provider, ...request } = args;
      if (slot !== undefined && provider !== undefined) {
        return toolError('validation_failed', 'Give `slot` or `provider`, not both.', [
          { field: 'provider', message: 'not with slot' },
        ]);
      }
      const panel = runs.engine.settings.panel;
      const chosen = provider ?? (slot !== undefined ? panel.find((s) => s.config.slot === slot) : panel[0])?.config.provider;
      if (chosen === undefined) {
        return toolError('unknown_provider', `No slot ${slot} is configured.`, [{ field: 'slot', message: 'not configured' }]);
      }
      return runTool(ctx, extra, (caller) => runs.ask(chosen, request, caller));
    },
  );

  server.registerTool(
    'parallel',
    {
      title: 'Ask several models at once',
      description: 'Every slot (or those in `slots`) answers the question once, side by side: no debate, no verdict.',
      inputSchema: parallelInput,
      outputSchema,
    },
    (args, extra) => runTool(ctx, extra, (caller) => runs.parallel(args, caller)),
  );

  server.registerTool(
    'synthesize',
    {
      title: 'Write a verdict from answers',
      description:
        'A verdict with actions and dissent, written from a stored session’s answers (`sessionId`) or from answers you give (`question` with `answers`: [{slot, text}]).',
      inputSchema: synthesizeInput,
      outputSchema,
    },
    (args, extra) => runTool(ctx, extra, (caller) => runs.synthesize(args, { ...caller, scope: ctx.caller.scope })),
  );

  server.registerTool(
    'continue_session',
    {
      title: 'Continue a session',
      description:
        'With `question`: a follow-up in a finished session’s thread (the models see the thread so far; its mode and panel by default). Without: an interrupted session (the server stopped mid-run) run on to its end.',
      inputSchema: continueSessionInput,
      outputSchema,
    },
    (args, extra) => {
      const { sessionId, question, ...rest } = args;
      if (question === undefined) {
        const extraFields = Object.keys(rest);
        if (extraFields.length > 0) {
          return toolError(
            'validation_failed',
            'Continuing an interrupted session takes only `sessionId`; the other fields are for a follow-up (give `question`).',
            extraFields.map((field) => ({ field, message: 'needs question' })),
          );
        }
        return runTool(ctx, extra, (caller) => runs.continue(sessionId, caller));
      }
      return runTool(ctx, extra, (caller) =>
        runs.followUp(sessionId, { question, ...rest }, { ...caller, scope: ctx.caller.scope }),
      );
    },
  );
};
