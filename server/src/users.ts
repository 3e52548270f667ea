/**
 * Entry point of `npm run users -- <command>` (see `accounts/cli.ts`): opens the configured database, and
 * only the database — not the session cache or crash recovery, which belong to a running server that may
 * be using the same database right now.
 */
import { pathToFileURL } from 'node:url';
import { EXIT, openFailure, usersCli } from './accounts/cli.js';
import { openAccounts } from './accounts/open.js';
import { ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { type Database, openDatabase } from './store/open.js';

export async function main(args: readonly string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let database: Database | undefined;
  try {
    return await usersCli(
      args,
      async () => {
        let config: ReturnType<typeof loadConfig>;
        try {
          config = loadConfig(env);
        } catch (error) {
          if (error instanceof ConfigError) throw openFailure(EXIT.config, `configuration error: ${error.message}`);
          throw error;
        }
        try {
          database = await openDatabase(config.database);
        } catch (error) {
          throw openFailure(EXIT.failed, `cannot open the store at ${redact(config.database)}: ${(error as Error).message}`);
        }
        const accounts = openAccounts(database.accounts, config);
        // On a shared database, the running instances end the streams that relied on what this ends.
        const bus = database.access;
        if (bus) accounts.onCredentialsEnded((end) => bus.publish(end).catch(() => undefined));
        return accounts;
      },
      {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        readStdin: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      },
    );
  } finally {
    await database?.close();
  }
}

/** A URL's password stays out of the terminal. */
function redact(location: string): string {
  return location.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  loadDotEnv();
  process.exitCode = await main(process.argv.slice(2));
}
