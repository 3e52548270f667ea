/**
 * `consilium sessions`: list (and search), show, export, cancel, continue, re-run, archive, share and delete stored
 * sessions.
 */
import { ConsiliumError } from '../../errors.js';
import type { Session } from '../../generated/types.gen.js';
import { escapeJson, inert, jsonLine, oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { renderSession, sessionTable } from '../session-view.js';

export const sessions: Command = {
  options: ['q', 'text', 'limit', 'format', 'question', 'tag'],
  booleans: ['archived', 'shared'],
  async run(ctx) {
    const [sub = 'list', id, username, ...extra] = ctx.parsed.positionals;
    const takesUser = sub === 'share' || sub === 'unshare';
    if (extra.length > 0 || (username !== undefined && !takesUser)) {
      throw new UsageError(`unexpected argument: ${(takesUser ? extra[0] : username) ?? extra[0]}`);
    }
    const needUser = () => {
      if (!username) throw new UsageError(`sessions ${sub} needs a session id and a username`);
      return username;
    };
    const c = () => ctx.consilium();
    const needId = () => {
      if (!id) throw new UsageError(`sessions ${sub} needs a session id`);
      return id;
    };
    switch (sub) {
      case 'list': {
        onlyFlags(ctx.parsed, [...GLOBAL, 'q', 'text', 'limit', 'archived', 'shared', 'tag']);
        if (id) throw new UsageError(`unexpected argument: ${id}`);
        const limit = intFlag(ctx.parsed, 'limit', 1, 10_000) ?? 20;
        const q = stringFlag(ctx.parsed, 'q');
        const text = stringFlag(ctx.parsed, 'text');
        const tag = stringFlag(ctx.parsed, 'tag');
        const filters = {
          ...(tag !== undefined && { tag }),
          ...(q !== undefined && { q }),
          ...(text !== undefined && { text }),
          ...(ctx.parsed.flags.has('archived') && { archived: true }),
          ...(ctx.parsed.flags.has('shared') && { shared: true }),
        };
        const rows = [];
        for await (const s of c().sessions.list({ ...filters, limit: Math.min(limit, 100) })) {
          rows.push(s);
          if (rows.length >= limit) break;
        }
        if (ctx.json) ctx.out(jsonLine(rows));
        else if (rows.length === 0) ctx.out('No sessions.\n');
        else ctx.out(sessionTable(rows, ctx.paint));
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
      case 'rerun': {
        onlyFlags(ctx.parsed, [...GLOBAL, 'question']);
        const question = stringFlag(ctx.parsed, 'question');
        const { sessionId } = await c().sessions.rerun(needId(), { ...(question !== undefined && { question }) });
        ctx.out(
          ctx.json
            ? jsonLine({ sessionId })
            : `Started ${oneLine(sessionId)} (consilium sessions show ${oneLine(sessionId)} once it ends)\n`,
        );
        return EXIT.ok;
      }
      case 'archive':
      case 'unarchive': {
        onlyFlags(ctx.parsed, GLOBAL);
        const session = await c().sessions.archive(needId(), sub === 'archive');
        ctx.out(ctx.json ? jsonLine(session) : `${sub === 'archive' ? 'Archived' : 'Unarchived'} ${oneLine(session.id)}\n`);
        return EXIT.ok;
      }
      case 'shares': {
        onlyFlags(ctx.parsed, GLOBAL);
        const shares = await c().sessions.shares(needId());
        if (ctx.json) ctx.out(jsonLine(shares));
        else if (shares.length === 0) ctx.out('Not shared.\n');
        else for (const s of shares) ctx.out(`${oneLine(s.username)}  since ${s.createdAt}\n`);
        return EXIT.ok;
      }
      case 'share': {
        onlyFlags(ctx.parsed, GLOBAL);
        const share = await c().sessions.share(needId(), needUser());
        ctx.out(ctx.json ? jsonLine(share) : `Shared ${oneLine(id!)} with ${oneLine(share.username)} (read-only)\n`);
        return EXIT.ok;
      }
      case 'unshare': {
        onlyFlags(ctx.parsed, GLOBAL);
        const name = needUser();
        const share = (await c().sessions.shares(needId())).find((s) => s.username === name);
        if (!share) {
          throw new ConsiliumError(`${oneLine(id!)} is not shared with ${oneLine(name)}`, { code: 'not_found', status: 404 });
        }
        await c().sessions.unshare(id!, share.userId);
        ctx.out(ctx.json ? jsonLine({ unshared: name }) : `Stopped sharing ${oneLine(id!)} with ${oneLine(name)}\n`);
        return EXIT.ok;
      }
      case 'delete': {
        onlyFlags(ctx.parsed, GLOBAL);
        await c().sessions.delete(needId());
        ctx.out(ctx.json ? jsonLine({ deleted: id }) : `Deleted ${oneLine(id!)}\n`);
        return EXIT.ok;
      }
      default:
        throw new UsageError(
          `unknown sessions command: ${sub} (list, show, export, cancel, continue, rerun, archive, unarchive, shares, share, unshare, delete)`,
        );
    }
  },
};
