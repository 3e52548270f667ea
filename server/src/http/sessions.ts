/** The session history operations over HTTP: list, get, cancel, delete, replay with live follow, export. */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import type { Accounts } from '../accounts/accounts.js';
import { sseMessage } from '../debate/events.js';
import type { Handlers } from '../generated/routes.js';
import { threadMarkdown } from '../sessions/markdown.js';
import { ALL_OWNERS, BadCursorError, type OwnerScope, type Sessions } from '../sessions/sessions.js';
import { accessEndedEvent, accessEndedMessage, endReason, holdAccess } from './access.js';
import type { AppEnv } from './deps.js';
import { WriteBatcher } from './event-stream.js';
import { problem } from './problem.js';

type SessionOperations =
  | 'listSessions'
  | 'getSession'
  | 'cancelSession'
  | 'deleteSession'
  | 'streamSessionEvents'
  | 'exportSessionMarkdown'
  | 'exportSessionJson'
  | 'getSessionThread'
  | 'updateSession'
  | 'listSessionShares'
  | 'shareSession'
  | 'unshareSession';

export interface SessionHandlerDeps {
  sessions: Sessions;
  /** Whose sessions the caller may read by id: their own, or an admin's any. */
  scopeOf: (c: Context<AppEnv>) => OwnerScope;
  /** Shares name users by username; their ids and names come from here. */
  accounts: Pick<Accounts, 'findUser' | 'getUser'>;
  heartbeatMs: number;
}

const notFound = (c: Context, id: string) => problem(c, 404, 'not_found', { detail: `No session "${id}".` });

/** `Content-Disposition` for a download named after the session. */
const attachment = (id: string, extension: string) => `attachment; filename="${id}.${extension}"`;

export function sessionHandlers(deps: SessionHandlerDeps): Pick<Handlers<AppEnv>, SessionOperations> {
  return { ...historyHandlers(deps), ...readingHandlers(deps), ...sharingHandlers(deps) };
}

/** A read by id: the caller's own (an admin's any), or one shared with them. */
const reader =
  ({ sessions, scopeOf }: SessionHandlerDeps) =>
  (c: Context<AppEnv>, id: string) =>
    sessions.read(id, scopeOf(c), c.get('user').id);

/** The history: list, one session and its thread, archive, cancel, delete. */
function historyHandlers(
  deps: SessionHandlerDeps,
): Pick<
  Handlers<AppEnv>,
  'listSessions' | 'getSession' | 'getSessionThread' | 'updateSession' | 'cancelSession' | 'deleteSession'
> {
  const { sessions, scopeOf } = deps;
  const read = reader(deps);
  return {
    listSessions: async (c) => {
      const { owner, ...query } = c.req.valid('query');
      const user = c.get('user');
      // Everyone's sessions only when an admin asks for them; by default, even an admin sees their own.
      if (owner === 'all' && user.role !== 'admin') {
        return problem(c, 403, 'forbidden', { detail: 'Only admins may list every user’s sessions (`owner=all`).' });
      }
      if (owner === 'all' && query.shared) {
        return problem(c, 400, 'validation_failed', {
          detail: '`shared=true` lists what was shared with you; it cannot be combined with `owner=all`.',
          errors: [{ path: 'query.shared', message: 'not with owner=all' }],
        });
      }
      try {
        return c.json(await sessions.list(owner === 'all' ? ALL_OWNERS : user.id, query), 200);
      } catch (error) {
        if (!(error instanceof BadCursorError)) throw error;
        return problem(c, 400, 'validation_failed', {
          detail: error.message,
          errors: [{ path: 'query.cursor', message: error.message }],
        });
      }
    },

    getSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      const session = await read(c, sessionId);
      return session ? c.json(session, 200) : notFound(c, sessionId);
    },

    getSessionThread: async (c) => {
      const { sessionId } = c.req.valid('param');
      const thread = await sessions.thread(sessionId, scopeOf(c), c.get('user').id);
      return thread ? c.json(thread, 200) : notFound(c, sessionId);
    },

    updateSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      const { archived } = c.req.valid('json');
      const session = await sessions.setArchived(sessionId, scopeOf(c), archived);
      return session ? c.json(session, 200) : notFound(c, sessionId);
    },

    cancelSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      const session = await sessions.cancel(sessionId, scopeOf(c));
      if (session === undefined) return notFound(c, sessionId);
      // The instance running it is out of reach: the cancel is kept with the session and takes effect there.
      if ('requested' in session) return c.json(session.requested, 202);
      return c.json(session, 200);
    },

    deleteSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      return (await sessions.delete(sessionId, scopeOf(c))) ? c.body(null, 204) : notFound(c, sessionId);
    },
  };
}

