/**
 * `npm run users -- <command>`: operators manage accounts on the configured store, with the same rules
 * as the HTTP API (`Accounts` enforces them). The store is opened by the entry point (`server/src/users.ts`)
 * only once the arguments are valid, so `--help` and usage errors never touch the database.
 */
import type { ApiToken, User } from '../../../sdk/src/generated/types.gen.js';
import type { Accounts } from './accounts.js';
import { AccountError, LOCAL_OWNER, type Role } from './store.js';

/** Exit codes, stable for scripts. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, refused: 4, config: 78 } as const;

export const USAGE = `usage: npm run users -- <command> [options]

commands:
  add <username> [--role admin|user] [--password-stdin]
                                 create a user; without --password-stdin a password is generated and printed once
  list [--json]                  every user, oldest first
  disable <username>             refuse their sign-ins; ends their sign-ins and revokes their tokens for good
  enable <username>              let them sign in again (ended sign-ins and revoked tokens stay so)
  role <username> <admin|user>   change a user's role
  remove <username>              delete a user with their sign-ins and tokens (their sessions stay)
  reset-password <username> [--password-stdin]
                                 set a new password (generated and printed once unless given); ends their
                                 sign-ins and revokes their tokens
  token-create <username> <name> [--expires-days N]
                                 issue an API token; its secret is printed once
  token-list <username> [--json] a user's tokens, newest first (never their secrets)
  token-revoke <tokenId>         revoke a token (tok_…) at once

The store is the configured one (CONSILIUM_DATABASE, else $CONSILIUM_DATA_DIR/consilium.db, else
./data/consilium.db; .env is read); it is safe to use while the server runs.
The last enabled admin cannot be disabled, demoted or removed.
exit codes: 0 done, 1 failed, 2 bad usage or value, 3 no such user or token, 4 refused, 78 bad configuration`;

export interface UsersIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** All of standard input (for --password-stdin). */
  readStdin: () => Promise<string>;
}

interface Command {
  args: number;
  /** Flags it takes, with whether each has a value. */
  flags: Record<string, boolean>;
  run: (accounts: Accounts, positional: string[], flags: Flags, io: UsersIo) => Promise<void>;
}

type Flags = Record<string, string | true>;

/** A refusal to report: its message and exit code. */
class Failure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

