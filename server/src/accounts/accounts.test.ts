/**
 * The accounts domain on a real SQLite store, without HTTP: users and roles, the last enabled admin,
 * passwords, sign-ins with their idle and absolute expiry, and API tokens (expiry, revocation, last use).
 * A test clock (`now`) moves time; scrypt runs with small parameters so the tests stay fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import { Accounts, FIRST_ADMIN, MAX_PASSWORD, MIN_PASSWORD, TOKEN_PREFIX } from './accounts.js';
import { hashPassword } from './passwords.js';
import { hashSecret } from './secrets.js';
import { AccountError, LOCAL_OWNER } from './store.js';

const SMALL = { N: 16, r: 1, p: 1 };
const MINUTE = 60_000;
const IDLE = 30 * MINUTE;
const MAX = 8 * 60 * MINUTE;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

const dir = mkdtempSync(join(tmpdir(), 'consilium-accounts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let db: SqliteDatabase;
let clock: number;
let accounts: Accounts;
let n = 0;
const at = (ms: number) => new Date(ms).toISOString();

beforeEach(async () => {
  db = await SqliteDatabase.open(join(dir, `accounts-${n++}.db`));
  clock = T0;
  accounts = new Accounts({
    store: db.accounts,
    signInIdleMs: IDLE,
    signInMaxMs: MAX,
    scrypt: SMALL,
    now: () => new Date(clock),
    touchEveryMs: MINUTE,
  });
});
afterEach(() => db.close());

/** The code of the AccountError `work` rejects with. */
async function errorCode(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AccountError);
  return (error as AccountError).code;
}

