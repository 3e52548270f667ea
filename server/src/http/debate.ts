/**
 * The debate operations over HTTP: each request becomes a run (`runs/`), its refusal a problem. A client that
 * goes away cancels its run, unless the run was started with `detach`: then the JSON operations answer
 * `202 Accepted` with the session's id as soon as the session is stored, and the event stream is how the
 * client watches.
 */
import type { Context } from 'hono';
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import { sseMessage } from '../debate/events.js';
import type { Handlers } from '../generated/routes.js';
import { type RefusalCode, RunRefused } from '../runs/refused.js';
import type { Caller, Runs } from '../runs/runs.js';
import type { StartedRun } from '../runs/start.js';
import type { AppEnv } from './deps.js';
import { eventStream, WriteBatcher } from './event-stream.js';
import { scopeOf } from './owner.js';
import { problem } from './problem.js';

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

const REFUSAL_STATUS = {
  validation_failed: 400,
  unknown_wiki_source: 400,
  unknown_provider: 404,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
} as const satisfies Record<RefusalCode, number>;

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
  const caller = (c: Context, detach: boolean | undefined): Caller => ({
    owner: ownerOf(c),
    client: [c.req.raw.signal],
    detach: detach === true,
  });
  /**
   * The response for a JSON operation's run: detached, `202` once its session is stored (a detached run holds a
   * running slot until it settles, see debate-limits); attached, `respond` with the stored session.
   */
  const reply = async (
    c: Context,
    detach: boolean | undefined,
    start: () => StartedRun | Promise<StartedRun>,
    respond: (session: Session) => Response | Promise<Response>,
  ): Promise<Response> =>
    refusedAsProblem(c, async () => {
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

  return {
    askProvider: (c) => {
      const { provider } = c.req.valid('param');
      const body = c.req.valid('json');
      return reply(
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
      return reply(
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
      return reply(
        c,
        body.detach,
        () => runs.deep(body, caller(c, body.detach)),
        (session) => c.json(session, 200),
      );
    },

    streamDeepDebate: (c) => {
      const body = c.req.valid('json');
      const detach = body.detach === true;
      const cancel = new AbortController();
      // The run's first events come before the stream below exists: they wait for it.
      const early: DebateEvent[] = [];
      let stream = (event: DebateEvent): void => void early.push(event);
      let run: StartedRun;
      try {
        run = runs.deep(body, { ...caller(c, detach), client: [c.req.raw.signal, cancel.signal], onEvent: (e) => stream(e) });
      } catch (error) {
        return refusal(c, error);
      }
      // The run outlives a detached stream: whoever counts running debates waits for it, not the response.
      if (detach)
        c.set(
          'detachedRun',
          run.done.catch(() => undefined),
        );
      return eventStream(c, async (out) => {
        // Once the client is gone nothing more is written to it; detached, the run goes on regardless.
        let gone = false;
        out.onAbort(() => {
          gone = true;
          cancel.abort();
        });
        // Events go out as they happen, gathered into few writes (see WriteBatcher): each write
        // reaches the socket, which costs more than the event itself.
        const batcher = new WriteBatcher((text) => {
          if (!gone) out.write(text);
        });
        out.onAbort(() => batcher.stop());
        // What the client sees is what is stored: nothing but deltas before it is committed.
        stream = (event) => {
          batcher.queue(sseMessage(event), event.type === 'answer.delta' || event.type === 'verdict.delta');
        };
        for (const event of early.splice(0)) stream(event);
        const heartbeat = setInterval(() => batcher.queue(': heartbeat\n\n'), heartbeatMs);
        try {
          // A store that gave up has told the client already: its run ended `failed` on the stream.
          await run.done.catch(() => undefined);
          batcher.flush();
        } finally {
          clearInterval(heartbeat);
        }
      });
    },

    synthesizeVerdict: (c) => {
      const body = c.req.valid('json');
      return reply(
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
      return reply(
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
      return reply(
        c,
        body.detach,
        () => runs.continue(sessionId, caller(c, body.detach)),
        (session) => c.json(session, 200),
      );
    },
  };
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
function refusal(c: Context, error: unknown): Response {
  if (!(error instanceof RunRefused)) throw error;
  return problem(c, REFUSAL_STATUS[error.code], error.code, {
    detail: error.message,
    ...(error.errors && { errors: [...error.errors] }),
  });
}