const COMMANDS: Record<string, Command> = {
  add: {
    args: 1,
    flags: { role: true, 'password-stdin': false },
    run: async (accounts, [username], flags, io) => {
      const role = roleOf(flags.role ?? 'user');
      // Without an enabled admin nobody could manage users, and the server would not create one any more.
      if (role !== 'admin' && !(await accounts.listUsers()).some((u) => u.role === 'admin' && !u.disabled)) {
        throw new Failure(EXIT.refused, 'there is no enabled admin yet: add one first (--role admin), or start the server once');
      }
      const password = flags['password-stdin'] ? await passwordFrom(io) : undefined;
      const { user, password: generated } = await accounts.createUser({
        username: username!,
        role,
        ...(password !== undefined && { password }),
        // The first admin, added here before the server's first start, takes the sessions from before accounts.
        adopt: LOCAL_OWNER,
      });
      io.out(`added ${user.role} "${user.username}" (${user.id})`);
      if (generated !== undefined) io.out(`password: ${generated}\n  (shown only this once; stored hashed)`);
    },
  },
  list: {
    args: 0,
    flags: { json: false },
    run: async (accounts, _, flags, io) => {
      const users = await accounts.listUsers();
      if (flags.json) return io.out(JSON.stringify(users, null, 2));
      io.out(table(['USERNAME', 'ROLE', 'STATUS', 'CREATED', 'ID'], users.map(userRow)));
    },
  },
  disable: {
    args: 1,
    flags: {},
    run: async (accounts, [username], _, io) => {
      const user = await accounts.updateUser((await userNamed(accounts, username!)).id, { disabled: true });
      io.out(`disabled "${user.username}": their sign-ins ended and their tokens revoked, for good`);
    },
  },
  enable: {
    args: 1,
    flags: {},
    run: async (accounts, [username], _, io) => {
      const user = await accounts.updateUser((await userNamed(accounts, username!)).id, { disabled: false });
      io.out(`enabled "${user.username}"`);
    },
  },
  role: {
    args: 2,
    flags: {},
    run: async (accounts, [username, role], _, io) => {
      const user = await accounts.updateUser((await userNamed(accounts, username!)).id, { role: roleOf(role!) });
      io.out(`"${user.username}" is now ${user.role === 'admin' ? 'an admin' : 'a user'}`);
    },
  },
  remove: {
    args: 1,
    flags: {},
    run: async (accounts, [username], _, io) => {
      const user = await userNamed(accounts, username!);
      await accounts.deleteUser(user.id);
      io.out(`removed "${user.username}" with their sign-ins and tokens`);
    },
  },
  'reset-password': {
    args: 1,
    flags: { 'password-stdin': false },
    run: async (accounts, [username], flags, io) => {
      const user = await userNamed(accounts, username!);
      const password = flags['password-stdin'] ? await passwordFrom(io) : undefined;
      const generated = await accounts.setPassword(user.id, password);
      io.out(`reset the password of "${user.username}"; their sign-ins ended and their tokens revoked`);
      if (generated !== undefined) io.out(`password: ${generated}\n  (shown only this once; stored hashed)`);
    },
  },
  'token-create': {
    args: 2,
    flags: { 'expires-days': true },
    run: async (accounts, [username, name], flags, io) => {
      const user = await userNamed(accounts, username!);
      // The same bounds as POST /auth/tokens.
      if (name!.length < 1 || name!.length > 100 || printable(name!) !== name) {
        throw new Failure(EXIT.usage, 'a token name is 1 to 100 printable characters');
      }
      let days: number | undefined;
      if (flags['expires-days'] !== undefined) {
        days = Number(flags['expires-days']);
        if (!/^\d+$/.test(String(flags['expires-days'])) || days < 1 || days > 3650) {
          throw new Failure(EXIT.usage, '--expires-days is a whole number of days from 1 to 3650');
        }
      }
      const token = await accounts.createToken(user.id, name!, days);
      io.out(
        `issued token ${token.id} "${token.name}" for "${user.username}"${token.expiresAt ? `, expires ${token.expiresAt}` : ''}`,
      );
      io.out(`token: ${token.token}\n  (shown only this once; send it as "Authorization: Bearer <token>")`);
    },
  },
  'token-list': {
    args: 1,
    flags: { json: false },
    run: async (accounts, [username], flags, io) => {
      const tokens = await accounts.listTokens((await userNamed(accounts, username!)).id);
      if (flags.json) return io.out(JSON.stringify(tokens, null, 2));
      io.out(table(['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'EXPIRES'], tokens.map(tokenRow)));
    },
  },
  'token-revoke': {
    args: 1,
    flags: {},
    run: async (accounts, [tokenId], _, io) => {
      // Tokens are found through their user; an operator's store holds few enough users for this.
      for (const user of await accounts.listUsers()) {
        if (!(await accounts.listTokens(user.id)).some((t) => t.id === tokenId)) continue;
        if (await accounts.revokeToken(user.id, tokenId!)) {
          io.out(`revoked token ${tokenId} of "${user.username}"`);
          return;
        }
      }
      throw new Failure(EXIT.notFound, `no token ${printable(tokenId!)}`);
    },
  },
};

/** Runs one command; returns the exit code. `open` is called only for a well-formed command. */
export async function usersCli(args: readonly string[], open: () => Promise<Accounts>, io: UsersIo): Promise<number> {
  const words = args[0] === '--' ? args.slice(1) : [...args];
  if (words.length === 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  if (words.includes('-h') || words.includes('--help') || words[0] === 'help') {
    io.out(USAGE);
    return EXIT.ok;
  }
  const [name, ...rest] = words;
  const command = Object.hasOwn(COMMANDS, name!) ? COMMANDS[name!] : undefined;
  if (!command) return usage(io, `unknown command ${JSON.stringify(printable(name!))}`);
  const parsed = parse(rest, command);
  if (typeof parsed === 'string') return usage(io, `${name}: ${parsed}`);
  let accounts: Accounts;
  try {
    accounts = await open();
  } catch (error) {
    if (error instanceof Failure) {
      io.err(`users: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
  try {
    await command.run(accounts, parsed.positional, parsed.flags, io);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof Failure) {
      io.err(`users: ${name}: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof AccountError) {
      io.err(`users: ${name}: ${error.message}`);
      return { not_found: EXIT.notFound, conflict: EXIT.refused, invalid: EXIT.usage }[error.code];
    }
    io.err(`users: ${name} failed: ${(error as Error).message}`);
    return EXIT.failed;
  }
}

/** A failure the entry point reports with its own exit code (bad configuration, a store that will not open). */
export function openFailure(exitCode: number, message: string): Error {
  return new Failure(exitCode, message);
}

function usage(io: UsersIo, message: string): number {
  io.err(`users: ${message}`);
  io.err('run "npm run users -- --help" for the commands');
  return EXIT.usage;
}

function parse(words: string[], command: Command): { positional: string[]; flags: Flags } | string {
  const positional: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('--') || word === '--') {
      if (word !== '--') positional.push(word);
      continue;
    }
    const [flag, inline] = word.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (!Object.hasOwn(command.flags, flag)) return `unknown option --${printable(flag)}`;
    if (command.flags[flag]) {
      const value = inline ?? words[++i];
      if (value === undefined) return `--${flag} needs a value`;
      flags[flag] = value;
    } else {
      if (inline !== undefined) return `--${flag} takes no value`;
      flags[flag] = true;
    }
  }
  if (positional.length !== command.args) {
    return `expected ${command.args} argument${command.args === 1 ? '' : 's'}, got ${positional.length}`;
  }
  return { positional, flags };
}

function roleOf(value: string | true): Role {
  if (value === 'admin' || value === 'user') return value;
  throw new Failure(EXIT.usage, `a role is "admin" or "user", not ${JSON.stringify(printable(String(value)))}`);
}

async function userNamed(accounts: Accounts, username: string): Promise<User> {
  const user = await accounts.findUser(username);
  if (!user) throw new Failure(EXIT.notFound, `no user ${JSON.stringify(printable(username))}`);
  return user;
}

/** The password on standard input, without the line end `echo` or a here-string adds. */
async function passwordFrom(io: UsersIo): Promise<string> {
  const text = (await io.readStdin()).replace(/\r?\n$/, '');
  if (text === '') throw new Failure(EXIT.usage, '--password-stdin: standard input was empty');
  return text;
}

/** Text someone else chose (token names), made safe for a terminal: control characters escaped. */
export function printable(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    const control =
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

function userRow(user: User): string[] {
  return [user.username, user.role, user.disabled ? 'disabled' : 'enabled', user.createdAt, user.id];
}

function tokenRow(token: ApiToken): string[] {
  return [token.id, printable(token.name), token.prefix, token.createdAt, token.lastUsedAt ?? '-', token.expiresAt ?? 'never'];
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
