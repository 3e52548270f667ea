/** Accounts in the SQLite database (migration 2): writes through the database's write queue, reads on its reader. */
import {
  AccountError,
  type AccountStore,
  type CredentialRef,
  foldUsername,
  LAST_ADMIN,
  type SignInRecord,
  type TokenRecord,
  type UserPatch,
  type UserRecord,
} from '../../accounts/store.js';
import { StoreError } from '../../sessions/store.js';
import type { Connection, Row } from './connection.js';
import type { WriteQueue } from './write-queue.js';

const USER_COLUMNS = 'u.id, u.username, u.role, u.password_hash, u.disabled, u.credentials_epoch, u.created_at, u.updated_at';

export class SqliteAccountStore implements AccountStore {
  readonly #reader: Connection;
  readonly #queue: WriteQueue;

  constructor(reader: Connection, queue: WriteQueue) {
    this.#reader = reader;
    this.#queue = queue;
  }

  async countUsers(): Promise<number> {
    return (await this.#reader.first<{ n: number }>('SELECT count(*) AS n FROM users'))!.n;
  }

  createFirstUser(user: UserRecord, adopt: string): Promise<boolean> {
    return this.#queue.run(async (db) => {
      if ((await db.first<{ n: number }>('SELECT count(*) AS n FROM users'))!.n > 0) return false;
      await insertUser(db, user);
      await db.run('UPDATE sessions SET owner = ?1 WHERE owner = ?2', [user.id, adopt]);
      return true;
    });
  }

  async createUser(user: UserRecord): Promise<void> {
    await this.#queue.run((db) => insertUser(db, user));
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const row = await this.#reader.first(`SELECT ${USER_COLUMNS} FROM users AS u WHERE u.id = ?1`, [id]);
    return row && userOf(row);
  }

  async getUserByName(username: string): Promise<UserRecord | undefined> {
    const row = await this.#reader.first(`SELECT ${USER_COLUMNS} FROM users AS u WHERE u.username_folded = ?1`, [
      foldUsername(username),
    ]);
    return row && userOf(row);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.#reader.all(`SELECT ${USER_COLUMNS} FROM users AS u ORDER BY u.created_at, u.id`)).map(userOf);
  }

  updateUser(id: string, patch: UserPatch): Promise<boolean> {
    return this.#queue.run((db) =>
      keepingAnAdmin(db, id, async () => {
        const result = await db.run(
          `UPDATE users SET role = coalesce(?2, role), disabled = coalesce(?3, disabled),
           password_hash = coalesce(?4, password_hash), updated_at = ?5, credentials_epoch = credentials_epoch + ?6
           WHERE id = ?1`,
          [
            id,
            patch.role ?? null,
            patch.disabled === undefined ? null : Number(patch.disabled),
            patch.passwordHash ?? null,
            patch.updatedAt,
            patch.endCredentials ? 1 : 0,
          ],
        );
        if (result.changes > 0 && patch.endCredentials) await endCredentials(db, id, patch.endCredentials.keep);
        return result.changes > 0;
      }),
    );
  }

  deleteUser(id: string): Promise<boolean> {
    // Sign-ins and tokens go with it (ON DELETE CASCADE).
    return this.#queue.run((db) =>
      keepingAnAdmin(db, id, async () => (await db.run('DELETE FROM users WHERE id = ?1', [id])).changes > 0),
    );
  }

  async createSignIn(s: SignInRecord): Promise<void> {
    await this.#queue.run((db) =>
      db.run(
        `INSERT INTO sign_ins (id, user_id, secret_hash, created_at, last_seen_at, expires_at, epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
        [s.id, s.userId, s.secretHash, s.createdAt, s.lastSeenAt, s.expiresAt, s.epoch],
      ),
    );
  }

  async findSignIn(secretHash: string): Promise<{ signIn: SignInRecord; user: UserRecord } | undefined> {
    const row = await this.#reader.first(
      `SELECT ${USER_COLUMNS}, s.id AS s_id, s.created_at AS s_created_at, s.last_seen_at, s.expires_at, s.epoch
       FROM sign_ins AS s JOIN users AS u ON u.id = s.user_id WHERE s.secret_hash = ?1`,
      [secretHash],
    );
    if (!row) return undefined;
    const signIn: SignInRecord = {
      id: row.s_id as string,
      userId: row.id as string,
      secretHash,
      createdAt: row.s_created_at as string,
      lastSeenAt: row.last_seen_at as string,
      expiresAt: row.expires_at as string,
      epoch: row.epoch as number,
    };
    return { signIn, user: userOf(row) };
  }

  async touchSignIn(id: string, lastSeenAt: string): Promise<void> {
    await this.#queue.run((db) => db.run('UPDATE sign_ins SET last_seen_at = ?2 WHERE id = ?1', [id, lastSeenAt]));
  }

  deleteSignIn(id: string): Promise<boolean> {
    return this.#queue.run(async (db) => (await db.run('DELETE FROM sign_ins WHERE id = ?1', [id])).changes > 0);
  }

  deleteSignInsOf(userId: string, keep?: string): Promise<number> {
    return this.#queue.run(
      async (db) => (await db.run('DELETE FROM sign_ins WHERE user_id = ?1 AND id IS NOT ?2', [userId, keep ?? null])).changes,
    );
  }

  async createToken(t: TokenRecord): Promise<void> {
    await this.#queue.run((db) =>
      db.run(
        `INSERT INTO api_tokens (id, user_id, name, prefix, secret_hash, created_at, last_used_at, expires_at, epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
        [t.id, t.userId, t.name, t.prefix, t.secretHash, t.createdAt, t.lastUsedAt ?? null, t.expiresAt ?? null, t.epoch],
      ),
    );
  }

  async findToken(secretHash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined> {
    const row = await this.#reader.first(
      `SELECT ${USER_COLUMNS}, t.id AS t_id, t.name, t.prefix, t.secret_hash, t.created_at AS t_created_at, t.last_used_at,
         t.expires_at, t.user_id, t.epoch
       FROM api_tokens AS t JOIN users AS u ON u.id = t.user_id WHERE t.secret_hash = ?1`,
      [secretHash],
    );
    return row && { token: tokenOf({ ...row, id: row.t_id, created_at: row.t_created_at }), user: userOf(row) };
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const rows = await this.#reader.all('SELECT * FROM api_tokens WHERE user_id = ?1 ORDER BY created_at DESC, id DESC', [
      userId,
    ]);
    return rows.map(tokenOf);
  }

  async touchToken(id: string, lastUsedAt: string): Promise<void> {
    await this.#queue.run((db) => db.run('UPDATE api_tokens SET last_used_at = ?2 WHERE id = ?1', [id, lastUsedAt]));
  }

  deleteToken(id: string, userId: string): Promise<boolean> {
    return this.#queue.run(
      async (db) => (await db.run('DELETE FROM api_tokens WHERE id = ?1 AND user_id = ?2', [id, userId])).changes > 0,
    );
  }
}

