/**
 * `npm run users`, spawned for real on the database of a real running server (SQLite in WAL mode):
 * what it issues works over HTTP, what it takes away stops working on the next request, and it
 * refuses what the HTTP API refuses, with the documented exit codes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWith, ROOT } from '../support/process.js';
import { type RunningServer, startServer } from '../support/server.js';

const TSX = join(ROOT, 'node_modules/.bin/tsx');
const ENTRY = join(ROOT, 'server/src/users.ts');

let dataDir: string;
let server: RunningServer;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'consilium-users-'));
  server = await startServer({ CONSILIUM_DATA_DIR: dataDir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command as an operator runs it, on `dir`'s store; `stdin` is piped in when given. */
function users(args: string[], { stdin, dir = dataDir, npm = false }: { stdin?: string; dir?: string; npm?: boolean } = {}) {
  const [command, argv] = npm ? ['npm', ['run', '-s', 'users', '--', ...args]] : [TSX, [ENTRY, ...args]];
  const child = spawn(command as string, argv as string[], { cwd: ROOT, env: envWith(dir, {}), stdio: 'pipe' });
  const result: Result = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    result.stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    result.stderr += d;
  });
  child.stdin.end(stdin ?? '');
  return new Promise<Result>((resolve) => child.once('close', (code) => resolve({ ...result, code })));
}

