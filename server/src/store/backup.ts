/**
 * `npm run backup -- <destination>`: an online, consistent copy of the configured database
 * (CONSILIUM_DATABASE, else ./data/consilium.db), safe while a server is using it.
 * Exit codes: 0 written, 1 failed, 2 bad usage, 78 bad configuration.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, isDatabaseUrl, loadConfig, loadDotEnv } from '../config/config.js';
import { openDatabase } from './open.js';

const USAGE = `usage: npm run backup -- <destination>
  destination  a file path for the SQLite store, or a postgres:// URL when the store is PostgreSQL`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export async function backupCli(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  io: Io = { out: console.log, err: console.error },
): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.out(USAGE);
    return 0;
  }
  const positional = args.filter((a) => a !== '--');
  if (positional.length !== 1 || positional[0]!.startsWith('-') || positional[0]!.trim() === '') {
    io.err(
      `backup: expected one destination, got ${positional.length === 0 ? 'none' : positional.map((a) => JSON.stringify(a)).join(' ')}`,
    );
    io.err(USAGE);
    return 2;
  }
  let database: string;
  try {
    database = loadConfig(env).database;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`backup: configuration error: ${error.message}`);
    return 78;
  }
  // npm runs scripts from the package root; a relative destination means where the user typed it.
  const destination = isDatabaseUrl(positional[0]!) ? positional[0]! : resolve(env.INIT_CWD ?? process.cwd(), positional[0]!);
  if (!isDatabaseUrl(database) && !existsSync(database)) {
    io.err(`backup: there is no session store at ${database} (set CONSILIUM_DATABASE to the one to back up)`);
    return 1;
  }
  const started = Date.now();
  try {
    const opened = await openDatabase(database);
    try {
      await opened.backup(destination);
    } finally {
      await opened.close();
    }
  } catch (error) {
    io.err(`backup: ${redact(database)} -> ${redact(destination)} failed: ${(error as Error).message}`);
    return 1;
  }
  const size = isDatabaseUrl(destination) ? '' : `, ${statSync(destination).size} bytes`;
  io.out(`backup: wrote ${redact(destination)} from ${redact(database)} (${Date.now() - started} ms${size})`);
  return 0;
}

/** A URL's password stays out of the terminal. */
function redact(location: string): string {
  return isDatabaseUrl(location) ? location.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@') : location;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  loadDotEnv();
  process.exitCode = await backupCli(process.argv.slice(2));
}
