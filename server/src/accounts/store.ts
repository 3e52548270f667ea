/**
 * Where accounts persist: users, their sign-ins (the server side of a session cookie) and their API
 * tokens. The database implements it (`store/sqlite/accounts.ts`, `store/postgres/accounts.ts`) in the same
 * migrations as the sessions, and both implementations pass the same contract tests.
 * Secrets are never stored: only their SHA-256 (sign-ins, tokens) or scrypt hash (passwords).
 */

export type Role = 'admin' | 'user';

export interface UserRecord {
  id: string;
  /** As typed at creation; unique without case. */
  username: string;
  role: Role;
  /** `scrypt$N$r$p$salt$hash`, see `passwords.ts`. */
  passwordHash: string;
  disabled: boolean;
  /**
   * Which generation of credentials works: raised whenever the user's credentials end (an admin's password reset,
   * disabling, an own change that ends the others). A sign-in or token works only while its `epoch` equals this, so
   * one issued by a request that raced the change (its user read before) is dead too, and re-enabling revives none.
   */
  epoch: number;
  createdAt: string;
  updatedAt: string;
}

export interface SignInRecord {
  id: string;
  userId: string;
  /** SHA-256 (hex) of the cookie's secret. */
  secretHash: string;
  createdAt: string;
  /** Last request made with it; the idle expiry counts from here. */
  lastSeenAt: string;
  /** The absolute expiry. */
  expiresAt: string;
  /** The user's `epoch` when it began. */
  epoch: number;
}

export interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  /** The secret's first characters, to tell tokens apart. */
  prefix: string;
  /** SHA-256 (hex) of the secret. */
  secretHash: string;
  createdAt: string;
  lastUsedAt?: string;
  expiresAt?: string;
  /** The user's `epoch` when it was made (by the credential that asked, not as read later). */
  epoch: number;
}

/** One sign-in or token of a user. */
export interface CredentialRef {
  kind: 'signIn' | 'token';
  id: string;
}

export type UserPatch = Partial<Pick<UserRecord, 'role' | 'disabled' | 'passwordHash'>> & {
  updatedAt: string;
  /**
   * Ends the user's credentials in the same transaction as the change: raises their `epoch`, deletes their sign-ins
   * and tokens, except `keep` (when it was current), which moves to the new epoch.
   */
  endCredentials?: { keep?: CredentialRef };
};

export interface AccountStore {
  countUsers(): Promise<number>;
  /**
   * Creates the first user, only if there is none yet (false otherwise: another instance was first),
   * and gives it every session owned by `adopt` (the owner of sessions from before accounts existed).
   */
  createFirstUser(user: UserRecord, adopt: string): Promise<boolean>;
  /** Throws `AccountError('conflict')` when the username is taken (without case). */
  createUser(user: UserRecord): Promise<void>;
  getUser(id: string): Promise<UserRecord | undefined>;
  getUserByName(username: string): Promise<UserRecord | undefined>;
  /** Oldest first. */
  listUsers(): Promise<UserRecord[]>;
  /**
   * False when there is no such user. Throws `AccountError('conflict', LAST_ADMIN)`, changing nothing, when the user is
   * an enabled admin and the change leaves no enabled admin: checked in the change's own transaction, so two admins
   * demoting each other at once cannot both succeed.
   */
  updateUser(id: string, patch: UserPatch): Promise<boolean>;
  /** Deletes the user with their sign-ins and tokens; false when there was none. Refuses the last enabled admin as `updateUser` does. */
  deleteUser(id: string): Promise<boolean>;

  createSignIn(signIn: SignInRecord): Promise<void>;
  /** The sign-in with this secret hash, with its user. */
  findSignIn(secretHash: string): Promise<{ signIn: SignInRecord; user: UserRecord } | undefined>;
  touchSignIn(id: string, lastSeenAt: string): Promise<void>;
  deleteSignIn(id: string): Promise<boolean>;
  /** Ends every sign-in of the user, except `keep`; returns how many. */
  deleteSignInsOf(userId: string, keep?: string): Promise<number>;

  createToken(token: TokenRecord): Promise<void>;
  /** The token with this secret hash, with its user. */
  findToken(secretHash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined>;
  /** The user's tokens, newest first. */
  listTokens(userId: string): Promise<TokenRecord[]>;
  touchToken(id: string, lastUsedAt: string): Promise<void>;
  /** Deletes the token if it is the user's; false otherwise. */
  deleteToken(id: string, userId: string): Promise<boolean>;
}

/** An account operation refused for a reason the caller can report (stable `code`). */
export class AccountError extends Error {
  constructor(
    readonly code: 'conflict' | 'not_found' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

/** Who owned sessions before accounts existed; the first admin adopts them (`createFirstUser`). */
export const LOCAL_OWNER = 'local';

/** Why a change to the last enabled admin is refused: nobody could manage users any more. */
export const LAST_ADMIN = 'This is the last enabled admin; make another admin first.';

/** Usernames are compared without case: this is the form they are unique in. */
export const foldUsername = (username: string): string => username.toLowerCase();
