/**
 * Access that ends while a request still relies on it: an open event stream was let in once, by a credential (a
 * sign-in or an API token) and, for a session's events, by owning the session, a share, or being an admin. When any
 * of those ends (a share revoked, the session deleted, the user disabled or deleted, a password reset or changed
 * with the others signed out, a sign-out, a token revoked, an admin demoted), `AccessWatch` aborts the signal of
 * every request that relied on it, here at once and, through an `AccessBus`, on every other instance of the
 * service. Accounts and sessions say what ended (`CredentialsEnded`, `SessionAccessEnded`); this module only
 * matches those ends against what each open request holds.
 */
import type { CredentialsEnded } from '../accounts/accounts.js';
import type { CredentialRef } from '../accounts/store.js';
import type { SessionAccessEnded } from '../sessions/sessions.js';

/** Something a request relied on ended. */
export type AccessEnd = CredentialsEnded | SessionAccessEnded;

/** Why access ended, as the stream's last event says: an `AccessEnd`'s reason, or `access_revoked` when it was found on a check. */
export type AccessEndReason = AccessEnd['reason'] | 'access_revoked';

/** What an open request was let in by. */
export interface Reliance {
  userId: string;
  credential: CredentialRef;
  /** The session it reads, and what let it: its owner, a share with the user, or an admin's reach. */
  session?: { id: string; through: 'owner' | 'share' | 'admin' };
}

/**
 * How instances tell each other of ends (PostgreSQL's NOTIFY). `listener` gets each end another instance published,
 * and `undefined` when some may have gone unheard (the connection that hears them was lost): each open request is
 * then checked again.
 */
export interface AccessBus {
  publish(end: AccessEnd): Promise<void>;
  subscribe(listener: (end: AccessEnd | undefined) => void): () => void;
}

/** What a request holds while it is open. Release it when the request ends. */
export interface AccessHold {
  /** Aborts once access it relies on ends; its `reason` is an `AccessEnded`. */
  readonly signal: AbortSignal;
  release(): void;
}

/** The abort reason of a hold's signal: why, in words a client can be shown. */
export class AccessEnded extends Error {
  override name = 'AccessEnded';
  constructor(readonly reason: AccessEndReason) {
    super(ACCESS_END_DETAIL[reason]);
  }
}

export const ACCESS_END_DETAIL: Record<AccessEndReason, string> = {
  share_revoked: 'The owner stopped sharing this session with you.',
  session_deleted: 'The session was deleted.',
  user_disabled: 'Your account was disabled.',
  user_deleted: 'Your account was deleted.',
  password_reset: 'Your password was reset: every sign-in and token of yours ended.',
  password_changed: 'Your password was changed and your other sign-ins and tokens signed out.',
  signed_out: 'You signed out.',
  token_revoked: 'The API token was revoked.',
  role_changed: 'You are no longer an admin.',
  access_revoked: 'Your access ended.',
};

/** Whether `end` takes away what `reliance` holds. */
export function ends(end: AccessEnd, reliance: Reliance): boolean {
  const { session } = reliance;
  switch (end.reason) {
    case 'session_deleted':
      return session?.id === end.sessionId;
    case 'share_revoked':
      return session?.id === end.sessionId && session.through === 'share' && reliance.userId === end.userId;
    case 'role_changed':
      return reliance.userId === end.userId && session?.through === 'admin';
    case 'signed_out':
    case 'token_revoked':
      return sameCredential(reliance.credential, end.credential);
    case 'password_changed':
      return reliance.userId === end.userId && !(end.keep && sameCredential(reliance.credential, end.keep));
    case 'user_disabled':
    case 'user_deleted':
    case 'password_reset':
      return reliance.userId === end.userId;
  }
}

const sameCredential = (a: CredentialRef, b: CredentialRef) => a.kind === b.kind && a.id === b.id;