describe('bootstrap', () => {
  it('creates the admin with the given password, once', async () => {
    const first = await accounts.bootstrap({ password: 'first-password', adopt: 'local' });
    expect(first).toEqual({ username: FIRST_ADMIN, password: 'first-password' });
    const admin = (await accounts.findUser(FIRST_ADMIN))!;
    expect(admin).toMatchObject({ username: 'admin', role: 'admin', disabled: false, createdAt: at(T0) });
    expect(admin.id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
    expect(await accounts.signIn('admin', 'first-password')).toBeDefined();
    // Users exist now: a second bootstrap does nothing and changes no password.
    expect(await accounts.bootstrap({ password: 'other-password', adopt: 'local' })).toBeUndefined();
    // Nor is the password looked at then: a changed, now invalid, configured one does not stop a start.
    expect(await accounts.bootstrap({ password: 'short', adopt: 'local' })).toBeUndefined();
    expect(await accounts.listUsers()).toHaveLength(1);
    expect(await accounts.signIn('admin', 'other-password')).toBeUndefined();
  });

  it('generates a 24-character password when none is given, and refuses one too short', async () => {
    await expect(accounts.bootstrap({ password: 'short', adopt: 'local' })).rejects.toThrow(AccountError);
    expect(await db.accounts.countUsers()).toBe(0);
    const first = (await accounts.bootstrap({ adopt: 'local' }))!;
    expect(first.password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(await accounts.signIn('admin', first.password)).toBeDefined();
  });
});

describe('users', () => {
  it('creates users with the given or a generated password, role user by default', async () => {
    const given = await accounts.createUser({ username: 'alice', password: 'alice-password' });
    expect(given.password).toBeUndefined();
    expect(given.user).toEqual({ id: given.user.id, username: 'alice', role: 'user', disabled: false, createdAt: at(T0) });
    const generated = await accounts.createUser({ username: 'bob', role: 'admin' });
    expect(generated.user.role).toBe('admin');
    expect(generated.password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(await accounts.signIn('bob', generated.password!)).toBeDefined();
    expect((await accounts.listUsers()).map((u) => u.username).sort()).toEqual(['alice', 'bob']);
    expect(await accounts.getUser(given.user.id)).toEqual(given.user);
    expect(await accounts.getUser('usr_none')).toBeUndefined();
    expect(await accounts.findUser('nobody')).toBeUndefined();
  });

  it('refuses invalid usernames and passwords outside 8–200 characters, and taken names', async () => {
    for (const username of ['', '-lead', '.dot', 'a b', 'x'.repeat(65), 'ünï', 'a/b']) {
      expect(await errorCode(accounts.createUser({ username, password: 'long-enough' })), username).toBe('invalid');
    }
    // The messages say what is allowed: the HTTP layer shows them as the problem's detail.
    await expect(accounts.createUser({ username: 'a b', password: 'long-enough' })).rejects.toThrow(
      'A username is 1–64 letters, digits, ".", "_", "-" or "@", starting with a letter or digit.',
    );
    await expect(accounts.createUser({ username: 'ok', password: 'short' })).rejects.toThrow(
      'A password is 8 to 200 characters.',
    );
    await expect(accounts.setPassword('usr_none', 'long-enough')).rejects.toThrow('No user "usr_none".');
    // The limits themselves are allowed.
    await accounts.createUser({ username: 'a', password: 'x'.repeat(MIN_PASSWORD) });
    await accounts.createUser({ username: `B${'x'.repeat(63)}`, password: 'x'.repeat(MAX_PASSWORD) });
    await accounts.createUser({ username: '9.a_b-c@d', password: 'long-enough' });
    expect(await errorCode(accounts.createUser({ username: 'c', password: 'x'.repeat(MIN_PASSWORD - 1) }))).toBe('invalid');
    expect(await errorCode(accounts.createUser({ username: 'd', password: 'x'.repeat(MAX_PASSWORD + 1) }))).toBe('invalid');
    expect(await errorCode(accounts.createUser({ username: 'A', password: 'long-enough' }))).toBe('conflict');
    expect((await accounts.listUsers()).map((u) => u.username).sort()).toEqual(['9.a_b-c@d', `B${'x'.repeat(63)}`, 'a']);
  });

  it('disables and enables a user; disabling ends their sign-ins and tokens at once, enabling brings none back', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const { user } = await accounts.createUser({ username: 'carol', password: 'carol-password' });
    const first = (await accounts.signIn('carol', 'carol-password'))!;
    const { token } = await accounts.createToken(user.id, 'ci');
    expect(await accounts.authenticateToken(token)).toBeDefined();
    clock += 5_000;
    const disabled = await accounts.updateUser(user.id, { disabled: true });
    expect(disabled).toEqual({ ...user, disabled: true });
    expect(await accounts.authenticateSignIn(first.secret)).toBeUndefined();
    expect(await accounts.authenticateToken(token)).toBeUndefined();
    expect(await accounts.signIn('carol', 'carol-password')).toBeUndefined();
    expect((await db.accounts.getUser(user.id))!.updatedAt).toBe(at(T0 + 5_000));
    const enabled = await accounts.updateUser(user.id, { disabled: false });
    expect(enabled.disabled).toBe(false);
    expect(await accounts.authenticateSignIn(first.secret)).toBeUndefined();
    expect(await accounts.authenticateToken(token)).toBeUndefined();
    expect(await accounts.listTokens(user.id)).toStrictEqual([]);
    const again = (await accounts.signIn('carol', 'carol-password'))!;
    expect(await accounts.authenticateSignIn(again.secret)).toBeDefined();
    const { token: fresh } = await accounts.createToken(user.id, 'ci again');
    expect(await accounts.authenticateToken(fresh)).toBeDefined();
  });

  it('changes a role without touching sign-ins, and leaves unchanged what the change does not name', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const { user } = await accounts.createUser({ username: 'dave', password: 'dave-password' });
    const signIn = (await accounts.signIn('dave', 'dave-password'))!;
    expect(await accounts.updateUser(user.id, { role: 'admin' })).toEqual({ ...user, role: 'admin' });
    expect((await accounts.authenticateSignIn(signIn.secret))?.user.role).toBe('admin');
    expect(await accounts.updateUser(user.id, {})).toEqual({ ...user, role: 'admin' });
    expect(await accounts.updateUser(user.id, { role: 'user' })).toEqual(user);
    expect(await accounts.authenticateSignIn(signIn.secret)).toBeDefined();
    expect(await errorCode(accounts.updateUser('usr_none', { role: 'user' }))).toBe('not_found');
  });

  it('keeps at least one enabled admin: the last cannot be disabled, demoted or deleted', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const admin = (await accounts.findUser(FIRST_ADMIN))!;
    expect(await errorCode(accounts.updateUser(admin.id, { disabled: true }))).toBe('conflict');
    expect(await errorCode(accounts.updateUser(admin.id, { role: 'user' }))).toBe('conflict');
    expect(await errorCode(accounts.deleteUser(admin.id))).toBe('conflict');
    await expect(accounts.deleteUser(admin.id)).rejects.toThrow('This is the last enabled admin; make another admin first.');
    // Changes that leave it an enabled admin are fine.
    expect(await accounts.updateUser(admin.id, { disabled: false, role: 'admin' })).toMatchObject({ role: 'admin' });

    // A disabled second admin does not count; an enabled one does.
    const second = (await accounts.createUser({ username: 'erin', role: 'admin', password: 'erin-password' })).user;
    await accounts.updateUser(second.id, { disabled: true });
    expect(await errorCode(accounts.updateUser(admin.id, { role: 'user' }))).toBe('conflict');
    // A user who is not an enabled admin may always go, even with no other admin.
    await accounts.deleteUser(second.id);
    const plain = (await accounts.createUser({ username: 'frank', password: 'frank-password' })).user;
    await accounts.updateUser(plain.id, { disabled: true });
    await accounts.deleteUser(plain.id);
    const third = (await accounts.createUser({ username: 'gina', role: 'admin', password: 'gina-password' })).user;
    expect((await accounts.updateUser(admin.id, { role: 'user' })).role).toBe('user');
    expect(await errorCode(accounts.deleteUser(third.id))).toBe('conflict');
    expect(await errorCode(accounts.deleteUser('usr_none'))).toBe('not_found');
  });

  it('an admin created with `adopt` on an empty store is its first user and takes the sessions of that owner', async () => {
    const sessionOf = async (owner: string) => {
      const d = new FakeDebate({ owner });
      await db.sessions.write(d.start().step());
      return d.session.id;
    };
    const ownerOf = async (id: string) => (await db.sessions.get(id))?.owner;
    // A plain user never adopts.
    const early = await sessionOf(LOCAL_OWNER);
    const plain = (await accounts.createUser({ username: 'ida', password: 'ida-password', adopt: LOCAL_OWNER })).user;
    expect(await ownerOf(early)).toBe(LOCAL_OWNER);
    await accounts.deleteUser(plain.id);
    expect(await db.accounts.countUsers()).toBe(0);

    const first = (await accounts.createUser({ username: 'kim', role: 'admin', password: 'kim-password', adopt: LOCAL_OWNER }))
      .user;
    expect(await db.accounts.getUser(first.id)).toMatchObject({ username: 'kim', role: 'admin' });
    expect(await ownerOf(early)).toBe(first.id);
    // Once users exist, `adopt` is a plain creation: the user is made once, and takes nothing.
    const late = await sessionOf(LOCAL_OWNER);
    clock += MINUTE; // users list oldest first: created at the same instant, they would come in id order
    const second = (await accounts.createUser({ username: 'lou', role: 'admin', password: 'lou-password', adopt: LOCAL_OWNER }))
      .user;
    expect(await ownerOf(late)).toBe(LOCAL_OWNER);
    expect((await accounts.listUsers()).map((u) => u.id)).toStrictEqual([first.id, second.id]);
  });

  it('keeps an enabled admin when two admins demote each other at the same moment', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const first = (await accounts.findUser(FIRST_ADMIN))!;
    const second = (await accounts.createUser({ username: 'hal', role: 'admin', password: 'hal-password' })).user;
    // Each reads "another enabled admin exists" before either writes: the store decides, in the change's transaction.
    const outcome = (work: Promise<unknown>) =>
      work.then(
        () => 'done',
        (e: AccountError) => e.code,
      );
    const outcomes = await Promise.all([
      outcome(accounts.updateUser(first.id, { role: 'user' })),
      outcome(accounts.updateUser(second.id, { disabled: true })),
    ]);
    expect(outcomes.sort()).toStrictEqual(['conflict', 'done']);
    const admins = (await accounts.listUsers()).filter((u) => u.role === 'admin' && !u.disabled);
    expect(admins).toHaveLength(1);
  });

  it('users who are not enabled admins are disabled and deleted freely, even with no enabled admin at all', async () => {
    // No bootstrap: no admin exists (as before the first start, or after the store was edited by hand).
    const plain = (await accounts.createUser({ username: 'walt', password: 'walt-password' })).user;
    expect((await accounts.updateUser(plain.id, { disabled: true })).disabled).toBe(true);
    const other = (await accounts.createUser({ username: 'xena', password: 'xena-password' })).user;
    await accounts.deleteUser(other.id);
    expect(await accounts.getUser(other.id)).toBeUndefined();
  });

  it('deletes a user with their sign-ins and tokens', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const { user } = await accounts.createUser({ username: 'hank', password: 'hank-password' });
    const signIn = (await accounts.signIn('hank', 'hank-password'))!;
    const { token } = await accounts.createToken(user.id, 'ci');
    await accounts.deleteUser(user.id);
    expect(await accounts.getUser(user.id)).toBeUndefined();
    expect(await accounts.authenticateSignIn(signIn.secret)).toBeUndefined();
    expect(await accounts.authenticateToken(token)).toBeUndefined();
  });
});

