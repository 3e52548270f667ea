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
import { main as wikiCodegen } from '../wiki/codegen/cli.js';
import { query } from '../wiki/query.js';
import { WikiParamError } from '../wiki/types.js';
import { intFlag, onlyFlags, type Parsed, parseArgs, stringFlag, UsageError } from './args.js';
import { configPath, readConfig, resolveConnection, writeConfig } from './config.js';
import { DebateView, renderVerdict } from './debate-view.js';
import { inert, oneLine, type Paint, paint, slotColour, wantsColour } from './terminal.js';

/** Exit codes: one per kind of failure, so scripts can tell them apart. */
export const EXIT = {
  ok: 0,
  /** The command ran and the answer is no: an invalid wiki query, an unreadable catalogue. */
  failed: 1,
  /** Bad arguments, or a request the server refused as invalid (400). */
  usage: 2,
  /** No valid token (401) or not allowed (403). */
  auth: 3,
  /** The server failed or answered outside the contract. */
  server: 4,
  /** The server could not be reached. */
  network: 5,
  /** Ctrl-C. */
  interrupted: 130,
} as const;

export interface Io {
  stdout: { write(text: string): void; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): void };
  env: Record<string, string | undefined>;
  readStdin(): Promise<string>;
  /** Calls `handler` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  fetch?: typeof fetch;
}

export const USAGE = `Usage: consilium <command> [options]

Commands:
  login [--token T | --username U [--password-stdin]]
                                  Save the server URL and an API token (in ${'$'}CONSILIUM_CONFIG or
                                  ~/.config/consilium/config.json, mode 0600). With a username, signs
                                  in (password from stdin or CONSILIUM_PASSWORD) and creates a token.
  ask "<question>" [--slot N | --provider NAME]
                                  One model's answer (slot 1 by default).
  debate "<question>" [--rounds N] [--quorum N]
                                  A deep debate, streamed live; then the verdict grouped P0/P1/P2.
                                  Ctrl-C cancels it on the server.
  sessions [list] [--q TEXT] [--limit N]
  sessions show <id>
  sessions export <id> [--format md|json]
  sessions delete <id>
  wiki build <module> [--<param> <value>…] [--api URL] [--highlimits]
                                  Validate a wiki query as MediaWiki would and print its URL.
  wiki generate --catalogue <file | api.php URL> --out <dir> [options]
                                  Typed builders for a wiki (the same as consilium-wiki generate).

Options:
  --url URL        The server (else CONSILIUM_URL, else the saved one, else http://127.0.0.1:8787)
  --token TOKEN    An API token (else CONSILIUM_TOKEN, else the saved one)
  --json           Machine-readable output (debate: one event per line)
  --no-color       No colour (also NO_COLOR=1; colour is only ever used on a terminal)
  -h, --help       This help
  --version        The version

Exit status: 0 ok, 1 failed (invalid wiki query), 2 usage or invalid request, 3 authentication,
4 server error, 5 network error, 130 interrupted.
`;

const BOOLEANS = new Set(['json', 'no-color', 'help', 'version', 'password-stdin', 'highlimits']);
const GLOBAL = ['url', 'token', 'json', 'no-color', 'help', 'version'];

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
  consilium(): Consilium;
}

/** Runs the client with `args` (without `node` and the script); resolves to the exit status. */
export async function main(args: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = args;
  // `wiki generate` hands its arguments to consilium-wiki untouched.
  if (command === 'wiki' && rest[0] === 'generate') {
    return wikiCodegen(rest, {
      stdout: (t) => io.stdout.write(t),
      stderr: (t) => io.stderr.write(t),
      ...(io.fetch && { fetch: io.fetch }),
    });
  }
  const err = (colour: Paint) => (text: string) => io.stderr.write(`${colour('red', 'consilium:')} ${text}\n`);
  let parsed: Parsed;
  try {
    parsed = command === 'wiki' ? parseWikiArgs(rest) : parseArgs(rest, BOOLEANS);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(paint(false))(`${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (command === '--version' || parsed.flags.has('version')) {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help' || parsed.flags.has('help')) {
    io.stdout.write(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
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
    out: (text) => io.stdout.write(text),
    consilium: () => {
      const { url, token } = resolveConnection(
        { url: stringFlag(parsed, 'url'), token: stringFlag(parsed, 'token') },
        io.env,
        saved(),
      );
      return new Consilium({ baseUrl: url, ...(token && { token }), ...(io.fetch && { fetch: io.fetch }) });
    },
  };
  const commands: Record<string, (ctx: Context) => Promise<number>> = { login, ask, debate, sessions, wiki };
  const run = commands[command];
  if (!run) {
    fail(`unknown command: ${command}\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    return await run(ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      fail(`${error.message} (see consilium --help)`);
      return EXIT.usage;
    }
    if (error instanceof ConsiliumError) return reportError(error, fail);
    if (error instanceof WikiParamError) {
      fail(`invalid wiki query: ${error.message} (${error.code})`);
      return EXIT.failed;
    }
    throw error;
  }
}

function reportError(error: ConsiliumError, fail: (text: string) => void): number {
  const requestId = error.requestId ? ` [request ${error.requestId}]` : '';
  fail(`${oneLine(error.message)}${requestId}`);
  switch (error.code) {
    case 'aborted':
      return EXIT.interrupted;
    case 'network_error':
      return EXIT.network;
    case 'unauthorized':
    case 'forbidden':
      fail('sign in with `consilium login`, or pass --token / set CONSILIUM_TOKEN');
      return EXIT.auth;
    case 'validation_failed':
    case 'malformed_body':
    case 'unsupported_media_type':
    case 'payload_too_large':
      return EXIT.usage;
    default:
      return EXIT.server;
  }
}

function question(ctx: Context): string {
  const [text, ...extra] = ctx.parsed.positionals;
  if (text === undefined || text.trim() === '') throw new UsageError('missing the question, e.g. consilium ask "Why?"');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]} (quote the question)`);
  return text;
}

async function login(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'username', 'password-stdin']);
  const { io, parsed } = ctx;
  const path = configPath(io.env);
  const previous = (() => {
    try {
      return readConfig(path);
    } catch {
      return {};
    }
  })();
  const url = resolveConnection({ url: stringFlag(parsed, 'url') }, io.env, previous).url;
  const username = stringFlag(parsed, 'username');
  let token = stringFlag(parsed, 'token') ?? (username === undefined ? io.env.CONSILIUM_TOKEN || undefined : undefined);
  const options = { baseUrl: url, ...(io.fetch && { fetch: io.fetch }) };
  let who = '';
  if (username !== undefined) {
    const password = parsed.flags.has('password-stdin')
      ? (await io.readStdin()).replace(/\r?\n$/, '')
      : io.env.CONSILIUM_PASSWORD;
    if (!password) throw new UsageError('give the password on stdin with --password-stdin, or in CONSILIUM_PASSWORD');
    const signedIn = await Consilium.signIn({ ...options, username, password, tokenName: 'consilium-cli' });
    token = signedIn.token.token;
    who = ` as ${oneLine(username)}`;
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
  if (ctx.json) ctx.out(`${JSON.stringify({ url, config: path })}\n`);
  else ctx.out(`Signed in to ${url}${who}; saved to ${path}\n`);
  return EXIT.ok;
}

async function ask(ctx: Context): Promise<number> {
  onlyFlags(ctx.parsed, [...GLOBAL, 'slot', 'provider']);
  const slot = intFlag(ctx.parsed, 'slot', 1, 99);
  const provider = stringFlag(ctx.parsed, 'provider');
  if (slot !== undefined && provider !== undefined) throw new UsageError('give --slot or --provider, not both');
  const result = await ctx
    .consilium()
    .ask(question(ctx), { ...(slot !== undefined && { slot }), ...(provider !== undefined && { provider }) });
  if (ctx.json) {
    ctx.out(`${JSON.stringify(result)}\n`);
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
  const live = Boolean(ctx.io.stdout.isTTY) && !ctx.json;
  const view = new DebateView({ write: ctx.out, paint: ctx.paint, live, columns: ctx.io.stdout.columns ?? 80 });
  let last: DebateEvent | undefined;
  try {
    const events = ctx.consilium().debates.stream(text, {
      ...(rounds !== undefined && { rounds }),
      ...(quorum !== undefined && { quorum }),
      signal: controller.signal,
    });
    for await (const event of events) {
      last = event;
      if (ctx.json) ctx.out(`${JSON.stringify(event)}\n`);
      else view.event(event);
    }
  } catch (error) {
    view.close();
    if (error instanceof ConsiliumError && error.code === 'aborted') {
      ctx.io.stderr.write(`consilium: cancelled${last ? `; session ${last.sessionId} stops on the server` : ''}\n`);
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    release();
  }
  if (last?.type !== 'session.ended') {
    ctx.io.stderr.write('consilium: the stream ended before the session did\n');
    return EXIT.network;
  }
  return last.status === 'failed' ? EXIT.server : EXIT.ok;
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
      if (ctx.json) ctx.out(`${JSON.stringify(rows)}\n`);
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
      if (ctx.json) ctx.out(`${JSON.stringify(session)}\n`);
      else ctx.out(renderSession(session, ctx.paint));
      return EXIT.ok;
    }
    case 'export': {
      onlyFlags(ctx.parsed, [...GLOBAL, 'format']);
      const format = stringFlag(ctx.parsed, 'format') ?? 'md';
      if (format !== 'md' && format !== 'json') throw new UsageError('--format must be md or json');
      const text = await c().sessions.export(needId(), format);
      // Markdown goes to a file or a pager; a terminal still gets it inert.
      ctx.out(ctx.io.stdout.isTTY ? inert(text) : text);
      return EXIT.ok;
    }
    case 'delete': {
      onlyFlags(ctx.parsed, GLOBAL);
      await c().sessions.delete(needId());
      ctx.out(ctx.json ? `${JSON.stringify({ deleted: id })}\n` : `Deleted ${id}\n`);
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown sessions command: ${sub} (list, show, export, delete)`);
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

