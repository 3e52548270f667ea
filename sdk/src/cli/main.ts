/// <reference types="node" />
/**
 * `consilium`: the terminal client, built on the {@link Consilium} facade. This file reads the
 * arguments, builds each command's context (io, colours, the server) and turns failures into a
 * message on stderr and an exit code that says what kind of failure it was (`EXIT`); each command
 * lives in `commands/`, with its options.
 */
import { readFileSync } from 'node:fs';
import { ConsiliumError } from '../errors.js';
import { Consilium } from '../facade/consilium.js';
import { inert, oneLine, type Paint, paint, paintOptions, wantsColour } from '../terminal/terminal.js';
import { UsageError } from '../terminal/usage.js';
import { WikiParamError } from '../wiki/types.js';
import { type Parsed, parseArgs, stringFlag } from './args.js';
import { ask } from './commands/ask.js';
import { continueRun } from './commands/continue.js';
import { debate } from './commands/debate.js';
import { evaluate } from './commands/eval.js';
import { followUp } from './commands/follow-up.js';
import { login } from './commands/login.js';
import { mcp } from './commands/mcp.js';
import { parallel } from './commands/parallel.js';
import { sessions } from './commands/sessions.js';
import { synthesize } from './commands/synthesize.js';
import { wiki, generate as wikiGenerate } from './commands/wiki.js';
import { configPath, readConfig, resolveConnection } from './config.js';
import { type Command, type Context, checkServerUrl, EXIT, GLOBAL, type Io, urlSource } from './context.js';
import { didYouMean } from './suggest.js';

