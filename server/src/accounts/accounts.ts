/**
 * Accounts: users with roles, passwords, sign-ins (what a session cookie stands for) with an idle and
 * an absolute expiry, and API tokens. Knows nothing of HTTP: the HTTP layer turns a cookie or a
 * bearer token into a call here and gets a user back, or nothing.
 */
import type { ApiToken, User } from '../../../sdk/src/generated/types.gen.js';
import { type HashPool, HashPoolFull, type HashTicket } from './hash-pool.js';
import {
  DEFAULT_SCRYPT,
  type Derive,
  decoyHash,
  deriveKey,
  hashPassword,
  needsRehash,
  type ScryptParams,
  verifyPassword,
} from './passwords.js';
import { hashSecret, randomId, randomPassword, randomSecret } from './secrets.js';
import {
  AccountError,
  type AccountStore,
  type CredentialRef,
  type Role,
  type SignInRecord,
  type TokenRecord,
  type UserPatch,
  type UserRecord,
} from './store.js';

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 200;
/** What every API token's secret starts with, so a leaked one is easy to recognise (and scan for). */
export const TOKEN_PREFIX = 'csk_';
/** The first user's name. */
export const FIRST_ADMIN = 'admin';

export interface AccountsOptions {
  store: AccountStore;
  /** A sign-in unused this long ends. */
  signInIdleMs: number;
  /** A sign-in ends this long after it began, used or not. */
  signInMaxMs: number;
  scrypt?: ScryptParams;
  /** Where scrypt runs: a server passes a `HashPool`, off libuv's pool (default: `deriveKey`, on it). Closed by `close`. */
  hashing?: Pick<HashPool, 'admit' | 'derive' | 'deriveFor' | 'close' | 'load'>;
  now?: () => Date;
  /** Last-use times are written at most this often per sign-in or token, not on every request. */
  touchEveryMs?: number;
}

/**
 * Credentials that stopped working, for whoever holds requests open on them: all of a user's (a reset, disabling,
 * deleting; with `keep`, all but the one that changed the password), one (`credential`), or an admin's reach
 * (`role_changed`: no longer an admin).
 */
export type CredentialsEnded =
  | { reason: 'user_disabled' | 'user_deleted' | 'password_reset' | 'role_changed'; userId: string }
  | { reason: 'password_changed'; userId: string; keep?: CredentialRef }
  | { reason: 'signed_out' | 'token_revoked'; credential: CredentialRef };

/** Who a request is from, once its credentials checked out. */
export interface Principal {
  user: User;
  /** How they proved it, which sign-in or token it was, and its epoch (what a token it makes is issued under). */
  via: CredentialRef & { epoch: number };
}

export class Accounts {
  readonly store: AccountStore;
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #scrypt: ScryptParams;
  readonly #derive: Derive;
  readonly #hashing: AccountsOptions['hashing'];
  readonly #now: () => Date;
  readonly #touchEveryMs: number;
  readonly #ended = new Set<(end: CredentialsEnded) => unknown>();

  constructor(options: AccountsOptions) {
    this.store = options.store;
    this.#idleMs = options.signInIdleMs;
    this.#maxMs = options.signInMaxMs;
    this.#scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    this.#hashing = options.hashing;
    this.#derive = options.hashing?.derive ?? deriveKey;
    this.#now = options.now ?? (() => new Date());
    this.#touchEveryMs = options.touchEveryMs ?? 60_000;
  }

  /**
   * With no users yet, creates `admin` with `password` (or a generated one, returned so it can be
   * shown once) and gives it the sessions `adopt` owned. Undefined when users exist.
   */
  async bootstrap(options: { password?: string; adopt: string }): Promise<{ username: string; password: string } | undefined> {
    if ((await this.store.countUsers()) > 0) return undefined;
    const password = options.password ?? randomPassword();
    checkPassword(password);
    const user = await this.#record(FIRST_ADMIN, 'admin', password);
    return (await this.store.createFirstUser(user, options.adopt)) ? { username: FIRST_ADMIN, password } : undefined;
  }

  /**
   * A new user; without `password` one is generated and returned once. With `adopt`, an admin created on a store
   * with no users yet is its first user, as `bootstrap`'s would be, and takes the sessions `adopt` owned.
   */
  async createUser(input: {
    username: string;
    role?: Role;
    password?: string;
    adopt?: string;
  }): Promise<{ user: User; password?: string }> {
    if (!USERNAME.test(input.username)) {
      throw new AccountError(
        'invalid',
        `A username is 1–64 letters, digits, ".", "_", "-" or "@", starting with a letter or digit.`,
      );
    }
    const password = input.password ?? randomPassword();
    checkPassword(password);
    const record = await this.#record(input.username, input.role ?? 'user', password);
    const first = input.adopt !== undefined && record.role === 'admin' && (await this.store.createFirstUser(record, input.adopt));
    if (!first) await this.store.createUser(record);
    return { user: publicUser(record), ...(input.password === undefined && { password }) };
  }

  async listUsers(): Promise<User[]> {
    return (await this.store.listUsers()).map(publicUser);
  }

