/**
 * `consilium debate`: a deep debate streamed live (or as JSON lines), then the verdict. Ctrl-C, or stdout
 * closing, cancels it on the server.
 */
import { ConsiliumError } from '../../facade/errors.js';
import type { DebateEvent } from '../../generated/types.gen.js';
import { canRedraw, jsonLine, terminalColumns } from '../../terminal/terminal.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { DebateView } from '../debate-view.js';
import { question } from '../question.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['rounds', 'quorum', 'wiki'];

export const debate: Command = {
  options: OPTIONS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
    const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
    const wiki = stringFlag(ctx.parsed, 'wiki');
    const text = question(ctx);
    const controller = new AbortController();
    const release = ctx.io.onInterrupt(() => controller.abort());
    // Output gone (`| head`): stop the debate on the server too, as Ctrl-C does.
    const stop = () => controller.abort();
    ctx.closed.addEventListener('abort', stop);
    const live = canRedraw(ctx.io.stdout.isTTY, ctx.io.env) && !ctx.json;
    const view = new DebateView({ write: ctx.out, paint: ctx.paint, live, columns: terminalColumns(ctx.io.stdout.columns) });
    let last: DebateEvent | undefined;
    try {
      const events = ctx.consilium().debates.stream(text, {
        ...(rounds !== undefined && { rounds }),
        ...(quorum !== undefined && { quorum }),
        ...(wiki !== undefined && { grounding: { source: wiki } }),
        signal: controller.signal,
      });
      for await (const event of events) {
        last = event;
        ctx.session = event.sessionId;
        if (ctx.json) ctx.out(jsonLine(event));
        else view.event(event);
      }
    } catch (error) {
      view.close();
      if (ctx.closed.aborted) return EXIT.closed;
      if (error instanceof ConsiliumError && error.code === 'aborted') {
        ctx.io.stderr.write(`consilium: cancelled${last ? `; session ${last.sessionId} stops on the server` : ''}\n`);
        return EXIT.interrupted;
      }
      throw error;
    } finally {
      release();
      ctx.closed.removeEventListener('abort', stop);
    }
    if (last?.type !== 'session.ended') {
      const session = last ? ` [session ${last.sessionId}; see consilium sessions show ${last.sessionId}]` : '';
      ctx.io.stderr.write(`consilium: the stream ended before the session did${session}\n`);
      return EXIT.network;
    }
    return last.status === 'failed' ? EXIT.server : EXIT.ok;
  },
};
