import type { Context, MiddlewareHandler } from 'hono';
import type { Rate } from '../config/limits.js';
import type { Buckets, LimitStore } from '../limits/store.js';
import { type ClientAddresses, peerAddress } from './client-address.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

/** 429 `rate_limited` with `Retry-After`. */
export function tooManyRequests(c: Context, retryAfterSeconds: number, detail: string): Response {
  const res = problem(c, 429, 'rate_limited', { detail });
  res.headers.set('retry-after', String(retryAfterSeconds));
  return res;
}

export interface LoginLimits {
  /** Where the attempts are counted (shared by every instance on one PostgreSQL database), and where accounts are known from. */
  store: LimitStore;
  /** Attempts per account from one address; also the failures per account, from anywhere, before the slowdown. */
  perAccount?: Rate | undefined;
  perAddress?: Rate | undefined;
  /** The client's address (default: the connection's). */
  clientAddress?: ClientAddresses;
  /** How a delay is waited out (tests observe it). */
  sleep?: (ms: number) => Promise<void>;
  /** The account (folded, as `foldUsername`) a valid session cookie on the request is for, if any. */
  signedInAs?: (c: Context) => Promise<string | undefined>;
}

/** How long a successful sign-in from an address keeps its account known there. */
export const KNOWN_FOR_MS = 30 * 24 * 3_600_000;

/** The longest an attempt is slowed down: enough to make guessing slow, short enough that nobody gives up. */
export const MAX_SLOWDOWN_MS = 4000;

/** The delay of an attempt for an account `owed` failures past its allowance (0 or less: none): 0.5 s, doubling, at most 4 s. */
export function slowdownMs(owed: number): number {
  return owed <= 0 ? 0 : Math.min(MAX_SLOWDOWN_MS, 500 * 2 ** (Math.ceil(owed) - 1));
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Throttles sign-in attempts before the credentials are checked, as OWASP advises: per client address, and per
 * account name (from the JSON body's `username`) from that address; both refuse with 429. Keyed by name alone,
 * anyone could keep an account (the admin's) locked out with a few wrong passwords, so across addresses an account
 * is only slowed down: once its failures (401s) from anywhere exceed the per-account allowance, each further
 * attempt for it waits a little longer, up to `MAX_SLOWDOWN_MS`, and is then answered. A successful sign-in
 * (2xx) gives the account its attempts from that address back, and makes it known there for `KNOWN_FOR_MS`.
 *
 * An account known at the address (or whose session cookie the request carries) is neither counted against the
 * address's allowance nor slowed down, and its hash comes from the pool's reserve (the `signInTicket` this sets
 * for the handler): a flood from elsewhere, or from the same address, cannot keep its owner out. An attempt refused
 * before its password was checked (503: the hash pool full, the store down) gets its tokens back: it was no guess.
 */
export function loginRateLimit(limits: LoginLimits): MiddlewareHandler<AppEnv> {
  const { store, perAccount, perAddress, clientAddress = peerAddress, sleep = sleepFor, signedInAs } = limits;
  const byAddress = perAddress && store.buckets('login-address', perAddress);
  const byAccountThere = perAccount && store.buckets('login-account-address', perAccount);
  const failures = perAccount && store.buckets('login-account-failures', perAccount);
  // A bucket of one token that a successful sign-in empties: known there until it has refilled.
  const knownThere = store.buckets('login-known', { count: 1, periodMs: KNOWN_FOR_MS });
  return async (c, next) => {
    const address = clientAddress(c);
    const name = await usernameOf(c);
    const there = name === undefined ? undefined : `${address}\n${name}`;
    const known =
      there !== undefined &&
      ((await knownThere.level(there)) < 1 || (signedInAs !== undefined && (await signedInAs(c)) === name));
    const taken: [Buckets, string][] = [];
    if (!known && byAddress) {
      const waitAddress = await byAddress.take(address);
      if (waitAddress !== undefined) return tooManyRequests(c, waitAddress, 'Too many sign-in attempts from this address.');
      taken.push([byAddress, address]);
    }
    if (there !== undefined) {
      if (byAccountThere) {
        const waitAccount = await byAccountThere.take(there);
        if (waitAccount !== undefined)
          return tooManyRequests(c, waitAccount, 'Too many sign-in attempts for this account from this address.');
        taken.push([byAccountThere, there]);
      }
      // Its allowance spent (less than one token left), the account owes one failure or more.
      const delay = failures && !known ? slowdownMs(1 - (await failures.level(name!))) : 0;
      if (delay > 0) await sleep(delay);
      c.set('signInTicket', { account: name!, address, known });
    }
    await next();
    if (c.res.status === 503) {
      for (const [buckets, key] of taken) await buckets.refund(key);
    }
    if (there === undefined) return;
    if (c.res.status >= 200 && c.res.status < 300) {
      await byAccountThere?.reset(there);
      await knownThere.charge(there);
    } else if (c.res.status === 401) await failures?.charge(name!);
  };
}

/** A username as sign-in limits key it: NFC, lower case. */
export const foldName = (username: string): string => username.normalize('NFC').toLowerCase();

/** The body's `username`, case-folded, if it is JSON with one; Hono keeps the parsed body for the validator. */
async function usernameOf(c: Context): Promise<string | undefined> {
  if (!/^application\/(.+\+)?json\b/i.test(c.req.header('content-type') ?? '')) return undefined;
  try {
    const body = (await c.req.json()) as { username?: unknown };
    return typeof body?.username === 'string' ? foldName(body.username) : undefined;
  } catch {
    return undefined;
  }
}