  async getUser(id: string): Promise<User | undefined> {
    const user = await this.store.getUser(id);
    return user && publicUser(user);
  }

  async findUser(username: string): Promise<User | undefined> {
    const user = await this.store.getUserByName(username);
    return user && publicUser(user);
  }

  /**
   * Disables, enables or changes the role of a user. Disabling ends their sign-ins and tokens for good: enabling the
   * user again revives none of them.
   */
  async updateUser(id: string, change: { disabled?: boolean; role?: Role }): Promise<User> {
    const user = await this.#existing(id);
    // The store refuses a change that leaves no enabled admin (atomically: see `AccountStore.updateUser`).
    const patch: UserPatch = { updatedAt: this.#iso() };
    if (change.disabled !== undefined) patch.disabled = change.disabled;
    if (change.role !== undefined) patch.role = change.role;
    if (change.disabled) patch.endCredentials = {};
    await this.store.updateUser(id, patch);
    if (change.disabled) await this.#end({ reason: 'user_disabled', userId: id });
    if (user.role === 'admin' && change.role === 'user') await this.#end({ reason: 'role_changed', userId: id });
    const { endCredentials: _, ...changed } = patch;
    return publicUser({ ...user, ...changed });
  }

  /** Removes a user with their sign-ins and tokens; their stored sessions stay. */
  async deleteUser(id: string): Promise<void> {
    await this.#existing(id);
    await this.store.deleteUser(id);
    await this.#end({ reason: 'user_deleted', userId: id });
  }

  /** An admin's reset: sets a user's password (generated when not given, and returned) and ends all their sign-ins and tokens. */
  async setPassword(id: string, password?: string): Promise<string | undefined> {
    await this.#existing(id);
    const next = password ?? randomPassword();
    checkPassword(next);
    await this.store.updateUser(id, {
      passwordHash: await this.#hash(next),
      updatedAt: this.#iso(),
      endCredentials: {},
    });
    await this.#end({ reason: 'password_reset', userId: id });
    return password === undefined ? next : undefined;
  }

  /**
   * The user's own change: false when `current` is wrong. With `endOthers`, ends every sign-in and token of theirs
   * except `keep` (the one asking); without, all stay.
   */
  async changePassword(
    id: string,
    current: string,
    next: string,
    options: { endOthers: boolean; keep?: CredentialRef },
  ): Promise<boolean> {
    const user = await this.#existing(id);
    if (!(await verifyPassword(current, user.passwordHash, this.#derive))) return false;
    checkPassword(next);
    await this.store.updateUser(id, {
      passwordHash: await this.#hash(next),
      updatedAt: this.#iso(),
      ...(options.endOthers && { endCredentials: options.keep ? { keep: options.keep } : {} }),
    });
    if (options.endOthers) {
      await this.#end({ reason: 'password_changed', userId: id, ...(options.keep && { keep: options.keep }) });
    }
    return true;
  }

  /**
   * Checks a username and password; a new sign-in and its secret (for the cookie) when they match an enabled user.
   * `ticket` (who is asking, from where) is how the hash pool shares its capacity out in a flood (see `HashPool`).
   */
  async signIn(
    username: string,
    password: string,
    ticket?: HashTicket,
  ): Promise<{ user: User; secret: string; expiresAt: string } | undefined> {
    // A flood's overflow is refused before it costs a database read.
    this.#hashing?.admit(ticket);
    const derive = ticket && this.#hashing ? this.#hashing.deriveFor(ticket) : this.#derive;
    const user = await this.store.getUserByName(username);
    // Unknown users take as long as known ones, so timing does not tell which names exist.
    const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash(this.#scrypt, this.#derive)), derive);
    if (!user || !matches || user.disabled) return undefined;
    if (needsRehash(user.passwordHash, this.#scrypt)) {
      // Only a nicety: with the hash pool full, the next sign-in does it.
      const rehashed = await this.#hash(password).catch((error: unknown) => {
        if (error instanceof HashPoolFull) return undefined;
        throw error;
      });
      if (rehashed) await this.store.updateUser(user.id, { passwordHash: rehashed, updatedAt: this.#iso() });
    }
    const now = this.#now();
    const secret = randomSecret();
    const signIn: SignInRecord = {
      id: randomId('sgn'),
      userId: user.id,
      secretHash: hashSecret(secret),
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#maxMs).toISOString(),
      // As read before the password check: a reset meanwhile leaves this sign-in dead.
      epoch: user.epoch,
    };
    await this.store.createSignIn(signIn);
    return { user: publicUser(user), secret, expiresAt: signIn.expiresAt };
  }

  /** Who a session cookie's secret stands for; undefined once it ended, idled out, or its user is disabled. */
  async authenticateSignIn(secret: string): Promise<Principal | undefined> {
    const found = await this.store.findSignIn(hashSecret(secret));
    if (!found || found.user.disabled || found.signIn.epoch !== found.user.epoch) return undefined;
    const { signIn, user } = found;
    const now = this.#now().getTime();
    if (now >= Date.parse(signIn.expiresAt) || now >= Date.parse(signIn.lastSeenAt) + this.#idleMs) {
      await this.store.deleteSignIn(signIn.id);
      return undefined;
    }
    if (now - Date.parse(signIn.lastSeenAt) >= this.#touchEveryMs) await this.store.touchSignIn(signIn.id, this.#iso());
    return { user: publicUser(user), via: { kind: 'signIn', id: signIn.id, epoch: signIn.epoch } };
  }

  async signOut(signInId: string): Promise<void> {
    await this.store.deleteSignIn(signInId);
    await this.#end({ reason: 'signed_out', credential: { kind: 'signIn', id: signInId } });
  }

  /**
   * A new API token; its secret is returned here only. `epoch` is that of the credential asking (`Principal.via`), so a
   * token asked for by a sign-in or token that a reset ends meanwhile is dead too; without it, the user's current one.
   */
  async createToken(userId: string, name: string, expiresInDays?: number, epoch?: number): Promise<ApiToken & { token: string }> {
    const user = await this.#existing(userId);
    const now = this.#now();
    const secret = randomSecret(TOKEN_PREFIX);
    const record: TokenRecord = {
      id: randomId('tok'),
      userId,
      name,
      prefix: secret.slice(0, TOKEN_PREFIX.length + 4),
      secretHash: hashSecret(secret),
      createdAt: now.toISOString(),
      epoch: epoch ?? user.epoch,
      ...(expiresInDays !== undefined && { expiresAt: new Date(now.getTime() + expiresInDays * 86_400_000).toISOString() }),
    };
    await this.store.createToken(record);
    return { ...publicToken(record), token: secret };
  }

  /** The user's working tokens (one made by a request that raced a reset is not). */
  async listTokens(userId: string): Promise<ApiToken[]> {
    const user = await this.store.getUser(userId);
    if (!user) return [];
    return (await this.store.listTokens(userId)).filter((t) => t.epoch === user.epoch).map(publicToken);
  }

  /** False when the user has no token by that id. */
  async revokeToken(userId: string, tokenId: string): Promise<boolean> {
    if (!(await this.store.deleteToken(tokenId, userId))) return false;
    await this.#end({ reason: 'token_revoked', credential: { kind: 'token', id: tokenId } });
    return true;
  }

  /** Who a bearer token stands for; undefined when unknown, revoked, expired, or its user is disabled. */
  async authenticateToken(secret: string): Promise<Principal | undefined> {
    if (!secret.startsWith(TOKEN_PREFIX)) return undefined;
    const found = await this.store.findToken(hashSecret(secret));
    if (!found || found.user.disabled || found.token.epoch !== found.user.epoch) return undefined;
    const { token, user } = found;
    const now = this.#now().getTime();
    if (token.expiresAt !== undefined && now >= Date.parse(token.expiresAt)) return undefined;
    if (token.lastUsedAt === undefined || now - Date.parse(token.lastUsedAt) >= this.#touchEveryMs) {
      await this.store.touchToken(token.id, this.#iso());
    }
    return { user: publicUser(user), via: { kind: 'token', id: token.id, epoch: token.epoch } };
  }

  async #record(username: string, role: Role, password: string): Promise<UserRecord> {
    const at = this.#iso();
    return {
      id: randomId('usr'),
      username,
      role,
      passwordHash: await this.#hash(password),
      disabled: false,
      epoch: 0,
      createdAt: at,
      updatedAt: at,
    };
  }

  /**
   * Hears of every credential that stops working through this object, once the change is stored; the change's
   * caller waits for the listeners (an instance telling the others). Returns the listener's removal.
   */
  onCredentialsEnded(listener: (end: CredentialsEnded) => unknown): () => void {
    const own = (end: CredentialsEnded) => listener(end);
    this.#ended.add(own);
    return () => this.#ended.delete(own);
  }

  async #end(end: CredentialsEnded): Promise<void> {
    await Promise.all([...this.#ended].map((listener) => listener(end)));
  }

  /** Password hashes running and waiting on the hash pool (none without one). */
  get hashLoad(): { running: number; waiting: number } {
    return this.#hashing?.load ?? { running: 0, waiting: 0 };
  }

  /** Ends the hash pool's workers, if any. */
  async close(): Promise<void> {
    await this.#hashing?.close();
  }

  #hash(password: string): Promise<string> {
    return hashPassword(password, this.#scrypt, this.#derive);
  }

  async #existing(id: string): Promise<UserRecord> {
    const user = await this.store.getUser(id);
    if (!user) throw new AccountError('not_found', `No user "${id}".`);
    return user;
  }

  #iso(): string {
    return this.#now().toISOString();
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new AccountError('invalid', `A password is ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`);
  }
}

function publicUser(user: UserRecord): User {
  return { id: user.id, username: user.username, role: user.role, disabled: user.disabled, createdAt: user.createdAt };
}

function publicToken(token: TokenRecord): ApiToken {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    createdAt: token.createdAt,
    ...(token.lastUsedAt !== undefined && { lastUsedAt: token.lastUsedAt }),
    ...(token.expiresAt !== undefined && { expiresAt: token.expiresAt }),
  };
}