/** `wiki build <module> --param value…`: any `--name` is a parameter; a flag without a value is `true`. */
function parseWikiArgs(args: readonly string[]): Parsed {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') flags.set('help', true);
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq > 0 ? eq : undefined);
      if (flags.has(name)) throw new UsageError(`--${name} given twice`);
      const next = args[i + 1];
      if (eq > 0) flags.set(name, arg.slice(eq + 1));
      else if (BOOLEANS.has(name) || next === undefined || next.startsWith('--')) flags.set(name, true);
      else flags.set(name, args[++i]!);
    } else positionals.push(arg);
  }
  return { positionals, flags };
}

async function wiki(ctx: Context): Promise<number> {
  const [sub, name, ...extra] = ctx.parsed.positionals;
  if (sub !== 'build') throw new UsageError(`unknown wiki command: ${sub ?? '(none)'} (build, generate)`);
  if (!name) throw new UsageError('wiki build needs a module, e.g. consilium wiki build allpages --limit 10');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const mod = (wikiModules as Record<string, unknown>)[name] as
    | (((params: object) => unknown) & { spec: { group: string; name: string; parameters: readonly { name: string }[] } })
    | undefined;
  if (typeof mod !== 'function' || !('spec' in mod)) throw new UsageError(`unknown wiki module: ${name}`);
  const own = new Set(['api', 'json', 'no-color', 'highlimits', 'help']);
  const known = new Set(mod.spec.parameters.map((p) => p.name));
  const params: Record<string, string | true> = {};
  for (const [key, value] of ctx.parsed.flags) {
    if (own.has(key)) continue;
    if (!known.has(key)) {
      throw new UsageError(`${name} has no parameter --${key}; it has ${[...known].map((k) => `--${k}`).join(', ')}`);
    }
    params[key] = value;
  }
  const api = stringFlag(ctx.parsed, 'api') ?? 'https://en.wikipedia.org/w/api.php';
  if (!/^https?:\/\//i.test(api)) throw new UsageError('--api must be an http(s) URL of api.php');
  const built = query({ [mod.spec.group]: [mod(params)] } as Parameters<typeof query>[0], {
    ...(ctx.parsed.flags.has('highlimits') && { apihighlimits: true }),
  });
  const body = built.toString();
  const url = built.method === 'GET' ? `${api}?${body}` : api;
  if (ctx.json) {
    ctx.out(`${JSON.stringify({ method: built.method, url, params: built.params, warnings: built.warnings })}\n`);
    return EXIT.ok;
  }
  ctx.out(`${built.method === 'GET' ? url : `POST ${url}\n${body}`}\n`);
  for (const w of built.warnings) {
    ctx.io.stderr.write(`${ctx.paint('yellow', 'warning:')} ${w.code} ${w.param}${w.data ? ` ${JSON.stringify(w.data)}` : ''}\n`);
  }
  return EXIT.ok;
}