/** A session read whole: its events replayed and followed live, its exports. */
function readingHandlers(
  deps: SessionHandlerDeps,
): Pick<Handlers<AppEnv>, 'streamSessionEvents' | 'exportSessionMarkdown' | 'exportSessionJson'> {
  const { sessions, scopeOf, heartbeatMs } = deps;
  const read = reader(deps);
  return {
    streamSessionEvents: async (c) => {
      const { sessionId } = c.req.valid('param');
      const lastEventId = c.req.valid('header')['Last-Event-ID'];
      const session = await read(c, sessionId);
      if (!session) return notFound(c, sessionId);
      const scope = scopeOf(c);
      const user = c.get('user');
      // What let the caller in, to end the stream when it ends.
      const through = session.owner === user.id ? 'owner' : scope === ALL_OWNERS ? 'admin' : 'share';
      const access = holdAccess(c, {
        session: { id: session.id, through },
        stillReadable: async () => (await sessions.read(session.id, scope, user.id)) !== undefined,
      });
      return streamSSE(c, async (stream) => {
        const closed = new AbortController();
        stream.onAbort(() => closed.abort());
        const heartbeat = setInterval(() => {
          stream.write(': heartbeat\n\n').catch(() => closed.abort());
        }, heartbeatMs);
        // Deltas gathered into one write a frame, as a debate's own stream sends them: a follower here and one
        // on another instance (whose events arrive a frame at a time) then get the same cadence.
        const batcher = new WriteBatcher((text) => {
          stream.write(text).catch(() => closed.abort());
        });
        stream.onAbort(() => batcher.stop());
        let seq = lastEventId === undefined ? 0 : Number(lastEventId);
        try {
          await sessions.follow(
            session,
            seq,
            async (event: DebateEvent) => {
              seq = event.seq;
              batcher.queue(sseMessage(event), event.type === 'answer.delta' || event.type === 'verdict.delta');
            },
            AbortSignal.any([closed.signal, c.req.raw.signal, access.signal]),
          );
          // The last word when access ended, after every event sent before it.
          if (access.signal.aborted && !closed.signal.aborted) {
            batcher.queue(accessEndedMessage(accessEndedEvent(session.id, seq, endReason(access.signal))));
          }
          batcher.flush();
        } finally {
          clearInterval(heartbeat);
          access.release();
        }
      });
    },

    exportSessionMarkdown: async (c) => {
      const { sessionId } = c.req.valid('param');
      const session = await read(c, sessionId);
      if (!session) return notFound(c, sessionId);
      // A follow-up's export carries the thread up to it, and names what came after (through a share: what is shared).
      const scope = scopeOf(c);
      const viaShare = scope !== ALL_OWNERS && session.owner !== scope ? scope : undefined;
      const { upTo, later } = await sessions.threadAround(session, true, viaShare);
      return c.body(threadMarkdown(upTo, later), 200, {
        'content-type': 'text/markdown; charset=utf-8',
        'content-disposition': attachment(session.id, 'md'),
      });
    },

    exportSessionJson: async (c) => {
      const { sessionId } = c.req.valid('param');
      const session = await read(c, sessionId);
      if (!session) return notFound(c, sessionId);
      c.header('content-disposition', attachment(session.id, 'json'));
      return c.json(session, 200);
    },
  };
}

/** Read-only shares with other users, named by username. */
function sharingHandlers({
  sessions,
  scopeOf,
  accounts,
}: SessionHandlerDeps): Pick<Handlers<AppEnv>, 'listSessionShares' | 'shareSession' | 'unshareSession'> {
  return {
    listSessionShares: async (c) => {
      const { sessionId } = c.req.valid('param');
      const shares = await sessions.shares(sessionId, scopeOf(c));
      if (!shares) return notFound(c, sessionId);
      const users = await Promise.all(shares.map((s) => accounts.getUser(s.userId)));
      return c.json(
        {
          items: shares.flatMap((s, i) =>
            users[i] ? [{ userId: s.userId, username: users[i].username, createdAt: s.createdAt }] : [],
          ),
        },
        200,
      );
    },

    shareSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      const { username } = c.req.valid('json');
      const scope = scopeOf(c);
      // The session first: someone who cannot see it learns nothing of which usernames exist.
      if (!(await sessions.get(sessionId, scope))) return notFound(c, sessionId);
      const user = await accounts.findUser(username);
      if (!user) return problem(c, 404, 'not_found', { detail: `No user "${username}".` });
      if (user.id === c.get('user').id) {
        return problem(c, 400, 'validation_failed', {
          detail: 'A session is yours already: share it with someone else.',
          errors: [{ path: 'body.username', message: 'is you' }],
        });
      }
      const share = await sessions.share(sessionId, scope, user.id);
      return share
        ? c.json({ userId: user.id, username: user.username, createdAt: share.createdAt }, 200)
        : notFound(c, sessionId);
    },

    unshareSession: async (c) => {
      const { sessionId, userId } = c.req.valid('param');
      const scope = scopeOf(c);
      if (!(await sessions.get(sessionId, scope))) return notFound(c, sessionId);
      return (await sessions.unshare(sessionId, scope, userId))
        ? c.body(null, 204)
        : problem(c, 404, 'not_found', { detail: `Session "${sessionId}" is not shared with ${userId}.` });
    },
  };
}
