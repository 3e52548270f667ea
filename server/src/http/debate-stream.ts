/**
 * `POST /consilium/deep/stream`: a deep debate as server-sent events, each event as the run shows it (what is
 * stored, deltas ahead). A client that goes away cancels the run unless it was started with `detach`.
 */
import type { Context } from 'hono';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { sseMessage } from '../debate/events.js';
import type { Handlers } from '../generated/routes.js';
import type { Caller, Runs } from '../runs/runs.js';
import type { StartedRun } from '../runs/start.js';
import { closeOnAccessEnd } from './access.js';
import type { AppEnv } from './deps.js';
import { eventStream, WriteBatcher } from './event-stream.js';
import { refusal } from './run-replies.js';

export function streamDeepDebate({
  runs,
  caller,
  heartbeatMs,
}: {
  runs: Runs;
  caller: (c: Context, detach: boolean | undefined) => Caller;
  heartbeatMs: number;
}): Handlers<AppEnv>['streamDeepDebate'] {
  return (c) => {
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
      // Ends the stream (and, attached, the run with it) when the credential it was opened with ends.
      const access = closeOnAccessEnd(c, out);
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
        access.sent(event);
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
        access.release();
      }
    });
  };
}