describe('passwords', () => {
  it('an admin sets a password (given or generated), which ends every sign-in and token of the user', async () => {
    const { user } = await accounts.createUser({ username: 'ivy', password: 'ivy-password' });
    const signIn = (await accounts.signIn('ivy', 'ivy-password'))!;
    const { token } = await accounts.createToken(user.id, 'ci');
    clock += 1_000;
    expect(await accounts.setPassword(user.id, 'new-password')).toBeUndefined();
    expect((await db.accounts.getUser(user.id))!.updatedAt).toBe(at(T0 + 1_000));
    expect(await accounts.authenticateSignIn(signIn.secret)).toBeUndefined();
    expect(await accounts.authenticateToken(token)).toBeUndefined();
    expect(await accounts.listTokens(user.id)).toStrictEqual([]);
    expect(await accounts.signIn('ivy', 'ivy-password')).toBeUndefined();
    expect(await accounts.signIn('ivy', 'new-password')).toBeDefined();
    const generated = (await accounts.setPassword(user.id))!;
    expect(generated).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(await accounts.signIn('ivy', generated)).toBeDefined();
    expect(await errorCode(accounts.setPassword(user.id, 'short'))).toBe('invalid');
    expect(await accounts.signIn('ivy', generated)).toBeDefined();
    expect(await errorCode(accounts.setPassword('usr_none', 'long-enough'))).toBe('not_found');
  });

  it('the user changes their own only with the current one, keeping the sign-in they name and ending the rest', async () => {
    const { user } = await accounts.createUser({ username: 'jack', password: 'jack-password' });
    const here = (await accounts.signIn('jack', 'jack-password'))!;
    const elsewhere = (await accounts.signIn('jack', 'jack-password'))!;
    const { token } = await accounts.createToken(user.id, 'ci');
    const ends = { endOthers: true };
    expect(await accounts.changePassword(user.id, 'wrong-password', 'next-password', ends)).toBe(false);
    expect(await accounts.signIn('jack', 'jack-password')).toBeDefined();
    expect(await accounts.authenticateSignIn(elsewhere.secret)).toBeDefined();
    expect(await errorCode(accounts.changePassword(user.id, 'jack-password', 'short', ends))).toBe('invalid');
    expect(await accounts.signIn('jack', 'jack-password')).toBeDefined();
    expect(await accounts.authenticateToken(token)).toBeDefined();

    const { via } = (await accounts.authenticateSignIn(here.secret))!;
    clock += 2_000;
    expect(await accounts.changePassword(user.id, 'jack-password', 'next-password', { ...ends, keep: via })).toBe(true);
    expect((await db.accounts.getUser(user.id))!.updatedAt).toBe(at(T0 + 2_000));
    expect(await accounts.authenticateSignIn(here.secret)).toBeDefined();
    expect(await accounts.authenticateSignIn(elsewhere.secret)).toBeUndefined();
    expect(await accounts.authenticateToken(token)).toBeUndefined();
    expect(await accounts.signIn('jack', 'jack-password')).toBeUndefined();
    expect(await accounts.signIn('jack', 'next-password')).toBeDefined();
    expect(await errorCode(accounts.changePassword('usr_none', 'a', 'long-enough', ends))).toBe('not_found');
  });

  it('the user may keep every other sign-in and token, or change it with a token, which then stays the only one', async () => {
    const { user } = await accounts.createUser({ username: 'jill', password: 'jill-password' });
    const elsewhere = (await accounts.signIn('jill', 'jill-password'))!;
    const ci = await accounts.createToken(user.id, 'ci');
    const laptop = await accounts.createToken(user.id, 'laptop');
    expect(await accounts.changePassword(user.id, 'jill-password', 'second-password', { endOthers: false })).toBe(true);
    expect(await accounts.authenticateSignIn(elsewhere.secret)).toBeDefined();
    expect(await accounts.authenticateToken(ci.token)).toBeDefined();
    expect(await accounts.authenticateToken(laptop.token)).toBeDefined();

    const { via } = (await accounts.authenticateToken(laptop.token))!;
    expect(await accounts.changePassword(user.id, 'second-password', 'third-password', { endOthers: true, keep: via })).toBe(
      true,
    );
    expect(await accounts.authenticateToken(laptop.token)).toBeDefined();
    expect(await accounts.authenticateToken(ci.token)).toBeUndefined();
    expect(await accounts.authenticateSignIn(elsewhere.secret)).toBeUndefined();
    expect((await accounts.listTokens(user.id)).map((t) => t.name)).toStrictEqual(['laptop']);
  });

  it('a sign-in or token begun by a request that raced a reset is dead: it carries the epoch its user had before', async () => {
    const { user } = await accounts.createUser({ username: 'kit', password: 'kit-password' });
    const signIn = (await accounts.signIn('kit', 'kit-password'))!;
    const { via } = (await accounts.authenticateSignIn(signIn.secret))!;
    // The admin's reset lands between this request's authentication and its token's insert.
    await accounts.setPassword(user.id, 'reset-password');
    const raced = await accounts.createToken(user.id, 'raced', undefined, via.epoch);
    expect(await accounts.authenticateToken(raced.token)).toBeUndefined();
    expect(await accounts.listTokens(user.id)).toStrictEqual([]);
    // A sign-in whose password check began before the reset, stored after it.
    const stale = (await db.accounts.getUser(user.id))!.epoch - 1;
    await db.accounts.createSignIn({
      id: 'sgn_raced',
      userId: user.id,
      secretHash: hashSecret('raced-sign-in'),
      createdAt: at(T0),
      lastSeenAt: at(T0),
      expiresAt: at(T0 + MAX),
      epoch: stale,
    });
    expect(await accounts.authenticateSignIn('raced-sign-in')).toBeUndefined();
    // A re-enabled user's stale credential stays dead as well.
    await accounts.updateUser(user.id, { disabled: true });
    await accounts.updateUser(user.id, { disabled: false });
    expect(await accounts.authenticateSignIn('raced-sign-in')).toBeUndefined();
  });

  it('rehashes a password stored with weaker parameters at the next sign-in, and only then', async () => {
    const { user } = await accounts.createUser({ username: 'kate', password: 'kate-password' });
    const weak = await hashPassword('kate-password', { N: 8, r: 1, p: 1 });
    await db.accounts.updateUser(user.id, { passwordHash: weak, updatedAt: at(T0) });
    expect(await accounts.signIn('kate', 'wrong-password')).toBeUndefined();
    expect((await db.accounts.getUser(user.id))!.passwordHash).toBe(weak);
    clock += 3_000;
    expect(await accounts.signIn('kate', 'kate-password')).toBeDefined();
    const rehashed = (await db.accounts.getUser(user.id))!;
    expect(rehashed.passwordHash).toMatch(/^scrypt\$16\$1\$1\$/);
    expect(rehashed.updatedAt).toBe(at(T0 + 3_000));
    clock += 3_000;
    expect(await accounts.signIn('kate', 'kate-password')).toBeDefined();
    expect((await db.accounts.getUser(user.id))!).toEqual(rehashed);
  });
});

