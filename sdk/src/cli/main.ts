/// <reference types="node" />
/**
 * `consilium`: the terminal client, built on the {@link Consilium} facade. Every command reports
 * failures on stderr and exits with a code that says what kind of failure it was (see `EXIT`).
 */
import { readFileSync } from 'node:fs';
import { Consilium } from '../facade/consilium.js';
import { ConsiliumError } from '../facade/errors.js';
import type { DebateEvent, Session } from '../generated/types.gen.js';
import * as wikiModules from '../generated/wiki/index.js';
import {
  canRedraw,
  escapeJson,
  inert,
  jsonLine,
  oneLine,
  type Paint,
  paint,
  slotColour,
  terminalColumns,
  wantsColour,
} from '../terminal/terminal.js';
import { main as wikiCodegen } from '../wiki/codegen/cli.js';
import { query } from '../wiki/query.js';
import { WikiParamError } from '../wiki/types.js';
import { intFlag, onlyFlags, type Parsed, parseArgs, stringFlag, UsageError } from './args.js';
import { configPath, DEFAULT_URL, readConfig, resolveConnection, type SavedConfig, writeConfig } from './config.js';
import { DebateView, renderVerdict } from './debate-view.js';

/** Exit codes: one per kind of failure, so scripts can tell them apart. */
export const EXIT = {
  ok: 0,
  /** The command ran and the answer is no: an invalid wiki query, an unreadable catalogue. */
  failed: 1,
  /** Bad arguments, or a request the server refused as invalid (400, 413, 415, an unknown provider). */
  usage: 2,
  /** No valid token (401) or not allowed (403). */
  auth: 3,
  /** The server failed (a 5xx) or answered outside the contract. */
  server: 4,
  /** The server (or the wiki) could not be reached, or the connection broke. */
  network: 5,
  /** The server refused the request for what it names: not found (404), conflict (409), rate limited (429), any other 4xx. */
  refused: 6,
  /** Ctrl-C. */
  interrupted: 130,
  /** stdout closed before the output was all written (`| head`): stopped quietly, as SIGPIPE (128 + 13) would. */
  closed: 141,
} as const;