export const USAGE = `Usage: consilium <command> [options]

Commands:
  login [--token T | --username U [--password-stdin] [--expires-days N]]
                                  Save the server URL and an API token (in ${'$'}CONSILIUM_CONFIG, else
                                  ${'$'}XDG_CONFIG_HOME/consilium/config.json, else ~/.config/consilium/
                                  config.json; mode 0600). With a username, signs in (password from
                                  stdin or CONSILIUM_PASSWORD) and creates a token that expires after
                                  N days (90 by default), revoking the one an earlier login created.
  ask "<question>" [--slot N | --provider NAME] [--wiki SOURCE]
                                  One model's answer (slot 1 by default); --wiki as for debate.
  debate "<question>" [--rounds N] [--quorum N] [--full] [--slots N,N…] [--synthesizer N] [--ranking]
         [--named] [--models N=MODEL,…] [--wiki SOURCE] [--strategy debate|adaptive] [--agreement X]
         [--max-tokens N] [--max-cost USD] [--estimate]
                                  A deep debate, streamed live; then the consensus (each statement with
                                  the slots that hold it) and the verdict grouped P0/P1/P2. --full prints
                                  every answer in full as it is written. --slots: the panel (two or
                                  more); --synthesizer: who writes the verdict; --ranking: each model
                                  ranks the others' answers; --named: peers quoted by slot, not
                                  anonymously; --models: a slot's model from its allowed list. --wiki:
                                  grounded in that wiki source of the server's; its sources and
                                  unverified citations follow the verdict. Ctrl-C cancels it on the
                                  server. The integrity report follows: the round-1 vote beside the
                                  verdict, each slot's move and the flags. --strategy adaptive: stop
                                  after round 1 when its answers agree (--agreement: the share that
                                  must, 1 by default). --max-tokens, --max-cost: the budget; a run
                                  whose estimate exceeds it says so before it starts. --estimate:
                                  print what it would cost (per slot) and run nothing.
  parallel "<question>" [--slots N,N…] [--full] [--wiki SOURCE]
                                  Every slot (or those listed) answers once, side by side, streamed live;
                                  --wiki as for debate (the sources follow the answers).
  follow-up <session> "<question>" [--mode single|parallel|deep] [--slot N | --provider NAME]
            [--slots N,N…] [--rounds N] [--quorum N] [--synthesizer N] [--ranking] [--named]
            [--models N=MODEL,…] [--full]
                                  Ask again in a finished session's thread (its mode by default; the
                                  panel sees the thread so far; a deep one keeps its panel unless
                                  told), streamed live as debate is.
  continue <session> [--full]     Continue an interrupted session (the server stopped mid-run), streamed
                                  live: kept answers stay, only what is missing is asked again.
  synthesize <session> | --question "<question>" --answers FILE|-
                                  A verdict from a stored session, or from given answers (a JSON array
                                  of {"slot": 1, "text": "…"}; - reads it from stdin).
  sessions [list] [--q TEXT] [--text WORDS] [--archived] [--shared] [--tag TAG] [--limit N]
                                  --q: in the question; --text: words in the question, answers or
                                  verdict (full-text); --archived: archived ones; --shared: shared with you;
                                  --tag: only those tagged so (eval: an evaluation's, else left out).
  sessions show <id>
  sessions export <id> [--format md|json]
  sessions cancel <id>            Stop a running session (detached, or started elsewhere) and keep it.
  sessions continue <id>          Continue an interrupted session to its end; prints it as show does.
  sessions rerun <id> [--question "<question>"]
                                  Run it again with its settings (edited question: --question), detached.
  sessions archive <id> | unarchive <id>
  sessions shares <id> | share <id> <username> | unshare <id> <username>
                                  Who may read it; share it read-only with a user; stop sharing.
  sessions delete <id>
  eval <questions.jsonl> [--out DIR] [--strategies solo,vote,debate,adaptive] [--rounds N]
       [--slots N,N…] [--agreement X] [--judge N] [--concurrency N] [--fresh]
                                  Run a question set with reference answers (JSON lines: question,
                                  reference, optional choices, grader exact|choice|number|regex|judge)
                                  through each slot alone, the round-1 vote, the full debate and
                                  adaptive; report accuracy with its 95% interval, cost, tokens, wall
                                  time and the cases the debate flipped, in DIR/report.md and
                                  DIR/report.html (DIR: eval-<file name>). Progress on stderr; runs
                                  --concurrency sessions at once (2). Interrupted, the same command
                                  goes on where it stopped (--fresh starts over). Its sessions are
                                  tagged eval and kept out of the history (sessions list --tag eval).
  mcp                             An MCP server on stdio for desktop clients (Claude Desktop…), forwarding
                                  to the server's /mcp with the URL and token as every command reads them.
  wiki build <module> [--<param> <value>…] [--titles T…] [--api URL] [--highlimits]
                                  Validate a wiki query as MediaWiki would and print its URL
                                  (consilium wiki build <module> --help lists its parameters).
  wiki generate --catalogue <file | api.php URL> --out <dir> [options]
                                  Typed builders for a wiki (the same as consilium-wiki generate).

Options (before or after the command):
  --url URL        The server (else CONSILIUM_URL, else the saved one, else http://127.0.0.1:8787)
  --token TOKEN    An API token (else CONSILIUM_TOKEN, else the saved one)
  --json           Machine-readable output (debate, parallel, continue: one event per line;
                   follow-up: the session once it ends; eval: its summary)
  --no-color       No colour (also NO_COLOR=1; colour is only ever used on a terminal)
  -h, --help       This help
  --version        The version

Exit status: 0 ok; 1 failed (an invalid wiki query, an unusable catalogue); 2 usage or a request the
server refused as invalid; 3 authentication (401/403); 4 server error (a 5xx, or an answer outside the
contract); 5 network error (no answer, or the connection broke); 6 refused (not found, conflict, rate
limited: any other 4xx); 130 interrupted (Ctrl-C); 141 stdout closed early (e.g. piped into head).
`;

/** Every command, by the name it is called by. */
const COMMANDS: Record<string, Command> = {
  login,
  ask,
  debate,
  parallel,
  'follow-up': followUp,
  continue: continueRun,
  synthesize,
  sessions,
  eval: evaluate,
  wiki,
  mcp,
};
/** The options that take no value, of any command: one parser reads them all. */
const BOOLEANS = new Set(['json', 'no-color', 'help', 'version', ...Object.values(COMMANDS).flatMap((c) => c.booleans ?? [])]);
/** Global options that take a value, for reading them before the command. */
const GLOBAL_VALUES = new Set(['url', 'token']);

