/**
 * The contract every AccountStore keeps, as one vitest suite: SQLite and PostgreSQL call
 * `describeAccountStoreContract` with their own `open`, on storage with no users yet (to see the
 * first user created, and refused once there is one). The accounts live in the same database as the
 * sessions, so the first user can adopt the sessions from before accounts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountError,
  type AccountStore,
  LAST_ADMIN,
  type TokenRecord,
  type UserRecord,
} from '../../server/src/accounts/store.js';
import type { SessionStore } from '../../server/src/sessions/store.js';
import type { Database } from '../../server/src/store/open.js';
import { FakeDebate } from '../support/fake-debate.js';

export function describeAccountStoreContract(name: string, open: () => Promise<Database>, opts?: { skip?: string }): void {
  const suite = opts?.skip ? describe.skip : describe;
  suite(`AccountStore contract: ${name}${opts?.skip ? ` (skipped: ${opts.skip})` : ''}`, () => {
    let database: Database;
    let accounts: AccountStore;
    let sessions: SessionStore;
    const run = randomUUID().slice(0, 8);
    const owner = (label: string) => `usr_${label}_${run}`;

    beforeAll(async () => {
      database = await open();
      accounts = database.accounts;
      sessions = database.sessions;
    });
    afterAll(async () => {
      await database?.close();
    });

    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
    const user = (name: string, minute: number, role: UserRecord['role'] = 'user'): UserRecord => ({
      id: `usr_${name}${run}`,
      username: `${name}-${run}`,
      role,
      passwordHash: `scrypt$16384$8$1$c2FsdA$${name}`,
      disabled: false,
      epoch: 0,
      createdAt: at(minute),
      updatedAt: at(minute),
    });
    const token = (owner: UserRecord, name: string, minute: number, extra: Partial<TokenRecord> = {}): TokenRecord => ({
      id: `tok_${name}${run}`,
      userId: owner.id,
      name,
      prefix: 'csk_abcd',
      secretHash: `${name}-${run}`.padEnd(64, '0'),
      createdAt: at(minute),
      epoch: 0,
      ...extra,
    });
    const admin = user('admin', 0, 'admin');

    it('creates the first user once, who adopts the sessions of the pre-accounts owner', async () => {
      const legacy = owner('local');
      const old = new FakeDebate({ owner: legacy });
      await sessions.write(old.start().step());
      expect(await accounts.countUsers()).toBe(0);
      expect(await accounts.createFirstUser(admin, legacy)).toBe(true);
      expect(await accounts.createFirstUser(user('second', 1, 'admin'), legacy)).toBe(false);
      expect(await accounts.countUsers()).toBe(1);
      expect((await sessions.get(old.session.id))?.owner).toBe(admin.id);
      expect(await sessions.list({ owner: legacy, limit: 10 })).toStrictEqual({ items: [] });
    });

    it('stores users, finds them by name without case, and refuses a taken name', async () => {
      const ada = user('ada', 2);
      await accounts.createUser(ada);
      expect(await accounts.getUser(ada.id)).toStrictEqual(ada);
      expect(await accounts.getUserByName(ada.username.toUpperCase())).toStrictEqual(ada);
      expect(await accounts.getUser('usr_nobody')).toBeUndefined();
      const clash = { ...user('ada', 3), id: `usr_other${run}`, username: ada.username.toUpperCase() };
      const error = await accounts.createUser(clash).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AccountError);
      expect((error as AccountError).code).toBe('conflict');
      expect(await accounts.getUser(clash.id)).toBeUndefined();
      expect((await accounts.listUsers()).map((u) => u.id)).toStrictEqual([admin.id, ada.id]);
    });

    it('updates role, disabled and password hash; deletes a user with their sign-ins and tokens', async () => {
      const bob = user('bob', 4);
      await accounts.createUser(bob);
      expect(await accounts.updateUser(bob.id, { disabled: true, role: 'admin', updatedAt: at(5) })).toBe(true);
      expect(await accounts.getUser(bob.id)).toStrictEqual({ ...bob, disabled: true, role: 'admin', updatedAt: at(5) });
      expect(await accounts.updateUser(bob.id, { passwordHash: 'scrypt$x', updatedAt: at(6) })).toBe(true);
      expect(await accounts.getUser(bob.id)).toMatchObject({ disabled: true, role: 'admin', passwordHash: 'scrypt$x' });
      expect(await accounts.updateUser('usr_nobody', { disabled: true, updatedAt: at(6) })).toBe(false);

      const signIn = {
        id: `sgn_bob${run}`,
        userId: bob.id,
        secretHash: `sb${run}`.padEnd(64, '1'),
        createdAt: at(6),
        lastSeenAt: at(6),
        expiresAt: at(59),
        epoch: 0,
      };
      await accounts.createSignIn(signIn);
      await accounts.createToken(token(bob, 'bobs', 6));
      expect(await accounts.deleteUser(bob.id)).toBe(true);
      expect(await accounts.deleteUser(bob.id)).toBe(false);
      expect(await accounts.findSignIn(signIn.secretHash)).toBeUndefined();
      expect(await accounts.listTokens(bob.id)).toStrictEqual([]);
    });

    it('refuses, in the change itself, to leave no enabled admin: of two admins going at once, one stays', async () => {
      const enabledAdmins = async () =>
        (await accounts.listUsers()).filter((u) => u.role === 'admin' && !u.disabled).map((u) => u.id);
      const cy = user('cy', 7, 'admin');
      const dee = user('dee', 7, 'admin');
      await accounts.createUser(cy);
      await accounts.createUser(dee);
      // With two others, the first admin may step down; then cy and dee are the only enabled admins.
      expect(await accounts.updateUser(admin.id, { role: 'user', updatedAt: at(8) })).toBe(true);
      expect((await enabledAdmins()).sort()).toStrictEqual([cy.id, dee.id].sort());

      for (const [demoteCy, removeDee] of [
        [() => accounts.updateUser(cy.id, { role: 'user', updatedAt: at(9) }), () => accounts.deleteUser(dee.id)],
        [
          () => accounts.updateUser(cy.id, { disabled: true, updatedAt: at(9) }),
          () => accounts.updateUser(dee.id, { disabled: true, updatedAt: at(9) }),
        ],
      ] as const) {
        const outcomes = await Promise.allSettled([demoteCy(), removeDee()]);
        const refused = outcomes.filter((o) => o.status === 'rejected');
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(refused).toHaveLength(1);
        const error = (refused[0] as PromiseRejectedResult).reason as AccountError;
        expect(error).toBeInstanceOf(AccountError);
        expect([error.code, error.message]).toStrictEqual(['conflict', LAST_ADMIN]);
        expect(await enabledAdmins()).toHaveLength(1);
        // Put the two back for the second pair (re-creating dee if the first pair removed her).
        if (!(await accounts.getUser(dee.id))) await accounts.createUser(dee);
        await accounts.updateUser(cy.id, { role: 'admin', disabled: false, updatedAt: at(10) });
        await accounts.updateUser(dee.id, { role: 'admin', disabled: false, updatedAt: at(10) });
        expect(await enabledAdmins()).toHaveLength(2);
      }

      // The last one alone: refused, and nothing of the change stays.
      await accounts.updateUser(cy.id, { disabled: true, updatedAt: at(11) });
      const before = await accounts.getUser(dee.id);
      for (const change of [
        () => accounts.updateUser(dee.id, { role: 'user', passwordHash: 'scrypt$changed', updatedAt: at(12) }),
        () => accounts.deleteUser(dee.id),
      ]) {
        expect(await change().catch((e: AccountError) => [e.code, e.message])).toStrictEqual(['conflict', LAST_ADMIN]);
        expect(await accounts.getUser(dee.id)).toStrictEqual(before);
      }
      // A change that leaves her an enabled admin is fine; so is any change to a user who is not one.
      expect(await accounts.updateUser(dee.id, { passwordHash: 'scrypt$new', updatedAt: at(13) })).toBe(true);
      expect(await accounts.deleteUser(cy.id)).toBe(true);
      // Back as the later tests expect: the first admin an admin again.
      expect(await accounts.updateUser(admin.id, { role: 'admin', updatedAt: at(14) })).toBe(true);
    });

    it('keeps sign-ins by secret hash, touches them, and ends one or all of a user', async () => {
      const carol = user('carol', 7);
      await accounts.createUser(carol);
      const signIn = (n: number) => ({
        id: `sgn_c${n}${run}`,
        userId: carol.id,
        secretHash: `c${n}${run}`.padEnd(64, '2'),
        createdAt: at(7),
        lastSeenAt: at(7),
        expiresAt: at(50),
        epoch: 0,
      });
      const [one, two, three] = [signIn(1), signIn(2), signIn(3)];
      for (const s of [one, two, three]) await accounts.createSignIn(s);
      expect(await accounts.findSignIn(one.secretHash)).toStrictEqual({ signIn: one, user: carol });
      await accounts.touchSignIn(one.id, at(8));
      expect((await accounts.findSignIn(one.secretHash))?.signIn.lastSeenAt).toBe(at(8));
      expect(await accounts.deleteSignIn(two.id)).toBe(true);
      expect(await accounts.deleteSignIn(two.id)).toBe(false);
      expect(await accounts.findSignIn(two.secretHash)).toBeUndefined();
      expect(await accounts.deleteSignInsOf(carol.id, three.id)).toBe(1);
      expect(await accounts.findSignIn(one.secretHash)).toBeUndefined();
      expect(await accounts.findSignIn(three.secretHash)).toBeDefined();
      expect(await accounts.deleteSignInsOf(carol.id)).toBe(1);
      expect(await accounts.findSignIn(three.secretHash)).toBeUndefined();
    });

    it("keeps tokens by secret hash, lists a user's newest first, touches them, and deletes only the owner's", async () => {
      const dave = user('dave', 9);
      const erin = user('erin', 9);
      await accounts.createUser(dave);
      await accounts.createUser(erin);
      // One created with an expiry and a last use (an imported token), one with neither.
      const older = token(dave, 'older', 10, { expiresAt: at(40), lastUsedAt: at(10) });
      const newer = token(dave, 'newer', 11);
      await accounts.createToken(older);
      await accounts.createToken(newer);
      expect(await accounts.listTokens(dave.id)).toStrictEqual([newer, older]);
      expect(await accounts.findToken(older.secretHash)).toStrictEqual({ token: older, user: dave });
      await accounts.touchToken(newer.id, at(12));
      expect(await accounts.findToken(newer.secretHash)).toStrictEqual({
        token: { ...newer, lastUsedAt: at(12) },
        user: dave,
      });
      expect(await accounts.deleteToken(older.id, erin.id)).toBe(false);
      expect(await accounts.deleteToken(older.id, dave.id)).toBe(true);
      expect(await accounts.findToken(older.secretHash)).toBeUndefined();
      expect(await accounts.listTokens(erin.id)).toStrictEqual([]);
    });

    it('ends credentials with a change, in its transaction: raises the epoch, keeps only the one named', async () => {
      const fay = user('fay', 15);
      await accounts.createUser(fay);
      const signIn = (n: number, epoch = 0) => ({
        id: `sgn_f${n}${run}`,
        userId: fay.id,
        secretHash: `f${n}${run}`.padEnd(64, '3'),
        createdAt: at(15),
        lastSeenAt: at(15),
        expiresAt: at(55),
        epoch,
      });
      const [here, there] = [signIn(1), signIn(2)];
      const [ci, laptop] = [token(fay, 'fci', 15), token(fay, 'flaptop', 16)];
      for (const s of [here, there]) await accounts.createSignIn(s);
      for (const t of [ci, laptop]) await accounts.createToken(t);

      // A change without `endCredentials` keeps the epoch and every credential.
      expect(await accounts.updateUser(fay.id, { role: 'admin', updatedAt: at(16) })).toBe(true);
      expect((await accounts.getUser(fay.id))?.epoch).toBe(0);
      expect(await accounts.listTokens(fay.id)).toHaveLength(2);

      // Keeping the sign-in making the change: it moves to the new epoch; the rest go.
      const keep = { kind: 'signIn', id: here.id } as const;
      expect(await accounts.updateUser(fay.id, { passwordHash: 'scrypt$f1', updatedAt: at(17), endCredentials: { keep } })).toBe(
        true,
      );
      expect(await accounts.getUser(fay.id)).toMatchObject({ epoch: 1, passwordHash: 'scrypt$f1', updatedAt: at(17) });
      expect(await accounts.findSignIn(here.secretHash)).toStrictEqual({
        signIn: { ...here, epoch: 1 },
        user: { ...fay, role: 'admin', passwordHash: 'scrypt$f1', updatedAt: at(17), epoch: 1 },
      });
      expect(await accounts.findSignIn(there.secretHash)).toBeUndefined();
      expect(await accounts.listTokens(fay.id)).toStrictEqual([]);

      // Keeping a token, which a stale one (a raced insert of epoch 0) cannot be: stale ones never move up.
      const kept = token(fay, 'fkept', 18, { epoch: 1 });
      const stale = token(fay, 'fstale', 18);
      await accounts.createToken(kept);
      await accounts.createToken(stale);
      await accounts.updateUser(fay.id, { updatedAt: at(19), endCredentials: { keep: { kind: 'token', id: kept.id } } });
      await accounts.updateUser(fay.id, { updatedAt: at(19), endCredentials: { keep: { kind: 'token', id: stale.id } } });
      expect(await accounts.listTokens(fay.id)).toStrictEqual([]);
      await accounts.createToken(kept);
      await accounts.updateUser(fay.id, { updatedAt: at(20), endCredentials: { keep: { kind: 'token', id: kept.id } } });
      expect(await accounts.getUser(fay.id)).toMatchObject({ epoch: 4 });
      expect(await accounts.listTokens(fay.id)).toStrictEqual([]); // kept was of epoch 1, not 3
      const current = token(fay, 'fcurrent', 21, { epoch: 4 });
      await accounts.createToken(current);
      await accounts.updateUser(fay.id, { updatedAt: at(22), endCredentials: { keep: { kind: 'token', id: current.id } } });
      expect(await accounts.listTokens(fay.id)).toStrictEqual([{ ...current, epoch: 5 }]);
      expect(await accounts.findSignIn(here.secretHash)).toBeUndefined();

      // Disabling, with every credential ended.
      await accounts.updateUser(fay.id, { disabled: true, updatedAt: at(23), endCredentials: {} });
      expect(await accounts.getUser(fay.id)).toMatchObject({ epoch: 6, disabled: true });
      expect(await accounts.listTokens(fay.id)).toStrictEqual([]);
      expect(await accounts.updateUser('usr_nobody', { updatedAt: at(23), endCredentials: {} })).toBe(false);
    });
  });
}