/** An end read off the wire (another instance's notice), or undefined when it is not one. */
export function parseAccessEnd(value: unknown): AccessEnd | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const text = (key: string) => typeof v[key] === 'string';
  const credential = (key: string) => {
    const c = v[key] as Record<string, unknown> | undefined;
    return typeof c === 'object' && c !== null && (c.kind === 'signIn' || c.kind === 'token') && typeof c.id === 'string';
  };
  switch (v.reason) {
    case 'session_deleted':
      return text('sessionId') ? (value as AccessEnd) : undefined;
    case 'share_revoked':
      return text('sessionId') && text('userId') ? (value as AccessEnd) : undefined;
    case 'signed_out':
    case 'token_revoked':
      return credential('credential') ? (value as AccessEnd) : undefined;
    case 'password_changed':
      return text('userId') && (v.keep === undefined || credential('keep')) ? (value as AccessEnd) : undefined;
    case 'user_disabled':
    case 'user_deleted':
    case 'password_reset':
    case 'role_changed':
      return text('userId') ? (value as AccessEnd) : undefined;
  }
  return undefined;
}

export interface AccessWatchOptions {
  bus?: AccessBus | undefined;
  /** A publish that failed (the change itself stands; other instances' requests then end at their next check). */
  onError?: (error: unknown) => void;
  /** A monotonic clock (ms). */
  now?: () => number;
  /**
   * How long an end is remembered, for a request whose credentials were checked before it and that holds on
   * only after it (a few milliseconds apart, as a rule). Default 60 s.
   */
  rememberMs?: number;
}

interface Held {
  reliance: Reliance;
  controller: AbortController;
  /** Checks again that the request may still do what it does (after ends went unheard): why not, or undefined. */
  verify: (() => Promise<AccessEndReason | undefined>) | undefined;
}

/** The open requests of this process and what they rely on; ends abort them. */
export class AccessWatch {
  readonly #held = new Set<Held>();
  readonly #recent: { end: AccessEnd; at: number }[] = [];
  readonly #bus: AccessBus | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #rememberMs: number;
  readonly #unsubscribe: () => void;

  constructor(options: AccessWatchOptions = {}) {
    this.#bus = options.bus;
    this.#onError = options.onError ?? (() => undefined);
    this.#now = options.now ?? (() => performance.now());
    this.#rememberMs = options.rememberMs ?? 60_000;
    this.#unsubscribe = this.#bus?.subscribe((end) => (end ? this.#endHere(end) : this.#verifyAll())) ?? (() => undefined);
  }

  /** Requests holding on now. */
  get holding(): number {
    return this.#held.size;
  }

  /**
   * Holds on to what `reliance` names until `release`. `since` is when its credentials were checked (on this
   * watch's clock): an end since then aborts the hold at once, so none falls between the check and the hold.
   * `verify`, when given, is run should ends have gone unheard.
   */
  hold(reliance: Reliance, since: number, verify?: () => Promise<AccessEndReason | undefined>): AccessHold {
    const held: Held = { reliance, controller: new AbortController(), verify };
    this.#forgetOld();
    const missed = this.#recent.find((r) => r.at >= since && ends(r.end, reliance));
    if (missed) held.controller.abort(new AccessEnded(missed.end.reason));
    else this.#held.add(held);
    return { signal: held.controller.signal, release: () => this.#held.delete(held) };
  }

  /** Ends `end` for the requests here, and tells the other instances. Never rejects. */
  async end(end: AccessEnd): Promise<void> {
    this.#endHere(end);
    try {
      await this.#bus?.publish(end);
    } catch (error) {
      this.#onError(error);
    }
  }

  close(): void {
    this.#unsubscribe();
  }

  /** The time on this watch's clock: a request's `since`. */
  now(): number {
    return this.#now();
  }

  #endHere(end: AccessEnd): void {
    this.#forgetOld();
    this.#recent.push({ end, at: this.#now() });
    for (const held of this.#held) {
      if (ends(end, held.reliance)) this.#abort(held, end.reason);
    }
  }

  #abort(held: Held, reason: AccessEndReason): void {
    this.#held.delete(held);
    held.controller.abort(new AccessEnded(reason));
  }

  #verifyAll(): void {
    for (const held of this.#held) {
      held
        .verify?.()
        .then((reason) => reason && this.#abort(held, reason))
        .catch((error: unknown) => this.#onError(error));
    }
  }

  #forgetOld(): void {
    const before = this.#now() - this.#rememberMs;
    while (this.#recent.length > 0 && this.#recent[0]!.at < before) this.#recent.shift();
  }
}