describe('sign-ins', () => {
  it('signs in by name without case; the cookie secret is stored only hashed', async () => {
    const { user } = await accounts.createUser({ username: 'Liam', password: 'liam-password' });
    const signIn = (await accounts.signIn('liam', 'liam-password'))!;
    expect(signIn.user).toEqual(user);
    expect(signIn.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signIn.expiresAt).toBe(at(T0 + MAX));
    const found = (await db.accounts.findSignIn(hashSecret(signIn.secret)))!;
    expect(found.signIn).toMatchObject({
      userId: user.id,
      createdAt: at(T0),
      lastSeenAt: at(T0),
      expiresAt: at(T0 + MAX),
    });
    expect(found.signIn.id).toMatch(/^sgn_[0-9A-Za-z]{20}$/);
    const principal = (await accounts.authenticateSignIn(signIn.secret))!;
    expect(principal).toEqual({ user, via: { kind: 'signIn', id: found.signIn.id, epoch: 0 } });
    expect(await accounts.authenticateSignIn(`${signIn.secret}x`)).toBeUndefined();
    expect(await accounts.signIn('nobody', 'liam-password')).toBeUndefined();
    expect(await accounts.signIn('liam', 'Liam-password')).toBeUndefined();
  });

  it('ends after the idle time without use, counted from the last recorded use', async () => {
    await accounts.createUser({ username: 'mia', password: 'mia-password' });
    const { secret } = (await accounts.signIn('mia', 'mia-password'))!;
    const lastSeen = async () => (await db.accounts.findSignIn(hashSecret(secret)))?.signIn.lastSeenAt;
    // Used within a minute of the last recorded use: not written again.
    clock = T0 + MINUTE - 1;
    expect(await accounts.authenticateSignIn(secret)).toBeDefined();
    expect(await lastSeen()).toBe(at(T0));
    // A minute on, the use is recorded, and the idle time counts from it.
    clock = T0 + MINUTE;
    expect(await accounts.authenticateSignIn(secret)).toBeDefined();
    expect(await lastSeen()).toBe(at(T0 + MINUTE));
    clock = T0 + MINUTE + IDLE - 1;
    expect(await accounts.authenticateSignIn(secret)).toBeDefined();
    clock = T0 + MINUTE + IDLE - 1 + IDLE;
    expect(await accounts.authenticateSignIn(secret)).toBeUndefined();
    // Ended for good: deleted, not merely refused.
    expect(await lastSeen()).toBeUndefined();
  });

  it('ends exactly at the idle limit', async () => {
    await accounts.createUser({ username: 'nina', password: 'nina-password' });
    const { secret } = (await accounts.signIn('nina', 'nina-password'))!;
    clock = T0 + IDLE;
    expect(await accounts.authenticateSignIn(secret)).toBeUndefined();
    expect(await db.accounts.findSignIn(hashSecret(secret))).toBeUndefined();
  });

  it('ends at its absolute expiry however recently it was used', async () => {
    await accounts.createUser({ username: 'omar', password: 'omar-password' });
    const { secret } = (await accounts.signIn('omar', 'omar-password'))!;
    for (clock = T0; clock < T0 + MAX; clock += IDLE / 2) {
      expect(await accounts.authenticateSignIn(secret), at(clock)).toBeDefined();
    }
    clock = T0 + MAX;
    expect(await accounts.authenticateSignIn(secret)).toBeUndefined();
    expect(await db.accounts.findSignIn(hashSecret(secret))).toBeUndefined();
  });

  it('signing out ends that sign-in only', async () => {
    await accounts.createUser({ username: 'pia', password: 'pia-password' });
    const a = (await accounts.signIn('pia', 'pia-password'))!;
    const b = (await accounts.signIn('pia', 'pia-password'))!;
    await accounts.signOut((await accounts.authenticateSignIn(a.secret))!.via.id);
    expect(await accounts.authenticateSignIn(a.secret)).toBeUndefined();
    expect(await accounts.authenticateSignIn(b.secret)).toBeDefined();
  });

  it('a disabled user’s sign-in is refused even if it was left in the store', async () => {
    const { user } = await accounts.createUser({ username: 'quinn', password: 'quinn-password' });
    const { secret } = (await accounts.signIn('quinn', 'quinn-password'))!;
    // Disabled behind the domain's back (another instance, a restore): the check is at use, too.
    await db.accounts.updateUser(user.id, { disabled: true, updatedAt: at(T0) });
    expect(await accounts.authenticateSignIn(secret)).toBeUndefined();
  });
});

