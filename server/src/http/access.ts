/**
 * Event streams that end when the access they were opened with ends (see `access/access.ts`): each stream holds on
 * to its credential (and the session it reads, and how) while it is open; once that ends it gets one last event,
 * `access.ended` with the reason, and is closed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';
import { AccessEnded, type AccessEndReason, type AccessHold, type AccessWatch, type Reliance } from '../access/access.js';
import type { AppEnv } from './deps.js';
import type { EventStream } from './event-stream.js';

type AccessEndedEvent = Extract<DebateEvent, { type: 'access.ended' }>;

/** Gives each request the watch, and the time before its credentials are checked (so must run before `authenticate`). */
export function watchAccess(watch: AccessWatch): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('accessWatch', watch);
    c.set('checkedAt', watch.now());
    await next();
  };
}

export interface HoldOptions {
  /** The session the request reads, and what lets it. */
  session?: NonNullable<Reliance['session']>;
  /** Whether the caller may still read it, asked again should ends have gone unheard. */
  stillReadable?: () => Promise<boolean>;
}

/** The request's hold on its credential (and session); see `AccessWatch.hold`. */
export function holdAccess(c: Context<AppEnv>, { session, stillReadable }: HoldOptions = {}): AccessHold {
  const { id: userId } = c.get('user');
  const { kind, id } = c.get('credential');
  const recheck = c.get('recheck');
  const verify = async (): Promise<AccessEndReason | undefined> => {
    const principal = await recheck?.();
    if (!principal) return 'access_revoked';
    if (session?.through === 'admin' && principal.user.role !== 'admin') return 'role_changed';
    if (stillReadable && !(await stillReadable())) return 'access_revoked';
    return undefined;
  };
  return c.get('accessWatch').hold({ userId, credential: { kind, id }, ...(session && { session }) }, c.get('checkedAt'), verify);
}

/** Why `signal` (a hold's) aborted. */
export const endReason = (signal: AbortSignal): AccessEndReason =>
  signal.reason instanceof AccessEnded ? signal.reason.reason : 'access_revoked';

/** A stream's last event once its access ended, after the event numbered `seq` (the last sent, or resumed from). */
export function accessEndedEvent(
  sessionId: string,
  seq: number,
  reason: AccessEndReason,
  ts = new Date().toISOString(),
): AccessEndedEvent {
  return { v: 1, type: 'access.ended', sessionId, seq, ts, reason, detail: new AccessEnded(reason).message };
}

/** `access.ended` as an SSE message, without an `id`: a client resuming goes on from the last event it got. */
export const accessEndedMessage = (event: AccessEndedEvent): string => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** A stream's access, as its handler keeps it: `sent` each event, `release` at the end. */
export interface StreamAccess {
  sent(event: DebateEvent): void;
  release(): void;
}

/**
 * Closes `stream` (as though its client had left) once the caller's access ends, after one last `access.ended`
 * event following the last event `sent`. A stream that sent nothing yet (no session to name) is closed without it.
 */
export function closeOnAccessEnd(c: Context<AppEnv>, stream: EventStream): StreamAccess {
  const hold = holdAccess(c);
  let last: DebateEvent | undefined;
  const end = () => {
    if (last) stream.write(accessEndedMessage(accessEndedEvent(last.sessionId, last.seq, endReason(hold.signal))));
    stream.close();
  };
  if (hold.signal.aborted) queueMicrotask(end);
  else hold.signal.addEventListener('abort', end, { once: true });
  return {
    sent: (event) => {
      last = event;
    },
    release: () => {
      hold.signal.removeEventListener('abort', end);
      hold.release();
    },
  };
}
