/**
 * `GET /ready`: whether this instance should get requests now, for a load balancer. Liveness stays `/health`;
 * readiness waits for the start to finish (sign-in works: the first admin exists), asks the store (a trivial
 * query; on PostgreSQL also the notification listener), and goes 503 `draining` once the app is told it is
 * stopping, so the balancer sends new requests elsewhere first.
 */
import type { Context } from 'hono';
import type { Handlers } from '../generated/routes.js';
import type { AppEnv, ReadinessState, StoreProbe } from './deps.js';
import { problem } from './problem.js';

/**
 * The app's own say in its readiness: made `starting` by a start that has work left once the port is bound,
 * which calls `started()` when it is done; `drain()` when it is stopping (SIGTERM), for good.
 */
export class Readiness implements ReadinessState {
  #starting: boolean;
  #draining = false;

  constructor({ starting = false }: { starting?: boolean } = {}) {
    this.#starting = starting;
  }

  started(): void {
    this.#starting = false;
  }

  drain(): void {
    this.#draining = true;
  }

  get starting(): boolean {
    return this.#starting;
  }

  get draining(): boolean {
    return this.#draining;
  }
}

/** Seconds a balancer may wait before asking again: about one probe period. */
export const DRAINING_RETRY_AFTER_S = 5;

export interface ReadinessOptions {
  readiness: ReadinessState;
  instanceId: string;
  /** Without one, only draining makes the instance unready. */
  store?: StoreProbe | undefined;
}

export function readinessHandlers({ readiness, instanceId, store }: ReadinessOptions): Pick<Handlers<AppEnv>, 'getReady'> {
  const notReady = (c: Context<AppEnv>, code: 'not_ready' | 'draining', detail: string) => {
    c.header('retry-after', String(DRAINING_RETRY_AFTER_S));
    c.header('cache-control', 'no-store');
    return problem(c, 503, code, { detail });
  };
  return {
    getReady: (async (c: Context<AppEnv>) => {
      if (readiness.draining) {
        return notReady(
          c,
          'draining',
          `Instance ${instanceId} is stopping: it finishes its running debates and takes no new requests.`,
        );
      }
      if (readiness.starting) {
        return notReady(c, 'not_ready', `Instance ${instanceId} is starting: sign-in works once its first admin exists.`);
      }
      const down = (await store?.ready())?.filter((check) => !check.ok) ?? [];
      // Asked again: it may have begun stopping while the store answered.
      if (readiness.draining) {
        return notReady(
          c,
          'draining',
          `Instance ${instanceId} is stopping: it finishes its running debates and takes no new requests.`,
        );
      }
      if (down.length > 0) {
        const parts = down.map((check) => (check.error ? `${check.name} (${check.error})` : check.name));
        return notReady(c, 'not_ready', `Instance ${instanceId} is not ready: ${parts.join('; ')}.`);
      }
      c.header('cache-control', 'no-store');
      return c.json({ status: 'ready' as const, instance: instanceId }, 200);
    }) as Handlers<AppEnv>['getReady'],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: wraps route handlers of any route type
type AnyHandler = (c: any, next: any) => any;

/**
 * Wraps the operations that start debates: while the instance drains they answer 503 `draining` (another
 * instance takes them), and what already runs goes on.
 */
export function refuseWhileDraining<H extends Record<string, AnyHandler>>(
  handlers: H,
  operations: readonly (keyof H)[],
  readiness: ReadinessState,
): H {
  const wrapped = { ...handlers };
  for (const operation of operations) {
    const handler = handlers[operation];
    wrapped[operation] = ((c: Context<AppEnv>, next: () => Promise<void>) => {
      if (!readiness.draining) return handler!(c, next);
      c.header('retry-after', String(DRAINING_RETRY_AFTER_S));
      return problem(c, 503, 'draining', {
        detail: 'This instance is stopping and starts no new debates; send the request again (another instance takes it).',
      });
    }) as H[keyof H];
  }
  return wrapped;
}