export interface Io {
  stdout: {
    write(text: string): void;
    isTTY?: boolean;
    columns?: number;
    /** The stream's `error` event: EPIPE when the reader (`head`) has gone. */
    on?(event: 'error', listener: (error: Error) => void): unknown;
  };
  stderr: { write(text: string): void };
  env: Record<string, string | undefined>;
  readStdin(): Promise<string>;
  /** Calls `handler` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  fetch?: typeof fetch;
}

export const USAGE = `Usage: consilium <command> [options]

Commands:
  login [--token T | --username U [--password-stdin] [--expires-days N]]
                                  Save the server URL and an API token (in ${'$'}CONSILIUM_CONFIG, else
                                  ${'$'}XDG_CONFIG_HOME/consilium/config.json, else ~/.config/consilium/
                                  config.json; mode 0600). With a username, signs in (password from
                                  stdin or CONSILIUM_PASSWORD) and creates a token that expires after
                                  N days (90 by default), revoking the one an earlier login created.
  ask "<question>" [--slot N | --provider NAME]
                                  One model's answer (slot 1 by default).
  debate "<question>" [--rounds N] [--quorum N]
                                  A deep debate, streamed live; then the verdict grouped P0/P1/P2.
                                  Ctrl-C cancels it on the server.
  follow-up <session> "<question>" [--mode single|parallel|deep] [--slot N | --provider NAME]
            [--slots N,N…] [--rounds N] [--quorum N]
                                  Ask again in a finished session's thread (its mode by default; the
                                  panel sees the thread so far); prints the new session once it ends.
  sessions [list] [--q TEXT] [--limit N]
  sessions show <id>
  sessions export <id> [--format md|json]
  sessions cancel <id>            Stop a running session (detached, or started elsewhere) and keep it.
  sessions delete <id>
  wiki build <module> [--<param> <value>…] [--titles T…] [--api URL] [--highlimits]
                                  Validate a wiki query as MediaWiki would and print its URL
                                  (consilium wiki build <module> --help lists its parameters).
  wiki generate --catalogue <file | api.php URL> --out <dir> [options]
                                  Typed builders for a wiki (the same as consilium-wiki generate).

Options (before or after the command):
  --url URL        The server (else CONSILIUM_URL, else the saved one, else http://127.0.0.1:8787)
  --token TOKEN    An API token (else CONSILIUM_TOKEN, else the saved one)
  --json           Machine-readable output (debate: one event per line; follow-up: the session)
  --no-color       No colour (also NO_COLOR=1; colour is only ever used on a terminal)
  -h, --help       This help
  --version        The version

Exit status: 0 ok; 1 failed (an invalid wiki query, an unusable catalogue); 2 usage or a request the
server refused as invalid; 3 authentication (401/403); 4 server error (a 5xx, or an answer outside the
contract); 5 network error (no answer, or the connection broke); 6 refused (not found, conflict, rate
limited: any other 4xx); 130 interrupted (Ctrl-C); 141 stdout closed early (e.g. piped into head).
`;

const BOOLEANS = new Set(['json', 'no-color', 'help', 'version', 'password-stdin', 'highlimits']);
const GLOBAL = ['url', 'token', 'json', 'no-color', 'help', 'version'];
/** Each command's own options, beyond the global ones. */
const OPTIONS: Record<string, readonly string[]> = {
  login: ['username', 'password-stdin', 'expires-days'],
  ask: ['slot', 'provider'],
  debate: ['rounds', 'quorum'],
  'follow-up': ['mode', 'slot', 'provider', 'slots', 'rounds', 'quorum'],
  sessions: ['q', 'limit', 'format'],
};
/** Global options that take a value, for reading them before the command. */
const GLOBAL_VALUES = new Set(['url', 'token']);

export function version(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two folders below the package.json.
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

interface Context {
  io: Io;
  parsed: Parsed;
  paint: Paint;
  json: boolean;
  out(text: string): void;
  /** Aborted when stdout closes (the reader of a pipe has gone): stop writing, stop any debate. */
  closed: AbortSignal;
  consilium(): Consilium;
  /** Set by `consilium()`, for error messages: the server, where its URL came from, the last request. */
  server?: { url: string; from: UrlSource; request?: string };
  /** The session a failure happened in, when one was under way. */
  session?: string;
  /** `login --username`: a 401 means a wrong password, not a missing token. */
  signingIn?: boolean;
}

type UrlSource = 'flag' | 'env' | 'saved' | 'default';

/** The server URL as an http(s) URL, or a usage error saying where the bad one came from. */
export function checkServerUrl(url: string, from: UrlSource, configFile: string): string {
  const where = { flag: '--url', env: 'CONSILIUM_URL', saved: `the URL saved in ${configFile}`, default: 'the default URL' }[
    from
  ];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${where} is not a URL: ${oneLine(url)} (give one like ${DEFAULT_URL})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`${where} must be an http or https URL, not ${oneLine(parsed.protocol)} (e.g. ${DEFAULT_URL})`);
  }
  return url;
}

const urlSource = (flag: string | undefined, env: Io['env'], saved: SavedConfig): UrlSource =>
  flag ? 'flag' : env.CONSILIUM_URL ? 'env' : saved.url ? 'saved' : 'default';

/**
 * Global options given before the command, moved after it so one parser reads them all:
 * `consilium --url U ask hi` is `consilium ask hi --url U`.
 */
export function hoistGlobals(args: readonly string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') {
      leading.push(arg);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') break;
    const name = arg.slice(2).split('=')[0]!;
    if (!GLOBAL.includes(name))
      throw new UsageError(`unknown option: --${name} (before the command only ${GLOBAL.map((g) => `--${g}`).join(', ')})`);
    leading.push(arg);
    if (GLOBAL_VALUES.has(name) && !arg.includes('=')) {
      const value = args[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      leading.push(value);
      i++;
    }
  }
  const [command, ...rest] = args.slice(i);
  return command === undefined ? leading : [command, ...rest, ...leading];
}

