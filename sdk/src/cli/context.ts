/**
 * What every command gets and gives back: the context `main.ts` builds (io, parsed arguments, colours,
 * the server), the exit codes, and the shape of a command. Apart from `main.ts` so the commands depend
 * on it one way.
 */
import type { Consilium } from '../facade/consilium.js';
import type { Paint } from '../terminal/terminal.js';
import { oneLine } from '../terminal/terminal.js';
import { UsageError } from '../terminal/usage.js';
import type { Parsed } from './args.js';
import { DEFAULT_URL, type SavedConfig } from './config.js';

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
  /** Standard input as it comes (`consilium mcp` reads it a line at a time). */
  stdin?: AsyncIterable<string | Uint8Array>;
  /** Calls `handler` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  fetch?: typeof fetch;
}

/** The options every command takes. */
export const GLOBAL = ['url', 'token', 'json', 'no-color', 'help', 'version'];

export interface Context {
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

/** One command: its own options beside its code. */
export interface Command {
  /** The options it takes beyond the global ones; any other is an unknown option. */
  readonly options?: readonly string[];
  /** Those of its options that take no value. */
  readonly booleans?: readonly string[];
  /** Reads its arguments itself (instead of `parseArgs` with its options). */
  parse?(args: readonly string[]): Parsed;
  /** Its own `--help` text for these arguments, when it has one. */
  help?(parsed: Parsed): string | undefined;
  run(ctx: Context): Promise<number>;
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

export const urlSource = (flag: string | undefined, env: Io['env'], saved: SavedConfig): UrlSource =>
  flag ? 'flag' : env.CONSILIUM_URL ? 'env' : saved.url ? 'saved' : 'default';
