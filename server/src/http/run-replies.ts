/** How a started run answers a JSON operation, and how a refused one does: shared by the debate operations. */
import type { Context } from 'hono';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { type RefusalCode, RunRefused } from '../runs/refused.js';
import type { Caller } from '../runs/runs.js';
import type { StartedRun } from '../runs/start.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

/** The HTTP status of each refusal, on every surface (the OpenAI one words it its own way). */
export const REFUSAL_STATUS = {
  validation_failed: 400,
  unknown_wiki_source: 400,
  unknown_provider: 404,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
} as const satisfies Record<RefusalCode, number>;

/** Who starts a run from request `c`: its user, and its connection, which ends the run unless detached. */
export const callerOf =
  (ownerOf: (c: Context) => string) =>
  (c: Context, detach: boolean | undefined): Caller => ({
    owner: ownerOf(c),
    client: [c.req.raw.signal],
    detach: detach === true,
  });

/**
 * The response for a JSON operation's run: detached, `202` once its session is stored (a detached run holds a
 * running slot until it settles, see debate-limits); attached, `respond` with the stored session.
 */
export async function replyTo(
  c: Context<AppEnv>,
  detach: boolean | undefined,
  start: () => StartedRun | Promise<StartedRun>,
  respond: (session: Session) => Response | Promise<Response>,
): Promise<Response> {
  return refusedAsProblem(c, async () => {
    const run = await start();
    if (!detach) return respond(await run.done);
    c.set(
      'detachedRun',
      run.done.catch(() => undefined),
    );
    const sessionId = await run.accepted;
    c.header('Location', `/sessions/${sessionId}`);
    return c.json({ sessionId, status: 'running' as const }, 202);
  });
}

/** `respond()`, or the problem for the run it refused to start. */
async function refusedAsProblem(c: Context, respond: () => Promise<Response>): Promise<Response> {
  try {
    return await respond();
  } catch (error) {
    return refusal(c, error);
  }
}

/** The problem for a `RunRefused`; anything else is rethrown for the app's error handler. */
export function refusal(c: Context, error: unknown): Response {
  if (!(error instanceof RunRefused)) throw error;
  return problem(c, REFUSAL_STATUS[error.code], error.code, {
    detail: error.message,
    ...(error.errors && { errors: [...error.errors] }),
  });
}