async function insertUser(db: Connection, u: UserRecord): Promise<void> {
  try {
    await db.run(
      `INSERT INTO users (id, username, username_folded, role, password_hash, disabled, credentials_epoch, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
      [u.id, u.username, foldUsername(u.username), u.role, u.passwordHash, Number(u.disabled), u.epoch, u.createdAt, u.updatedAt],
    );
  } catch (error) {
    if (error instanceof StoreError && error.code === 'conflict') {
      throw new AccountError('conflict', `The username "${u.username}" is taken.`);
    }
    throw error;
  }
}

function userOf(row: Row): UserRecord {
  return {
    id: row.id as string,
    username: row.username as string,
    role: row.role as UserRecord['role'],
    passwordHash: row.password_hash as string,
    disabled: row.disabled === 1,
    epoch: row.credentials_epoch as number,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

function tokenOf(row: Row): TokenRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    name: row.name as string,
    prefix: row.prefix as string,
    secretHash: row.secret_hash as string,
    createdAt: row.created_at as string,
    epoch: row.epoch as number,
    ...(row.last_used_at !== null && { lastUsedAt: row.last_used_at as string }),
    ...(row.expires_at !== null && { expiresAt: row.expires_at as string }),
  };
}

/** After the user's epoch was raised: `keep` moves to the new one if it was current; every other credential goes. */
async function endCredentials(db: Connection, userId: string, keep?: CredentialRef): Promise<void> {
  const { epoch } = (await db.first<{ epoch: number }>('SELECT credentials_epoch AS epoch FROM users WHERE id = ?1', [userId]))!;
  if (keep) {
    const table = keep.kind === 'signIn' ? 'sign_ins' : 'api_tokens';
    await db.run(`UPDATE ${table} SET epoch = ?3 WHERE id = ?1 AND user_id = ?2 AND epoch = ?3 - 1`, [keep.id, userId, epoch]);
  }
  await db.run('DELETE FROM sign_ins WHERE user_id = ?1 AND epoch <> ?2', [userId, epoch]);
  await db.run('DELETE FROM api_tokens WHERE user_id = ?1 AND epoch <> ?2', [userId, epoch]);
}

/**
 * Makes `change` to user `id`, refusing it (the throw rolls the job's savepoint back) when the user was an enabled
 * admin and none is left. Jobs run one at a time in the store's write transaction, so no other change interleaves.
 */
async function keepingAnAdmin(db: Connection, id: string, change: () => Promise<boolean>): Promise<boolean> {
  const enabledAdmin = "role = 'admin' AND disabled = 0";
  const was = await db.first(`SELECT 1 AS yes FROM users WHERE id = ?1 AND ${enabledAdmin}`, [id]);
  const changed = await change();
  if (was && (await db.first<{ n: number }>(`SELECT count(*) AS n FROM users WHERE ${enabledAdmin}`))!.n === 0) {
    throw new AccountError('conflict', LAST_ADMIN);
  }
  return changed;
}
