/** The users CLI in-process on a real SQLite store: parsing, the empty store, terminal-safe output. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeDebate } from '../../../test/support/fake-debate.js';
import { SqliteDatabase } from '../store/sqlite/database.js';
import { EXIT, printable, usersCli } from './cli.js';
import { openAccounts } from './open.js';
import { LOCAL_OWNER } from './store.js';

const FAST = { N: 2 ** 10, r: 8, p: 1 };
let dir: string;
let db: SqliteDatabase;
let opened: number;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-cli-'));
  db = await SqliteDatabase.open(join(dir, 'db.sqlite'));
  opened = 0;
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], stdin = '') {
  const out: string[] = [];
  const err: string[] = [];
  const accounts = openAccounts(db.accounts, { signInIdleMinutes: 60, signInMaxHours: 24 }, FAST);
  const code = await usersCli(
    args,
    async () => {
      opened++;
      return accounts;
    },
    { out: (l) => out.push(l), err: (l) => err.push(l), readStdin: async () => stdin },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('usersCli', () => {
  it('opens no store for help or bad usage', async () => {
    expect((await run(['--help'])).code).toBe(EXIT.ok);
    expect((await run(['add', '--role'])).code).toBe(EXIT.usage);
    expect((await run(['list', '--json=yes'])).err).toMatch(/--json takes no value/);
    expect((await run(['toString'])).err).toMatch(/unknown command/);
    expect(opened).toBe(0);
  });

  it('takes a leading "--" and --flag=value', async () => {
    expect((await run(['--', 'add', 'root', '--role=admin'], 'root-password\n')).code).toBe(EXIT.ok);
    expect((await db.accounts.getUserByName('root'))?.role).toBe('admin');
  });

  it('on a store without an enabled admin, refuses a plain user first', async () => {
    const refused = await run(['add', 'bob']);
    expect(refused).toMatchObject({ code: EXIT.refused, err: expect.stringMatching(/no enabled admin yet/) });
    expect(await db.accounts.countUsers()).toBe(0);
    expect((await run(['add', 'root', '--role', 'admin'])).code).toBe(EXIT.ok);
    expect((await run(['add', 'bob'])).code).toBe(EXIT.ok);
  });

  it('makes the first admin added to an empty store its first user: it takes the sessions from before accounts', async () => {
    const before = new FakeDebate({ owner: LOCAL_OWNER });
    await db.sessions.write(before.start().step());
    expect((await run(['add', 'root', '--role', 'admin'])).code).toBe(EXIT.ok);
    const root = (await db.accounts.getUserByName('root'))!;
    expect((await db.sessions.get(before.session.id))?.owner).toBe(root.id);
    // Only the first: a later admin takes nothing (here, a session left with the old owner by hand).
    const later = new FakeDebate({ owner: LOCAL_OWNER });
    await db.sessions.write(later.start().step());
    expect((await run(['add', 'ruth', '--role', 'admin'])).code).toBe(EXIT.ok);
    expect((await db.sessions.get(later.session.id))?.owner).toBe(LOCAL_OWNER);
    expect((await db.accounts.listUsers()).map((u) => u.username)).toStrictEqual(['root', 'ruth']);
  });

  it('reads a password from stdin without its line end, and refuses an empty one', async () => {
    expect(await run(['add', 'root', '--role', 'admin', '--password-stdin'], '')).toMatchObject({ code: EXIT.usage });
    expect((await run(['add', 'root', '--role', 'admin', '--password-stdin'], 'pass word 1\r\n')).code).toBe(EXIT.ok);
    const accounts = openAccounts(db.accounts, { signInIdleMinutes: 60, signInMaxHours: 24 }, FAST);
    expect(await accounts.signIn('root', 'pass word 1')).toBeDefined();
  });
});

describe('printable', () => {
  it('escapes control, bidi and line-separator characters and keeps the rest', () => {
    expect(printable('ci\u001b[2J\u0007 \u202e\u2028é🙂')).toBe('ci\\u001b[2J\\u0007 \\u202e\\u2028é🙂');
  });
});
