/**
 * `consilium login`: saves the server URL and an API token, given (`--token`) or made by signing in
 * (`--username`), which replaces the one an earlier sign-in made so logins do not pile up live tokens.
 */

import { ConsiliumError } from '../../errors.js';
import { Consilium } from '../../facade/consilium.js';
import { jsonLine, oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { configPath, readConfig, resolveConnection, type SavedConfig, writeConfig } from '../config.js';
import { type Command, checkServerUrl, EXIT, GLOBAL, urlSource } from '../context.js';

/** The name of the tokens `login --username` creates, so a later login knows which ones it may revoke. */
const CLI_TOKEN = 'consilium-cli';
/** Their lifetime unless --expires-days says otherwise: a forgotten config file does not hold a key forever. */
const TOKEN_DAYS = 90;

/** Revokes `token` if `login --username` created it; whether it did. Failures are ignored: the new login stands. */
async function revokeCliToken(options: { baseUrl: string; token: string; fetch?: typeof fetch }): Promise<boolean> {
  try {
    const old = new Consilium(options);
    const mine = (await old.auth.tokens.list()).find((t) => t.name === CLI_TOKEN && options.token.startsWith(t.prefix));
    if (!mine) return false;
    await old.auth.tokens.revoke(mine.id);
    return true;
  } catch {
    return false;
  }
}

/** Its own options, beyond the global ones. */
const OPTIONS = ['username', 'password-stdin', 'expires-days'];

export const login: Command = {
  options: OPTIONS,
  booleans: ['password-stdin'],
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const { io, parsed } = ctx;
    const path = configPath(io.env);
    const previous: SavedConfig = (() => {
      try {
        return readConfig(path);
      } catch {
        return {};
      }
    })();
    const urlFlag = stringFlag(parsed, 'url');
    const url = checkServerUrl(
      resolveConnection({ url: urlFlag }, io.env, previous).url,
      urlSource(urlFlag, io.env, previous),
      path,
    );
    ctx.server = { url, from: urlSource(urlFlag, io.env, previous) };
    const username = stringFlag(parsed, 'username');
    if (username !== undefined && parsed.flags.has('token')) throw new UsageError('give --token or --username, not both');
    if (username === undefined) {
      for (const flag of ['password-stdin', 'expires-days']) {
        if (parsed.flags.has(flag)) throw new UsageError(`--${flag} goes with --username`);
      }
    }
    const expiresInDays = intFlag(parsed, 'expires-days', 1, 3650) ?? TOKEN_DAYS;
    let token = stringFlag(parsed, 'token') ?? (username === undefined ? io.env.CONSILIUM_TOKEN || undefined : undefined);
    const options = { baseUrl: url, ...(io.fetch && { fetch: io.fetch }) };
    let who = '';
    if (username !== undefined) {
      const password = parsed.flags.has('password-stdin')
        ? (await io.readStdin()).replace(/\r?\n$/, '')
        : io.env.CONSILIUM_PASSWORD;
      if (!password) throw new UsageError('give the password on stdin with --password-stdin, or in CONSILIUM_PASSWORD');
      ctx.signingIn = true;
      const signedIn = await Consilium.signIn({
        ...options,
        username,
        password,
        tokenName: CLI_TOKEN,
        expiresInDays,
        keepPrevious: true,
      });
      token = signedIn.token.token;
      who = ` as ${oneLine(username)}`;
      // The token an earlier `login --username` made here is replaced: revoke it (best effort), so logins
      // do not pile up live tokens. A token the user gave with --token is theirs to keep.
      if (previous.token && previous.token !== token && previous.url === url) {
        if (await revokeCliToken({ ...options, token: previous.token })) who += '; revoked the token of the previous login';
      }
    } else if (token === undefined) {
      throw new UsageError('give --token TOKEN (or CONSILIUM_TOKEN), or --username NAME to sign in');
    } else {
      try {
        who = ` as ${oneLine((await new Consilium({ ...options, token }).auth.me()).username)}`;
      } catch (error) {
        // A server without accounts yet cannot check the token; keep it for when it can.
        if (!(error instanceof ConsiliumError && error.code === 'not_implemented')) throw error;
        who = ' (this server cannot check tokens yet)';
      }
    }
    writeConfig(path, { url, token });
    if (ctx.json) ctx.out(jsonLine({ url, config: path }));
    else ctx.out(`Signed in to ${url}${who}; saved to ${path}\n`);
    return EXIT.ok;
  },
};
