/** `consilium sessions`: list, show, export, cancel, continue and delete stored sessions. */
import { ConsiliumError } from '../../facade/errors.js';
import type { Session } from '../../generated/types.gen.js';
import { escapeJson, inert, jsonLine, oneLine } from '../../terminal/terminal.js';
import { intFlag, onlyFlags, stringFlag, UsageError } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { renderSession, statusPaint } from '../session-view.js';

export const sessions: Command = {
  options: ['q', 'limit', 'format'],
  async run(ctx) {
    const [sub = 'list', id, ...extra] = ctx.parsed.positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    const c = () => ctx.consilium();
    const needId = () => {
      if (!id) throw new UsageError(`sessions ${sub} needs a session id`);
      return id;
    };
    switch (sub) {
      case 'list': {
        onlyFlags(ctx.parsed, [...GLOBAL, 'q', 'limit']);
        if (id) throw new UsageError(`unexpected argument: ${id}`);
        const limit = intFlag(ctx.parsed, 'limit', 1, 10_000) ?? 20;
        const q = stringFlag(ctx.parsed, 'q');
        const rows = [];
        for await (const s of c().sessions.list({ ...(q !== undefined && { q }), limit: Math.min(limit, 100) })) {
          rows.push(s);
          if (rows.length >= limit) break;
        }
        if (ctx.json) ctx.out(jsonLine(rows));
        else if (rows.length === 0) ctx.out('No sessions.\n');
        else
          for (const s of rows) {
            ctx.out(
              `${s.id}  ${statusPaint(ctx.paint, s.status)}  ${s.mode.padEnd(9)} ${s.createdAt}  ${oneLine(s.question).slice(0, 60)}\n`,
            );
          }
        return EXIT.ok;
      }
      case 'show': {
        onlyFlags(ctx.parsed, GLOBAL);
        const session = await c().sessions.get(needId());
        if (ctx.json) ctx.out(jsonLine(session));
        else ctx.out(renderSession(session, ctx.paint));
        return EXIT.ok;
      }
      case 'export': {
        onlyFlags(ctx.parsed, [...GLOBAL, 'format']);
        const format = stringFlag(ctx.parsed, 'format') ?? 'md';
        if (format !== 'md' && format !== 'json') throw new UsageError('--format must be md or json');
        const text = await c().sessions.export(needId(), format);
        // JSON keeps its data, with what a terminal would act on escaped (valid JSON either way). Markdown
        // goes to a file or a pager as it is; a terminal gets it inert.
        ctx.out(format === 'json' ? escapeJson(text) : ctx.io.stdout.isTTY ? inert(text) : text);
        return EXIT.ok;
      }
      case 'cancel': {
        onlyFlags(ctx.parsed, GLOBAL);
        const session = await c().sessions.cancel(needId());
        if (ctx.json) ctx.out(jsonLine(session));
        else
          ctx.out(
            `${oneLine(session.id)} ${session.status === 'cancelled' ? 'cancelled' : `had already ended: ${session.status}`}\n`,
          );
        return EXIT.ok;
      }
      case 'continue': {
        onlyFlags(ctx.parsed, GLOBAL);
        const sessionId = needId();
        const controller = new AbortController();
        const release = ctx.io.onInterrupt(() => controller.abort());
        let session: Session;
        try {
          session = await c().sessions.continue(sessionId, { signal: controller.signal });
        } catch (error) {
          if (error instanceof ConsiliumError && error.code === 'aborted') {
            ctx.io.stderr.write(`consilium: cancelled; ${oneLine(sessionId)} stops on the server\n`);
            return EXIT.interrupted;
          }
          throw error;
        } finally {
          release();
        }
        if (ctx.json) ctx.out(jsonLine(session));
        else ctx.out(renderSession(session, ctx.paint));
        return session.status === 'failed' ? EXIT.server : EXIT.ok;
      }
      case 'delete': {
        onlyFlags(ctx.parsed, GLOBAL);
        await c().sessions.delete(needId());
        ctx.out(ctx.json ? jsonLine({ deleted: id }) : `Deleted ${oneLine(id!)}\n`);
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown sessions command: ${sub} (list, show, export, cancel, continue, delete)`);
    }
  },
};
