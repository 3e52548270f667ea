/**
 * The debate operations over HTTP: each request becomes a run (`runs/`), its refusal a problem. A client that
 * goes away cancels its run, unless the run was started with `detach`: then the JSON operations answer
 * `202 Accepted` with the session's id as soon as the session is stored, and the event stream is how the
 * client watches.
 */
import type { Context } from 'hono';
import type { Handlers } from '../generated/routes.js';
import type { Runs } from '../runs/runs.js';
import { streamDeepDebate } from './debate-stream.js';
import type { AppEnv } from './deps.js';
import { scopeOf } from './owner.js';
import { problem } from './problem.js';
import { callerOf, replyTo } from './run-replies.js';

/** How often an idle event stream gets a comment line, so proxies keep it open. */
const HEARTBEAT_MS = 15_000;

type DebateOperations =
  | 'askProvider'
  | 'runParallel'
  | 'runDeepDebate'
  | 'streamDeepDebate'
  | 'synthesizeVerdict'
  | 'askFollowUp'
  | 'continueSession';

export interface DebateHandlersOptions {
  runs: Runs;
  /** Who is asking: the owner of what they start. */
  ownerOf: (c: Context) => string;
  heartbeatMs?: number;
}

export function debateHandlers({
  runs,
  ownerOf,
  heartbeatMs = HEARTBEAT_MS,
}: DebateHandlersOptions): Pick<Handlers<AppEnv>, DebateOperations> {
  const caller = callerOf(ownerOf);
  return {
    askProvider: (c) => {
      const { provider } = c.req.valid('param');
      const body = c.req.valid('json');
      return replyTo(
        c,
        body.detach,
        () => runs.ask(provider, body, caller(c, body.detach)),
        (session) => {
          const answer = session.rounds[0]?.answers[0];
          if (!answer || answer.error) {
            const why = answer?.error ? `${answer.error.code}: ${answer.error.message}` : 'no answer';
            const slot = runs.engine.slotByProvider(provider)!.config.slot;
            return problem(c, 502, 'provider_failed', {
              detail: `Slot ${slot} (${provider}) failed (${why}). Session ${session.id}.`,
            });
          }
          return c.json({ sessionId: session.id, answer, ...(session.grounding && { grounding: session.grounding }) }, 200);
        },
      );
    },

    runParallel: (c) => {
      const body = c.req.valid('json');
      return replyTo(
        c,
        body.detach,
        () => runs.parallel(body, caller(c, body.detach)),
        (session) =>
          c.json(
            {
              sessionId: session.id,
              status: session.status,
              answers: session.rounds[0]?.answers ?? [],
              missingSlots: session.missingSlots,
              usage: session.usage,
              cost: session.cost,
              ...(session.grounding && { grounding: session.grounding }),
            },
            200,
          ),
      );
    },

    runDeepDebate: (c) => {
      const body = c.req.valid('json');
      return replyTo(
        c,
        body.detach,
        () => runs.deep(body, caller(c, body.detach)),
        (session) => c.json(session, 200),
      );
    },

    streamDeepDebate: streamDeepDebate({ runs, caller, heartbeatMs }),

    synthesizeVerdict: (c) => {
      const body = c.req.valid('json');
      return replyTo(
        c,
        false,
        () => runs.synthesize(body, { ...caller(c, false), scope: scopeOf(c) }),
        (session) => {
          if (!session.verdict) {
            return problem(c, 502, 'provider_failed', { detail: `No slot could write the verdict. Session ${session.id}.` });
          }
          return c.json({ sessionId: session.id, verdict: session.verdict, usage: session.usage, cost: session.cost }, 200);
        },
      );
    },

    askFollowUp: (c) => {
      const { sessionId } = c.req.valid('param');
      const body = c.req.valid('json');
      return replyTo(
        c,
        body.detach,
        () => runs.followUp(sessionId, body, { ...caller(c, body.detach), scope: scopeOf(c) }),
        (session) => c.json(session, 200),
      );
    },

    continueSession: (c) => {
      const { sessionId } = c.req.valid('param');
      // The body is optional: no body is `{}`.
      const body = (c.req.valid('json') as { detach?: boolean } | undefined) ?? {};
      return replyTo(
        c,
        body.detach,
        () => runs.continue(sessionId, caller(c, body.detach)),
        (session) => c.json(session, 200),
      );
    },
  };
}
