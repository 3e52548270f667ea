/**
 * A tool call that starts a run: attached to its request (the client's cancellation cancels the run), its rounds
 * reported as progress when the client asked for progress, its refusal a tool error.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import type { Caller } from '../runs/runs.js';
import type { StartedRun } from '../runs/start.js';
import type { ToolContext, ToolExtra } from './context.js';
import { outcomeOf, outcomeText } from './outcome.js';
import { DebateProgress } from './progress.js';
import { limitedAsToolError, refusedAsToolError, structured } from './results.js';

export async function runTool(
  ctx: ToolContext,
  extra: ToolExtra,
  start: (caller: Caller) => StartedRun | Promise<StartedRun>,
  respond: (session: Session) => CallToolResult = (session) => outcomeResult(ctx, session),
): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  const progress = new DebateProgress();
  const onEvent =
    token === undefined
      ? undefined
      : (event: Parameters<DebateProgress['next']>[0]) => {
          const step = progress.next(event);
          if (!step) return;
          // A client gone away is no reason to fail the run: its cancellation (or the run's end) settles it.
          extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...step } }).catch(() => {});
        };
  const entry = await ctx.admit?.(ctx.caller.owner);
  if (entry && 'refused' in entry) return limitedAsToolError(entry.refused);
  try {
    const run = await start({ owner: ctx.caller.owner, client: [extra.signal], detach: false, ...(onEvent && { onEvent }) });
    return respond(await run.done);
  } catch (error) {
    return refusedAsToolError(error);
  } finally {
    entry?.release();
  }
}

/** A stored session as the run tools return it. */
export function outcomeResult(ctx: ToolContext, session: Session): CallToolResult {
  const outcome = outcomeOf(session, ctx.link(session.id));
  return structured(outcome, outcomeText(outcome));
}