/** Runs the client with `args` (without `node` and the script); resolves to the exit status. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  // Every message is inert: arguments echoed back (a module name, a title) may hold escape sequences.
  const err = (colour: Paint) => (text: string) => io.stderr.write(`${colour('red', 'consilium:')} ${inert(text)}\n`);
  let args: string[];
  try {
    args = hoistGlobals(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(paint(false))(`${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const [command, ...rest] = args;
  // The reader of a pipe going away (`| head`) is no error: stop writing and stop quietly.
  const closing = new AbortController();
  io.stdout.on?.('error', () => closing.abort());
  // `wiki generate` hands its arguments to consilium-wiki untouched.
  if (command === 'wiki' && rest[0] === 'generate') {
    return wikiCodegen(rest, {
      stdout: (t) => {
        if (!closing.signal.aborted) io.stdout.write(t);
      },
      stderr: (t) => io.stderr.write(t),
      ...(io.fetch && { fetch: io.fetch }),
    });
  }
  const helpOrVersion = ['--help', '-h', '--version'];
  if (command === undefined || (command.startsWith('-') && !helpOrVersion.includes(command))) {
    err(paint(false))(`missing the command\n\n${USAGE}`);
    return EXIT.usage;
  }
  let parsed: Parsed;
  try {
    const own = OPTIONS[command];
    parsed = command === 'wiki' ? parseWikiArgs(rest) : parseArgs(rest, BOOLEANS, own ? new Set([...GLOBAL, ...own]) : undefined);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(paint(false))(`${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (command === '--version' || parsed.flags.has('version')) {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (command === 'wiki' && parsed.flags.has('help') && parsed.positionals[0] === 'build' && parsed.positionals[1]) {
    try {
      io.stdout.write(wikiModuleHelp(parsed.positionals[1]));
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      err(paint(false))(error.message);
      return EXIT.usage;
    }
  }
  if (command === '--help' || command === '-h' || command === 'help' || parsed.flags.has('help')) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const colours = paint(wantsColour(io.stdout.isTTY, io.env, parsed.flags.has('no-color') ? false : undefined));
  const fail = err(paint(wantsColour(io.stdout.isTTY, io.env, parsed.flags.has('no-color') ? false : undefined)));
  const saved = () => {
    try {
      return readConfig(configPath(io.env));
    } catch (error) {
      throw new UsageError(`cannot read ${configPath(io.env)}: ${(error as Error).message}`);
    }
  };
  const ctx: Context = {
    io,
    parsed,
    paint: colours,
    json: parsed.flags.has('json'),
    closed: closing.signal,
    out: (text) => {
      if (!closing.signal.aborted) io.stdout.write(text);
    },
    consilium: () => {
      const flags = { url: stringFlag(parsed, 'url'), token: stringFlag(parsed, 'token') };
      const config = saved();
      const { url, token } = resolveConnection(flags, io.env, config);
      const from = urlSource(flags.url, io.env, config);
      checkServerUrl(url, from, configPath(io.env));
      const consilium = new Consilium({ baseUrl: url, ...(token && { token }), ...(io.fetch && { fetch: io.fetch }) });
      const server: NonNullable<Context['server']> = { url, from };
      ctx.server = server;
      // The last request, to name the endpoint when an answer breaks the contract.
      consilium.client.interceptors.request.use((request) => {
        server.request = `${request.method} ${new URL(request.url).pathname}`;
        return request;
      });
      return consilium;
    },
  };
  const commands: Record<string, (ctx: Context) => Promise<number>> = {
    login,
    ask,
    debate,
    'follow-up': followUp,
    sessions,
    wiki,
  };
  const run = commands[command];
  if (!run) {
    fail(`unknown command: ${command}\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    const code = await run(ctx);
    return closing.signal.aborted ? EXIT.closed : code;
  } catch (error) {
    if (closing.signal.aborted) return EXIT.closed;
    if (error instanceof UsageError) {
      fail(`${error.message} (see consilium --help)`);
      return EXIT.usage;
    }
    if (error instanceof ConsiliumError) return reportError(error, fail, ctx);
    if (error instanceof WikiParamError) {
      fail(`invalid wiki query: ${oneLine(error.message)} (${error.code})`);
      return EXIT.failed;
    }
    throw error;
  }
}

function reportError(error: ConsiliumError, fail: (text: string) => void, ctx: Context): number {
  const requestId = error.requestId ? ` [request ${error.requestId}]` : '';
  const session = ctx.session ? ` [session ${ctx.session}]` : '';
  const { server } = ctx;
  switch (error.code) {
    case 'aborted':
      fail(`${oneLine(error.message)}${session}`);
      return EXIT.interrupted;
    case 'network_error':
      fail(`${oneLine(error.message)} talking to ${server?.url ?? 'the server'}${session}`);
      if (server?.from === 'default') {
        fail(`no server at the default URL: start one (npm start), or point at yours with \`consilium login --url URL\``);
      }
      if (ctx.session) fail(`the session may still be running: consilium sessions show ${ctx.session}`);
      return EXIT.network;
    case 'invalid_response':
      fail(`${oneLine(error.message)}${server?.request ? ` (${server.request} at ${server.url})` : ''}${requestId}`);
      // A 4xx without a problem document is still a refusal; anything else is the server's fault.
      return error.status !== undefined && error.status >= 400 && error.status < 500 ? EXIT.refused : EXIT.server;
  }
  fail(`${oneLine(error.message)}${requestId}${session}`);
  switch (error.code) {
    case 'unauthorized':
    case 'forbidden':
      fail(
        ctx.signingIn
          ? 'check the username and password'
          : 'sign in with `consilium login`, or pass --token / set CONSILIUM_TOKEN',
      );
      return EXIT.auth;
    case 'validation_failed':
    case 'malformed_body':
    case 'unsupported_media_type':
    case 'payload_too_large':
    case 'unknown_provider':
      return EXIT.usage;
  }
  const status = error.status ?? 500;
  return status >= 400 && status < 500 ? EXIT.refused : EXIT.server;
}

/** The provider of `slot`, checked against the server's slots before asking (a usage error names them). */
async function slotProvider(consilium: Consilium, slot: number): Promise<string> {
  const { slots } = await consilium.providers();
  const found = slots.find((s) => s.slot === slot);
  if (!found) {
    const valid = slots.map((s) => `${s.slot} (${oneLine(s.provider)})`).join(', ');
    throw new UsageError(`no slot ${slot} on this server; its slots are ${valid || 'none'}`);
  }
  return found.provider;
}