const login = (username: string, password: string) =>
  fetch(`${server.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
const me = (headers: Record<string, string>) => fetch(`${server.baseUrl}/auth/me`, { headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function cookieOf(username: string, password: string): Promise<Record<string, string>> {
  const res = await login(username, password);
  expect(res.status).toBe(200);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]! };
}

describe('npm run users: usage', { timeout: 120_000 }, () => {
  it('prints help with every command and exits 0, through npm as documented', async () => {
    const res = await users(['--help'], { npm: true });
    expect(res.code).toBe(0);
    for (const c of [
      'add',
      'list',
      'disable',
      'enable',
      'remove',
      'reset-password',
      'token-create',
      'token-list',
      'token-revoke',
    ])
      expect(res.stdout).toContain(`  ${c}`);
  });

  it('answers bad usage with 2 on stderr, before touching any store', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'consilium-users-empty-'));
    try {
      const cases: [string[], RegExp][] = [
        [[], /usage: npm run users/],
        [['frob'], /unknown command "frob"/],
        [['add'], /add: expected 1 argument, got 0/],
        [['disable', 'a', 'b'], /expected 1 argument, got 2/],
        [['list', '--verbose'], /unknown option --verbose/],
        [['token-create', 'bob', 'ci', '--expires-days'], /--expires-days needs a value/],
      ];
      for (const [args, message] of cases) {
        const res = await users(args, { dir: empty });
        expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code: 2, stdout: '' });
        expect(res.stderr).toMatch(message);
      }
      expect(existsSync(join(empty, 'consilium.db'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('refuses bad values with 2 and unknown names with 3', async () => {
    expect(await users(['add', 'carol', '--role', 'root'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/a role is "admin" or "user"/),
    });
    expect(await users(['add', 'bad name'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/A username is/) });
    expect(await users(['add', 'carol', '--password-stdin'], { stdin: 'short\n' })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/8 to 200/),
    });
    expect(await users(['token-create', server.user.username, 'ci', '--expires-days', '0'])).toMatchObject({ code: 2 });
    expect(await users(['disable', 'nobody'])).toMatchObject({ code: 3, stderr: expect.stringMatching(/no user "nobody"/) });
    expect(await users(['token-revoke', 'tok_doesnotexist'])).toMatchObject({ code: 3 });
    expect(await server.accounts.findUser('carol')).toBeUndefined();
  });
});

describe('npm run users: on a running server', { timeout: 120_000 }, () => {
  it('adds users whose passwords sign in, given on stdin or generated and printed once', async () => {
    const given = await users(['add', 'dora', '--password-stdin'], { stdin: 'dora-password-1\n' });
    expect(given).toMatchObject({ code: 0, stderr: '' });
    expect(given.stdout).not.toContain('dora-password-1');
    expect((await login('dora', 'dora-password-1')).status).toBe(200);

    const generated = await users(['add', 'eve', '--role', 'admin']);
    expect(generated.code).toBe(0);
    const password = /password: (\S+)/.exec(generated.stdout)![1]!;
    expect((await login('eve', password)).status).toBe(200);
    expect((await server.accounts.findUser('eve'))!.role).toBe('admin');

    expect(await users(['add', 'DORA'])).toMatchObject({ code: 4, stderr: expect.stringMatching(/taken|exists/i) });

    const list = await users(['list', '--json']);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as { username: string; role: string; disabled: boolean }[];
    expect(rows.map((u) => u.username)).toEqual(expect.arrayContaining(['admin', 'dora', 'eve', server.user.username]));
    expect(rows.find((u) => u.username === 'eve')).toMatchObject({ role: 'admin', disabled: false });
    expect((await users(['list'])).stdout).toMatch(/^USERNAME +ROLE +STATUS/);
  });

  it('issues a token that authenticates, lists it without its secret, and revokes it at once', async () => {
    const created = await users(['token-create', 'dora', 'ci', '--expires-days', '30']);
    expect(created.code).toBe(0);
    const token = /token: (csk_\S+)/.exec(created.stdout)![1]!;
    const res = await me(bearer(token));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ username: 'dora' });

    const listed = await users(['token-list', 'dora', '--json']);
    const [entry] = JSON.parse(listed.stdout) as { id: string; name: string; expiresAt: string }[];
    expect(entry).toMatchObject({ name: 'ci', expiresAt: expect.any(String) });
    expect(listed.stdout).not.toContain(token);

    expect(await users(['token-revoke', entry!.id])).toMatchObject({ code: 0 });
    expect((await me(bearer(token))).status).toBe(401);
    expect(await users(['token-revoke', entry!.id])).toMatchObject({ code: 3 });
  });

  it('shows token names chosen over HTTP with their control characters escaped', async () => {
    const caller = await server.newUser({ username: 'fay' });
    const res = await caller.fetch('/auth/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x\u001b]0;pwned\u0007' }),
    });
    expect(res.status).toBe(201);
    const listed = await users(['token-list', 'fay']);
    expect(listed.stdout).not.toContain('\u001b');
    expect(listed.stdout).toContain('x\\u001b]0;pwned\\u0007');
  });

  it('disable ends an existing sign-in and the tokens at once, for good; enable lets them sign in again', async () => {
    const cookie = await cookieOf('dora', 'dora-password-1');
    const { token } = await server.accounts.createToken((await server.accounts.findUser('dora'))!.id, 'kept');
    expect((await me(cookie)).status).toBe(200);
    expect(await users(['disable', 'dora'])).toMatchObject({ code: 0 });
    expect((await me(cookie)).status).toBe(401);
    expect((await me(bearer(token))).status).toBe(401);
    expect((await login('dora', 'dora-password-1')).status).toBe(401);

    expect(await users(['enable', 'dora'])).toMatchObject({ code: 0 });
    expect((await me(cookie)).status).toBe(401); // an ended sign-in stays ended
    expect((await me(bearer(token))).status).toBe(401); // and so does a revoked token
    expect((await login('dora', 'dora-password-1')).status).toBe(200);
  });

  it('reset-password replaces the password and ends sign-ins and tokens', async () => {
    const cookie = await cookieOf('dora', 'dora-password-1');
    const { token } = await server.accounts.createToken((await server.accounts.findUser('dora'))!.id, 'ended');
    expect((await me(bearer(token))).status).toBe(200);
    expect(await users(['reset-password', 'dora', '--password-stdin'], { stdin: 'dora-password-2' })).toMatchObject({ code: 0 });
    expect((await me(cookie)).status).toBe(401);
    expect((await me(bearer(token))).status).toBe(401);
    expect((await login('dora', 'dora-password-1')).status).toBe(401);
    expect((await login('dora', 'dora-password-2')).status).toBe(200);
  });

  it('keeps an enabled admin: the last one cannot be disabled, demoted or removed', async () => {
    // Only `admin` and `eve` are admins; with eve disabled, admin is the last.
    expect(await users(['disable', 'eve'])).toMatchObject({ code: 0 });
    for (const args of [
      ['disable', 'admin'],
      ['remove', 'admin'],
      ['role', 'admin', 'user'],
    ]) {
      const res = await users(args);
      expect({ args, code: res.code }).toEqual({ args, code: 4 });
      expect(res.stderr).toMatch(/last enabled admin/);
    }
    expect(await server.accounts.findUser('admin')).toMatchObject({ role: 'admin', disabled: false });
    expect((await login('admin', server.adminPassword)).status).toBe(200);

    expect(await users(['enable', 'eve'])).toMatchObject({ code: 0 });
    expect(await users(['role', 'admin', 'user'])).toMatchObject({ code: 0 });
    expect((await server.accounts.findUser('admin'))!.role).toBe('user');
  });

  it('remove deletes the user with their tokens', async () => {
    const { token } = await server.accounts.createToken((await server.accounts.findUser('dora'))!.id, 'gone');
    expect(await users(['remove', 'dora'])).toMatchObject({ code: 0 });
    expect((await me(bearer(token))).status).toBe(401);
    expect(await server.accounts.findUser('dora')).toBeUndefined();
    expect(await users(['remove', 'dora'])).toMatchObject({ code: 3 });
  });
});