describe('API tokens', () => {
  it('creates a token whose secret is returned once and stored hashed; lists them without secrets', async () => {
    const { user } = await accounts.createUser({ username: 'rose', password: 'rose-password' });
    const created = await accounts.createToken(user.id, 'laptop');
    expect(created.token).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
    expect(created).toEqual({
      id: created.id,
      name: 'laptop',
      prefix: created.token.slice(0, TOKEN_PREFIX.length + 4),
      createdAt: at(T0),
      token: created.token,
    });
    expect(created.id).toMatch(/^tok_[0-9A-Za-z]{20}$/);
    const { token: _secret, ...listed } = created;
    // No `lastUsedAt` or `expiresAt` keys at all (not even undefined) until there is a value.
    expect(await accounts.listTokens(user.id)).toStrictEqual([listed]);
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'id', 'name', 'prefix', 'token']);
    expect((await db.accounts.findToken(hashSecret(created.token)))?.token.id).toBe(created.id);
    const principal = await accounts.authenticateToken(created.token);
    expect(principal).toEqual({ user, via: { kind: 'token', id: created.id, epoch: 0 } });
    expect(await errorCode(accounts.createToken('usr_none', 'x'))).toBe('not_found');
  });

  it('refuses a secret without the prefix, an unknown one, a revoked one and one of a disabled user', async () => {
    await accounts.bootstrap({ password: 'admin-password', adopt: 'local' });
    const { user } = await accounts.createUser({ username: 'sam', password: 'sam-password' });
    const { id, token } = await accounts.createToken(user.id, 'ci');
    expect(await accounts.authenticateToken(token.slice(TOKEN_PREFIX.length))).toBeUndefined();
    // The stored hash of a secret without the prefix is never even looked up.
    const bare = 'no-prefix-secret';
    await db.accounts.createToken({
      id: 'tok_bare',
      userId: user.id,
      name: 'bare',
      prefix: 'no-p',
      secretHash: hashSecret(bare),
      createdAt: at(T0),
      epoch: 0,
    });
    expect(await accounts.authenticateToken(bare)).toBeUndefined();
    expect(await accounts.authenticateToken(`${token}x`)).toBeUndefined();
    const other = (await accounts.createUser({ username: 'tara', password: 'tara-password' })).user;
    expect(await accounts.revokeToken(other.id, id)).toBe(false);
    expect(await accounts.authenticateToken(token)).toBeDefined();
    expect(await accounts.revokeToken(user.id, id)).toBe(true);
    expect(await accounts.authenticateToken(token)).toBeUndefined();
    expect(await accounts.revokeToken(user.id, id)).toBe(false);
    const { token: second } = await accounts.createToken(user.id, 'second');
    await accounts.updateUser(user.id, { disabled: true });
    expect(await accounts.authenticateToken(second)).toBeUndefined();
  });

  it('expires after the days given, at the instant', async () => {
    const { user } = await accounts.createUser({ username: 'uma', password: 'uma-password' });
    const created = await accounts.createToken(user.id, 'short-lived', 2);
    expect(created.expiresAt).toBe(at(T0 + 2 * 86_400_000));
    expect((await accounts.listTokens(user.id))[0]!.expiresAt).toBe(created.expiresAt);
    clock = T0 + 2 * 86_400_000 - 1;
    expect(await accounts.authenticateToken(created.token)).toBeDefined();
    clock = T0 + 2 * 86_400_000;
    expect(await accounts.authenticateToken(created.token)).toBeUndefined();
    // Without an expiry it never expires.
    const forever = await accounts.createToken(user.id, 'forever');
    expect(forever.expiresAt).toBeUndefined();
    clock = T0 + 3650 * 86_400_000;
    expect(await accounts.authenticateToken(forever.token)).toBeDefined();
  });

  it('records its last use at most once a minute', async () => {
    const { user } = await accounts.createUser({ username: 'vic', password: 'vic-password' });
    const { token } = await accounts.createToken(user.id, 'ci');
    const lastUsed = async () => (await accounts.listTokens(user.id))[0]!.lastUsedAt;
    expect(await lastUsed()).toBeUndefined();
    clock = T0 + 10;
    await accounts.authenticateToken(token);
    expect(await lastUsed()).toBe(at(T0 + 10));
    clock = T0 + 10 + MINUTE - 1;
    await accounts.authenticateToken(token);
    expect(await lastUsed()).toBe(at(T0 + 10));
    clock = T0 + 10 + MINUTE;
    await accounts.authenticateToken(token);
    expect(await lastUsed()).toBe(at(T0 + 10 + MINUTE));
  });

  it('by default records last use once a minute and reads the real clock', async () => {
    const defaults = new Accounts({ store: db.accounts, signInIdleMs: IDLE, signInMaxMs: MAX, scrypt: SMALL });
    const before = Date.now();
    const { user } = await defaults.createUser({ username: 'zoe', password: 'zoe-password' });
    const created = await defaults.createToken(user.id, 'ci');
    const after = Date.now();
    for (const stamp of [user.createdAt, created.createdAt]) {
      expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(stamp)).toBeLessThanOrEqual(after);
    }
    // The default minute, on the test clock.
    const timed = new Accounts({
      store: db.accounts,
      signInIdleMs: IDLE,
      signInMaxMs: MAX,
      scrypt: SMALL,
      now: () => new Date(clock),
    });
    const lastUsed = async () => (await timed.listTokens(user.id))[0]!.lastUsedAt;
    clock = T0;
    await timed.authenticateToken(created.token);
    expect(await lastUsed()).toBe(at(T0));
    clock = T0 + MINUTE - 1;
    await timed.authenticateToken(created.token);
    expect(await lastUsed()).toBe(at(T0));
    clock = T0 + MINUTE;
    await timed.authenticateToken(created.token);
    expect(await lastUsed()).toBe(at(T0 + MINUTE));
  });
});