function question(ctx: Context): string {
  const [text, ...extra] = ctx.parsed.positionals;
  if (text === undefined || text.trim() === '') throw new UsageError('missing the question, e.g. consilium ask "Why?"');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]} (quote the question)`);
  return text;
}

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

async function login(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'username', 'password-stdin', 'expires-days']);
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
    const signedIn = await Consilium.signIn({ ...options, username, password, tokenName: CLI_TOKEN, expiresInDays });
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
}

async function ask(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'slot', 'provider']);
  const slot = intFlag(ctx.parsed, 'slot', 1, 99);
  const provider = stringFlag(ctx.parsed, 'provider');
  if (slot !== undefined && provider !== undefined) throw new UsageError('give --slot or --provider, not both');
  const text = question(ctx);
  const consilium = ctx.consilium();
  const chosen = slot === undefined ? provider : await slotProvider(consilium, slot);
  const result = await consilium.ask(text, chosen === undefined ? {} : { provider: chosen });
  if (ctx.json) {
    ctx.out(jsonLine(result));
    return EXIT.ok;
  }
  const { answer } = result;
  ctx.out(`${ctx.paint(slotColour(answer.slot), `${answer.slot} ${oneLine(answer.provider)}/${oneLine(answer.model)}`)}\n`);
  ctx.out(`${inert(answer.text).trim()}\n`);
  ctx.out(`${ctx.paint('dim', `session ${result.sessionId} · ${answer.usage.totalTokens} tokens · ${answer.latencyMs} ms`)}\n`);
  return EXIT.ok;
}

async function debate(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'rounds', 'quorum']);
  const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
  const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
  const text = question(ctx);
  const controller = new AbortController();
  const release = ctx.io.onInterrupt(() => controller.abort());
  // Output gone (`| head`): stop the debate on the server too, as Ctrl-C does.
  const stop = () => controller.abort();
  ctx.closed.addEventListener('abort', stop);
  const live = canRedraw(ctx.io.stdout.isTTY, ctx.io.env) && !ctx.json;
  const view = new DebateView({ write: ctx.out, paint: ctx.paint, live, columns: terminalColumns(ctx.io.stdout.columns) });
  let last: DebateEvent | undefined;
  try {
    const events = ctx.consilium().debates.stream(text, {
      ...(rounds !== undefined && { rounds }),
      ...(quorum !== undefined && { quorum }),
      signal: controller.signal,
    });
    for await (const event of events) {
      last = event;
      ctx.session = event.sessionId;
      if (ctx.json) ctx.out(jsonLine(event));
      else view.event(event);
    }
  } catch (error) {
    view.close();
    if (ctx.closed.aborted) return EXIT.closed;
    if (error instanceof ConsiliumError && error.code === 'aborted') {
      ctx.io.stderr.write(`consilium: cancelled${last ? `; session ${last.sessionId} stops on the server` : ''}\n`);
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    release();
    ctx.closed.removeEventListener('abort', stop);
  }
  if (last?.type !== 'session.ended') {
    const session = last ? ` [session ${last.sessionId}; see consilium sessions show ${last.sessionId}]` : '';
    ctx.io.stderr.write(`consilium: the stream ended before the session did${session}\n`);
    return EXIT.network;
  }
  return last.status === 'failed' ? EXIT.server : EXIT.ok;
}

async function followUp(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'mode', 'slot', 'provider', 'slots', 'rounds', 'quorum']);
  const [id, text, ...extra] = ctx.parsed.positionals;
  if (!id) throw new UsageError('follow-up needs a session id, e.g. consilium follow-up ses_… "And then?"');
  if (text === undefined || text.trim() === '')
    throw new UsageError('missing the question, e.g. consilium follow-up ses_… "And then?"');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]} (quote the question)`);
  const mode = stringFlag(ctx.parsed, 'mode');
  if (mode !== undefined && mode !== 'single' && mode !== 'parallel' && mode !== 'deep') {
    throw new UsageError('--mode must be single, parallel or deep');
  }
  const slot = intFlag(ctx.parsed, 'slot', 1, 99);
  const provider = stringFlag(ctx.parsed, 'provider');
  if (slot !== undefined && provider !== undefined) throw new UsageError('give --slot or --provider, not both');
  const slotList = stringFlag(ctx.parsed, 'slots');
  const slots = slotList?.split(',').map((n) => {
    if (!/^\d{1,2}$/.test(n.trim())) throw new UsageError('--slots must be slot numbers separated by commas, e.g. 1,3');
    return Number(n);
  });
  const rounds = intFlag(ctx.parsed, 'rounds', 1, 99);
  const quorum = intFlag(ctx.parsed, 'quorum', 1, 99);
  // Options the chosen mode would not use are mistakes, not silently dropped.
  const unused: Record<string, readonly string[]> = {
    single: ['slots', 'rounds', 'quorum'],
    parallel: ['slot', 'provider', 'rounds', 'quorum'],
    deep: ['slot', 'provider'],
  };
  for (const flag of mode === undefined ? [] : unused[mode]!) {
    if (ctx.parsed.flags.has(flag)) throw new UsageError(`--${flag} does not apply to --mode ${mode}`);
  }
  const controller = new AbortController();
  const release = ctx.io.onInterrupt(() => controller.abort());
  const consilium = ctx.consilium();
  const chosen = slot === undefined ? provider : await slotProvider(consilium, slot);
  let session: Session;
  try {
    session = await consilium.sessions.followUp(id, text, {
      ...(mode !== undefined && { mode }),
      ...(chosen !== undefined && { provider: chosen }),
      ...(slots !== undefined && { slots }),
      ...(rounds !== undefined && { rounds }),
      ...(quorum !== undefined && { quorum }),
      signal: controller.signal,
    });
  } catch (error) {
    if (error instanceof ConsiliumError && error.code === 'aborted') {
      ctx.io.stderr.write(
        `consilium: cancelled; the follow-up of ${oneLine(id)} stops on the server (consilium sessions list shows it)\n`,
      );
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    release();
  }
  if (ctx.json) ctx.out(jsonLine(session));
  else {
    ctx.out(renderSession(session, ctx.paint));
    const thread = session.threadId ? ` · thread ${session.threadId}` : '';
    ctx.out(`${ctx.paint('dim', `follow-up of ${session.parentId ?? id}${thread} · ${session.usage.totalTokens} tokens`)}\n`);
  }
  return session.status === 'failed' ? EXIT.server : EXIT.ok;
}

