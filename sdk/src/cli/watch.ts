/**
 * A run shown as it happens, the same way for every command that starts one (`debate`, `follow-up`, `parallel`,
 * `continue`): the live view (or `--full` answers, or JSON lines) fed by the run's events, Ctrl-C or stdout
 * closing cancels it on the server, and the exit code says how it ended.
 */
import { ConsiliumError } from '../errors.js';
import type { DebateEvent } from '../generated/types.gen.js';
import { canRedraw, jsonLine, terminalColumns } from '../terminal/terminal.js';
import { type Context, EXIT } from './context.js';
import { DebateView } from './debate-view.js';

export interface WatchOptions {
  /** The run's events; aborting `signal` must end them (and, for a stream that is the run, cancel it). */
  events(signal: AbortSignal): AsyncIterable<DebateEvent>;
  /** For a detached run: stops it on the server once the watcher is interrupted. */
  cancel?(sessionId: string): Promise<unknown>;
  /** What is cancelled, for the message on Ctrl-C (`the follow-up of ses_…`); the session by default. */
  what?: string;
  /** `--json` prints nothing per event (the command prints its own result at the end). */
  quietJson?: boolean;
}

export interface Watched {
  code: number;
  last: DebateEvent | undefined;
}

export async function watch(ctx: Context, options: WatchOptions): Promise<Watched> {
  const controller = new AbortController();
  const release = ctx.io.onInterrupt(() => controller.abort());
  // Output gone (`| head`): stop the run on the server too, as Ctrl-C does.
  const stop = () => controller.abort();
  ctx.closed.addEventListener('abort', stop);
  const live = canRedraw(ctx.io.stdout.isTTY, ctx.io.env) && !ctx.json;
  const view = new DebateView({
    write: ctx.out,
    paint: ctx.paint,
    live,
    columns: terminalColumns(ctx.io.stdout.columns),
    full: ctx.parsed.flags.has('full'),
  });
  let last: DebateEvent | undefined;
  // The session may be known before any of its events arrived (a detached run's id): cancel it all the same.
  const stopOnServer = async () => {
    const id = last?.sessionId ?? ctx.session;
    if (id && options.cancel) await options.cancel(id).catch(() => undefined);
  };
  try {
    for await (const event of options.events(controller.signal)) {
      last = event;
      ctx.session = event.sessionId;
      if (ctx.json) {
        if (!options.quietJson) ctx.out(jsonLine(event));
      } else view.event(event);
    }
  } catch (error) {
    view.close();
    if (ctx.closed.aborted) {
      await stopOnServer();
      return { code: EXIT.closed, last };
    }
    if (error instanceof ConsiliumError && error.code === 'aborted') {
      await stopOnServer();
      const id = last?.sessionId ?? ctx.session;
      const what = options.what
        ? `${options.what} stops on the server${id ? ` [session ${id}]` : ''}`
        : id
          ? `session ${id} stops on the server`
          : undefined;
      ctx.io.stderr.write(`consilium: cancelled${what ? `; ${what}` : ''}\n`);
      return { code: EXIT.interrupted, last };
    }
    throw error;
  } finally {
    release();
    ctx.closed.removeEventListener('abort', stop);
  }
  if (last?.type !== 'session.ended') {
    const session = last ? ` [session ${last.sessionId}; see consilium sessions show ${last.sessionId}]` : '';
    ctx.io.stderr.write(`consilium: the stream ended before the session did${session}\n`);
    return { code: EXIT.network, last };
  }
  return { code: last.status === 'failed' ? EXIT.server : EXIT.ok, last };
}

/**
 * A detached run's events: `start` (with `detach: true`) returns the new session's id at once, then its events are
 * followed (resumed by `Last-Event-ID` after a dropped connection) until it ends. With `cancel`, `watch` stops it on
 * the server when interrupted: the run outlives its request, so closing the stream alone would not.
 */
export function detachedEvents(
  ctx: Context,
  start: (signal: AbortSignal) => Promise<{ sessionId: string }>,
): (signal: AbortSignal) => AsyncIterable<DebateEvent> {
  return async function* (signal) {
    const { sessionId } = await start(signal);
    ctx.session = sessionId;
    yield* ctx.consilium().sessions.follow(sessionId, { signal });
  };
}