/** One command's part of the help, with the options every command takes. */
export function commandUsage(command: string): string {
  const [, commands = '', rest = ''] = /Commands:\n([\s\S]*?)\n\n(Options[\s\S]*)$/.exec(USAGE) ?? [];
  // A command's block: its first line (two spaces, then its name) and the lines indented under it.
  const blocks = commands.split(/\n(?= {2}\S)/).filter((b) => b.trimStart().split(/\s/)[0] === command);
  return blocks.length ? `Usage:\n${blocks.join('\n')}\n\n${rest}` : USAGE;
}

/** A usage error: the one line that says what is wrong, and where the help is (not the whole help). */
function usageLine(message: string, command?: string): string {
  const help = command && Object.hasOwn(COMMANDS, command) ? `consilium ${command} --help` : 'consilium --help';
  return `${message} (see ${help})`;
}

export function version(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two folders below the package.json.
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

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
    err(paint(false))(usageLine(error.message));
    return EXIT.usage;
  }
  const [command, ...rest] = args;
  // The reader of a pipe going away (`| head`) is no error: stop writing and stop quietly.
  const closing = new AbortController();
  io.stdout.on?.('error', () => closing.abort());
  // `wiki generate` hands its arguments to consilium-wiki untouched.
  if (command === 'wiki' && rest[0] === 'generate') return wikiGenerate(rest, io, closing.signal);
  const helpOrVersion = ['--help', '-h', '--version'];
  if (command === undefined || (command.startsWith('-') && !helpOrVersion.includes(command))) {
    err(paint(false))(usageLine(`missing the command (${Object.keys(COMMANDS).join(', ')})`));
    return EXIT.usage;
  }
  const chosen = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  let parsed: Parsed;
  try {
    const own = chosen?.options;
    parsed = chosen?.parse ? chosen.parse(rest) : parseArgs(rest, BOOLEANS, own ? new Set([...GLOBAL, ...own]) : undefined);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(paint(false))(usageLine(error.message, command));
    return EXIT.usage;
  }
  if (command === '--version' || parsed.flags.has('version')) {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  try {
    const help = chosen?.help?.(parsed);
    if (help !== undefined) {
      io.stdout.write(help);
      return EXIT.ok;
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(paint(false))(error.message);
    return EXIT.usage;
  }
  if (command === '--help' || command === '-h' || command === 'help' || parsed.flags.has('help')) {
    io.stdout.write(chosen ? commandUsage(command) : USAGE);
    return EXIT.ok;
  }
  const colours = paint(
    wantsColour(io.stdout.isTTY, io.env, parsed.flags.has('no-color') ? false : undefined),
    paintOptions(io.env),
  );
  const fail = err(colours);
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
  if (!chosen) {
    fail(usageLine(`unknown command: ${command}${didYouMean(command, Object.keys(COMMANDS))}`));
    return EXIT.usage;
  }
  try {
    const code = await chosen.run(ctx);
    return closing.signal.aborted ? EXIT.closed : code;
  } catch (error) {
    if (closing.signal.aborted) return EXIT.closed;
    if (error instanceof UsageError) {
      fail(usageLine(error.message, command));
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
  const fields = error.problem?.errors ?? [];
  if (error.problem && fields.length > 0) {
    // The problem's words, then one line per field, rather than the message that strings them together.
    const { title, code, detail } = error.problem;
    fail(`${oneLine(`${title} (${code})${detail ? `: ${detail}` : ''}`)}${requestId}${session}`);
    for (const field of fields) fail(`  ${oneLine(field.path)}: ${oneLine(field.message)}`);
  } else fail(`${oneLine(error.message)}${requestId}${session}`);
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