async function sessions(ctx: Context): Promise<number> {
  const [sub = 'list', id, ...extra] = ctx.parsed.positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const c = () => ctx.consilium();
  const needId = () => {
    if (!id) throw new UsageError(`sessions ${sub} needs a session id`);
    return id;
  };
  switch (sub) {
    case 'list': {
      onlyFlags(ctx.parsed, [...GLOBAL, 'q', 'limit']);
      if (id) throw new UsageError(`unexpected argument: ${id}`);
      const limit = intFlag(ctx.parsed, 'limit', 1, 10_000) ?? 20;
      const q = stringFlag(ctx.parsed, 'q');
      const rows = [];
      for await (const s of c().sessions.list({ ...(q !== undefined && { q }), limit: Math.min(limit, 100) })) {
        rows.push(s);
        if (rows.length >= limit) break;
      }
      if (ctx.json) ctx.out(jsonLine(rows));
      else if (rows.length === 0) ctx.out('No sessions.\n');
      else
        for (const s of rows) {
          ctx.out(
            `${s.id}  ${statusPaint(ctx.paint, s.status)}  ${s.mode.padEnd(9)} ${s.createdAt}  ${oneLine(s.question).slice(0, 60)}\n`,
          );
        }
      return EXIT.ok;
    }
    case 'show': {
      onlyFlags(ctx.parsed, GLOBAL);
      const session = await c().sessions.get(needId());
      if (ctx.json) ctx.out(jsonLine(session));
      else ctx.out(renderSession(session, ctx.paint));
      return EXIT.ok;
    }
    case 'export': {
      onlyFlags(ctx.parsed, [...GLOBAL, 'format']);
      const format = stringFlag(ctx.parsed, 'format') ?? 'md';
      if (format !== 'md' && format !== 'json') throw new UsageError('--format must be md or json');
      const text = await c().sessions.export(needId(), format);
      // JSON keeps its data, with what a terminal would act on escaped (valid JSON either way). Markdown
      // goes to a file or a pager as it is; a terminal gets it inert.
      ctx.out(format === 'json' ? escapeJson(text) : ctx.io.stdout.isTTY ? inert(text) : text);
      return EXIT.ok;
    }
    case 'cancel': {
      onlyFlags(ctx.parsed, GLOBAL);
      const session = await c().sessions.cancel(needId());
      if (ctx.json) ctx.out(jsonLine(session));
      else
        ctx.out(
          `${oneLine(session.id)} ${session.status === 'cancelled' ? 'cancelled' : `had already ended: ${session.status}`}\n`,
        );
      return EXIT.ok;
    }
    case 'delete': {
      onlyFlags(ctx.parsed, GLOBAL);
      await c().sessions.delete(needId());
      ctx.out(ctx.json ? jsonLine({ deleted: id }) : `Deleted ${oneLine(id!)}\n`);
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown sessions command: ${sub} (list, show, export, cancel, delete)`);
  }
}

const statusPaint = (p: Paint, status: string) =>
  p(status === 'completed' ? 'green' : status === 'running' ? 'cyan' : 'yellow', status.padEnd(11));

function renderSession(s: Session, p: Paint): string {
  const out = [`${p('bold', oneLine(s.question))}`, `${s.id} · ${s.mode} · ${statusPaint(p, s.status).trim()} · ${s.createdAt}`];
  for (const round of s.rounds) {
    out.push('', p('bold', `Round ${round.number} · ${round.kind}`));
    for (const a of round.answers) {
      out.push(
        `${p(slotColour(a.slot), `${a.slot} ${oneLine(a.provider)}`)}: ${a.error ? p('red', `failed (${oneLine(a.error.code)})`) : inert(a.text).trim()}`,
      );
    }
  }
  if (s.verdict) out.push('', p('bold', 'Verdict'), renderVerdict(s.verdict, p).trimEnd());
  return `${out.join('\n')}\n`;
}

type WikiBuilder = ((params: object) => unknown) & {
  spec: {
    group: string;
    name: string;
    prefix: string;
    parameters: readonly { name: string; type: string | readonly string[]; multi?: boolean }[];
  };
};

/** The module's builder, or a usage error. */
function wikiModule(name: string): WikiBuilder {
  const mod = (wikiModules as Record<string, unknown>)[name] as WikiBuilder | undefined;
  if (typeof mod !== 'function' || !('spec' in mod)) throw new UsageError(`unknown wiki module: ${oneLine(name)}`);
  return mod;
}

/** `wiki build` options that are the command's own, not the module's parameters. */
const WIKI_OWN = new Set(['api', 'json', 'no-color', 'highlimits', 'help']);
/** The query's page set, for prop modules (each may be given several times). */
const PAGE_SET = new Set(['titles', 'pageids', 'revids']);

/** `consilium wiki build <module> --help`: the module's parameters and what each takes. */
function wikiModuleHelp(name: string): string {
  const mod = wikiModule(name);
  const lines = mod.spec.parameters.map((p) => {
    const type = typeof p.type === 'string' ? p.type : p.type.map((v) => (v === '' ? "''" : v)).join('|');
    const value = p.type === 'boolean' ? '' : p.multi ? ' <value|value…>' : ' <value>';
    // `links`' own `titles` is `--pltitles`: `--titles` is the page set.
    const flag = PAGE_SET.has(p.name) ? `${mod.spec.prefix}${p.name}` : p.name;
    return `${`  --${flag}${value}`.padEnd(34)} ${type}${p.multi ? ' (several: repeat it, or separate by |)' : ''}`;
  });
  return `Usage: consilium wiki build ${name} [--<param> <value>…] [--titles T… | --pageids N… | --revids N…] [--api URL] [--highlimits] [--json]

Parameters of ${mod.spec.group}=${mod.spec.name}, by name or prefixed (--${mod.spec.prefix}${mod.spec.parameters[0]?.name ?? 'name'}); a boolean one takes no value,
a multi-valued one may be given several times:
${lines.join('\n')}
  ${'--titles, --pageids, --revids'.padEnd(33)} the pages (each repeatable): ${mod.spec.group === 'prop' ? 'what a prop module reads' : 'for a prop module'}
`;
}

/**
 * `wiki build <module> --param value…`: the module's parameters are the options. Only a boolean
 * parameter stands alone; any other needs a value (`--prefix` alone is a mistake, not `apprefix=1`).
 */
function parseWikiArgs(args: readonly string[]): Parsed {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  // The module comes right after `build`; without one, only the command's own options are known.
  const moduleName = args[0] === 'build' && args[1] !== undefined && !args[1].startsWith('-') ? args[1] : undefined;
  const params = moduleName === undefined ? undefined : wikiModule(moduleName).spec.parameters;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const given = arg.slice(2, eq > 0 ? eq : undefined);
    // `--titles`, `--pageids`, `--revids` are the page set, kept as `@titles`…; a module's own parameter
    // is `--limit` or, as the API spells it, `--aplimit` (so `links`' own `titles` is `--pltitles`).
    const pages = moduleName !== undefined && PAGE_SET.has(given);
    const prefix = moduleName === undefined ? '' : wikiModule(moduleName).spec.prefix;
    const param = pages
      ? undefined
      : (params?.find((p) => p.name === given && !PAGE_SET.has(p.name)) ??
        (prefix && given.startsWith(prefix) ? params?.find((p) => p.name === given.slice(prefix.length)) : undefined));
    const name = pages ? `@${given}` : (param?.name ?? given);
    if (flags.has(name) && !pages && !param?.multi) throw new UsageError(`--${given} given twice`);
    if (!pages && !WIKI_OWN.has(name) && !param) {
      if (!params) throw new UsageError(`unknown option --${name}`);
      const known = params.map((p) => `--${PAGE_SET.has(p.name) ? prefix : ''}${p.name}`).join(', ');
      throw new UsageError(`${moduleName} has no parameter --${name}; it has ${known} (see --help)`);
    }
    const standsAlone = param ? param.type === 'boolean' : BOOLEANS.has(name);
    if (standsAlone) {
      if (eq > 0) throw new UsageError(`--${given} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) {
      throw new UsageError(
        `--${given} needs a value${param ? ` (${typeof param.type === 'string' ? param.type : param.type.join('|')})` : ''}`,
      );
    }
    if (eq < 0) i++;
    // Several values of a multi-valued parameter (or page set) are joined as MediaWiki's `|` list.
    const before = flags.get(name);
    flags.set(name, typeof before === 'string' ? `${before}|${value}` : value);
  }
  return { positionals, flags };
}

