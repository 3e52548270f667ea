/** Accounts in the PostgreSQL database (migration 2), on the pool the session store uses too. */
import type { PoolClient } from 'pg';
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
import type { PostgresAccess } from './pool.js';

interface UserRow {
  id: string;
  username: string;
  role: UserRecord['role'];
  password_hash: string;
  disabled: boolean;
  credentials_epoch: number;
  created_at: Date;
  updated_at: Date;
}

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  epoch: number;
}

const USER_COLUMNS = 'u.id, u.username, u.role, u.password_hash, u.disabled, u.credentials_epoch, u.created_at, u.updated_at';

export class PostgresAccountStore implements AccountStore {
  readonly #db: PostgresAccess;

  constructor(db: PostgresAccess) {
    this.#db = db;
  }

  async countUsers(): Promise<number> {
    const { rows } = await this.#db.query<{ n: string }>('SELECT count(*) AS n FROM users');
    return Number(rows[0]!.n);
  }

  createFirstUser(user: UserRecord, adopt: string): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      // Instances starting together: one creates the first user, the others wait here and find it.
      await client.query('LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM users');
      if (Number(rows[0]!.n) > 0) return false;
      await insertUser(client, user);
      await client.query('UPDATE sessions SET owner = $1 WHERE owner = $2', [user.id, adopt]);
      return true;
    });
  }

  async createUser(user: UserRecord): Promise<void> {
    await this.#db.transaction((client) => insertUser(client, user));
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
    return rows[0] && userOf(rows[0]);
  }

  async getUserByName(username: string): Promise<UserRecord | undefined> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.username_folded = $1`, [
      foldUsername(username),
    ]);
    return rows[0] && userOf(rows[0]);
  }

  async listUsers(): Promise<UserRecord[]> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u ORDER BY u.created_at, u.id`);
    return rows.map(userOf);
  }

  updateUser(id: string, patch: UserPatch): Promise<boolean> {
    return this.#db.transaction((client) =>
      keepingAnAdmin(client, id, async () => {
        const result = await client.query<{ credentials_epoch: number }>(
          `UPDATE users SET role = coalesce($2, role), disabled = coalesce($3, disabled),
             password_hash = coalesce($4, password_hash), updated_at = $5, credentials_epoch = credentials_epoch + $6
           WHERE id = $1 RETURNING credentials_epoch`,
          [
            id,
            patch.role ?? null,
            patch.disabled ?? null,
            patch.passwordHash ?? null,
            patch.updatedAt,
            patch.endCredentials ? 1 : 0,
          ],
        );
        const row = result.rows[0];
        if (row && patch.endCredentials) await endCredentials(client, id, row.credentials_epoch, patch.endCredentials.keep);
        return row !== undefined;
      }),
    );
  }

  deleteUser(id: string): Promise<boolean> {
    return this.#db.transaction((client) =>
      keepingAnAdmin(client, id, async () => ((await client.query('DELETE FROM users WHERE id = $1', [id])).rowCount ?? 0) > 0),
    );
  }

  async createSignIn(s: SignInRecord): Promise<void> {
    await this.#db.query(
      `INSERT INTO sign_ins (id, user_id, secret_hash, created_at, last_seen_at, expires_at, epoch)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [s.id, s.userId, s.secretHash, s.createdAt, s.lastSeenAt, s.expiresAt, s.epoch],
    );
  }

  async findSignIn(secretHash: string): Promise<{ signIn: SignInRecord; user: UserRecord } | undefined> {
    const { rows } = await this.#db.query<
      UserRow & { s_id: string; s_created_at: Date; last_seen_at: Date; expires_at: Date; epoch: number }
    >(
      `SELECT ${USER_COLUMNS}, s.id AS s_id, s.created_at AS s_created_at, s.last_seen_at, s.expires_at, s.epoch
       FROM sign_ins s JOIN users u ON u.id = s.user_id WHERE s.secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    if (!row) return undefined;
    const signIn: SignInRecord = {
      id: row.s_id,
      userId: row.id,
      secretHash,
      createdAt: row.s_created_at.toISOString(),
      lastSeenAt: row.last_seen_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
      epoch: row.epoch,
    };
    return { signIn, user: userOf(row) };
  }

  async touchSignIn(id: string, lastSeenAt: string): Promise<void> {
    await this.#db.query('UPDATE sign_ins SET last_seen_at = $2 WHERE id = $1', [id, lastSeenAt]);
  }

  async deleteSignIn(id: string): Promise<boolean> {
    return ((await this.#db.query('DELETE FROM sign_ins WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }

  async deleteSignInsOf(userId: string, keep?: string): Promise<number> {
    const result = await this.#db.query('DELETE FROM sign_ins WHERE user_id = $1 AND id IS DISTINCT FROM $2', [
      userId,
      keep ?? null,
    ]);
    return result.rowCount ?? 0;
  }

  async createToken(t: TokenRecord): Promise<void> {
    await this.#db.query(
      `INSERT INTO api_tokens (id, user_id, name, prefix, secret_hash, created_at, last_used_at, expires_at, epoch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [t.id, t.userId, t.name, t.prefix, t.secretHash, t.createdAt, t.lastUsedAt ?? null, t.expiresAt ?? null, t.epoch],
    );
  }

  async findToken(secretHash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined> {
    const { rows } = await this.#db.query<{ t: TokenRow; u: UserRow }>(
      `SELECT row_to_json(t) AS t, row_to_json(u) AS u FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    return row && { token: tokenOf(dated(row.t)), user: userOf(dated(row.u)) };
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const { rows } = await this.#db.query<TokenRow>(
      'SELECT * FROM api_tokens WHERE user_id = $1 ORDER BY created_at DESC, id DESC',
      [userId],
    );
    return rows.map(tokenOf);
  }

  async touchToken(id: string, lastUsedAt: string): Promise<void> {
    await this.#db.query('UPDATE api_tokens SET last_used_at = $2 WHERE id = $1', [id, lastUsedAt]);
  }

  async deleteToken(id: string, userId: string): Promise<boolean> {
    return ((await this.#db.query('DELETE FROM api_tokens WHERE id = $1 AND user_id = $2', [id, userId])).rowCount ?? 0) > 0;
  }
}

async function insertUser(client: PoolClient, u: UserRecord): Promise<void> {
  try {
    await client.query(
      `INSERT INTO users (id, username, username_folded, role, password_hash, disabled, credentials_epoch, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [u.id, u.username, foldUsername(u.username), u.role, u.passwordHash, u.disabled, u.epoch, u.createdAt, u.updatedAt],
    );
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AccountError('conflict', `The username "${u.username}" is taken.`);
    }
    throw error;
  }
}

/** `row_to_json` gives timestamps as strings; the row types expect Dates. */
function dated<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const key of ['created_at', 'updated_at', 'last_used_at', 'expires_at']) {
    if (typeof out[key] === 'string') out[key] = new Date(out[key] as string);
  }
  return out as T;
}

function userOf(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    passwordHash: row.password_hash,
    disabled: row.disabled,
    epoch: row.credentials_epoch,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function tokenOf(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    secretHash: row.secret_hash,
    createdAt: row.created_at.toISOString(),
    epoch: row.epoch,
    ...(row.last_used_at !== null && { lastUsedAt: row.last_used_at.toISOString() }),
    ...(row.expires_at !== null && { expiresAt: row.expires_at.toISOString() }),
  };
}

/** After the user's epoch was raised to `epoch`: `keep` moves to it if it was current; every other credential goes. */
async function endCredentials(client: PoolClient, userId: string, epoch: number, keep?: CredentialRef): Promise<void> {
  if (keep) {
    const table = keep.kind === 'signIn' ? 'sign_ins' : 'api_tokens';
    await client.query(`UPDATE ${table} SET epoch = $3 WHERE id = $1 AND user_id = $2 AND epoch = $3 - 1`, [
      keep.id,
      userId,
      epoch,
    ]);
  }
  await client.query('DELETE FROM sign_ins WHERE user_id = $1 AND epoch <> $2', [userId, epoch]);
  await client.query('DELETE FROM api_tokens WHERE user_id = $1 AND epoch <> $2', [userId, epoch]);
}

/**
 * Makes `change` to user `id` in the caller's transaction, refusing it (the throw rolls it back) when the user was an
 * enabled admin and none is left. The table lock serializes such changes: under READ COMMITTED two of them, on two
 * different admins, would otherwise each count the other as still there.
 */
async function keepingAnAdmin(client: PoolClient, id: string, change: () => Promise<boolean>): Promise<boolean> {
  await client.query('LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE');
  const enabledAdmin = "role = 'admin' AND NOT disabled";
  const was = await client.query(`SELECT 1 FROM users WHERE id = $1 AND ${enabledAdmin}`, [id]);
  const changed = await change();
  if ((was.rowCount ?? 0) > 0) {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM users WHERE ${enabledAdmin}`);
    if (Number(rows[0]!.n) === 0) throw new AccountError('conflict', LAST_ADMIN);
  }
  return changed;
}
