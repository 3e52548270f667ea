import type { Context } from 'hono';
import type { RateLimits } from '../config/limits.js';
import type { LimitStore } from '../limits/store.js';
import { tooManyRequests } from './rate-limit.js';

/** Operations that start paid model calls: each counts as a debate start and runs as one debate. */
export const DEBATE_STARTS = [
  'askProvider',
  'runParallel',
  'runDeepDebate',
  'streamDeepDebate',
  'synthesizeVerdict',
  'askFollowUp',
  'continueSession',
  'createChatCompletion',
] as const;

/** A running debate's wait before another may start: unknown, so a short, honest guess. */
const RUNNING_RETRY_AFTER_S = 5;

// biome-ignore lint/suspicious/noExplicitAny: wraps route handlers of any route type
type AnyHandler = (c: any, next: any) => any;

/** Why a debate may not start now: the wait the caller is told, and what to show. */
export interface DebateRefusal {
  retryAfterS: number;
  message: string;
}

/** Lets a user's debate in: its `release` for when it ends, or why not. */
export type DebateGate = (user: string) => Promise<{ release: () => void } | { refused: DebateRefusal }>;

/**
 * The user's start rate and running slots (counted in `store`, so every instance on one database shares them), as
 * one gate every surface that starts debates passes: the contract's operations and MCP's tools alike. Undefined when
 * neither limit is set.
 */
export function debateGate(
  limits: Pick<RateLimits, 'debateStartsPerUser' | 'runningDebatesPerUser'>,
  store: LimitStore,
): DebateGate | undefined {
  const starts = limits.debateStartsPerUser && store.buckets('debate-starts', limits.debateStartsPerUser);
  const running = limits.runningDebatesPerUser ? store.slots('running-debates', limits.runningDebatesPerUser) : undefined;
  if (!starts && !running) return undefined;
  return async (user) => {
    const acquired = await running?.acquire(user);
    if (running && !acquired) {
      const message = `At most ${limits.runningDebatesPerUser} of your debates may run at once.`;
      return { refused: { retryAfterS: RUNNING_RETRY_AFTER_S, message } };
    }
    // Released once, whichever end comes first; the store's own failure to free it is its to report.
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (acquired) void acquired();
    };
    let wait: number | undefined;
    try {
      wait = await starts?.take(user);
    } catch (err) {
      release();
      throw err;
    }
    if (wait === undefined) return { release };
    release();
    return { refused: { retryAfterS: wait, message: 'Too many debates started; wait before starting another.' } };
  };
}

/**
 * Wraps (after validation, so a refused request costs nothing) in `gate`: each
 * start holds its place until its response ends (a stream's end, or its client going away) or, for a detached
 * debate, until its run ends.
 */
export function limitDebates<H extends Record<(typeof DEBATE_STARTS)[number], AnyHandler>>(
  handlers: H,
  gate: DebateGate | undefined,
  userOf: (c: Context) => string,
): H {
  if (!gate) return handlers;
  const wrapped = { ...handlers };
  for (const operation of DEBATE_STARTS) {
    const handler = handlers[operation];
    wrapped[operation] = (async (c: Context, next: () => Promise<void>) => {
      const entry = await gate(userOf(c));
      if ('refused' in entry) return tooManyRequests(c, entry.refused.retryAfterS, entry.refused.message);
      const { release } = entry;
      try {
        const res = (await handler(c, next)) as Response | undefined;
        const detached = c.get('detachedRun') as Promise<unknown> | undefined;
        if (detached) {
          // A detached run outlives its response: it holds its slot until the run itself ends.
          detached.then(release, release);
          return res;
        }
        return releaseWhenDone(res, release);
      } catch (err) {
        release();
        throw err;
      }
    }) as H[typeof operation];
  }
  return wrapped;
}

/**
 * Calls `release` once the debate is over: at once for a whole answer (the handler awaited the debate), and for
 * an event stream once it has been sent, failed or been abandoned by its client.
 */
function releaseWhenDone(res: Response | undefined, release: () => void): Response | undefined {
  if (!res?.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    release();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