/** `--titles A --titles B` (or `A|B`) as the page set; `--pageids`/`--revids` as numbers. */
function pageSet(key: string, value: string): string[] | number[] {
  const values = value.split('|');
  if (key === 'titles') return values;
  const numbers = values.map(Number);
  const bad = values.find((v, i) => !/^\d+$/.test(v) || !Number.isSafeInteger(numbers[i]));
  if (bad !== undefined)
    throw new UsageError(`--${key} takes page or revision ids (whole numbers), not ${JSON.stringify(oneLine(bad))}`);
  return numbers;
}

async function wiki(ctx: Context): Promise<number> {
  const [sub, name, ...extra] = ctx.parsed.positionals;
  if (sub !== 'build') throw new UsageError(`unknown wiki command: ${sub ?? '(none)'} (build, generate)`);
  if (!name) throw new UsageError('wiki build needs a module, e.g. consilium wiki build allpages --limit 10');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const mod = wikiModule(name);
  const params: Record<string, string | true> = {};
  const pages: Record<string, string[] | number[]> = {};
  for (const [key, value] of ctx.parsed.flags) {
    if (WIKI_OWN.has(key)) continue;
    if (key.startsWith('@')) pages[key.slice(1)] = pageSet(key.slice(1), value as string);
    else params[key] = value;
  }
  const api = stringFlag(ctx.parsed, 'api') ?? 'https://en.wikipedia.org/w/api.php';
  if (!/^https?:\/\//i.test(api)) throw new UsageError('--api must be an http(s) URL of api.php');
  const built = query({ [mod.spec.group]: [mod(params)], ...pages } as Parameters<typeof query>[0], {
    ...(ctx.parsed.flags.has('highlimits') && { apihighlimits: true }),
  });
  const body = built.toString();
  // As WikiClient sends it: after any query string the API URL already has.
  const target = new URL(api);
  if (built.method === 'GET') target.search = target.search ? `${target.search}&${body}` : body;
  const url = target.href;
  if (ctx.json) {
    ctx.out(jsonLine({ method: built.method, url, params: built.params, warnings: built.warnings }));
    return EXIT.ok;
  }
  ctx.out(`${oneLine(built.method === 'GET' ? url : `POST ${url}`)}${built.method === 'GET' ? '' : `\n${oneLine(body)}`}\n`);
  for (const w of built.warnings) {
    ctx.io.stderr.write(
      `${ctx.paint('yellow', 'warning:')} ${oneLine(`${w.code} ${w.param}${w.data ? ` ${JSON.stringify(w.data)}` : ''}`)}\n`,
    );
  }
  return EXIT.ok;
}
