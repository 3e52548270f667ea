/**
 * A consistent snapshot of a PostgreSQL database by `pg_dump` (one repeatable-read transaction, so
 * writers go on): to a file in pg_dump's custom format (restore with `pg_restore`), or, for a
 * `postgres://` URL, restored straight into that (empty) database with `pg_restore`. Needs the
 * PostgreSQL client tools, at least the server's version; without them this throws `unavailable`.
 */
import { spawn } from 'node:child_process';
import { StoreError } from '../../sessions/store.js';

/** `pgDump`: the `pg_dump` to use (default: `pg_dump` on PATH; `pg_restore` is taken from beside it). */
export async function dump(url: string, destination: string, pgDump?: string): Promise<void> {
  const source = connectionArgs(url);
  const dumper = pgDump ?? 'pg_dump';
  if (/^postgres(ql)?:\/\//i.test(destination)) {
    const target = connectionArgs(destination);
    const pgRestore = pgDump ? pgDump.replace(/pg_dump$/, 'pg_restore') : 'pg_restore';
    await pipeline(
      [dumper, ['--format=custom', `--dbname=${source.url}`], source.env],
      [
        pgRestore,
        ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${target.url}`],
        target.env,
      ],
    );
  } else {
    await pipeline([dumper, ['--format=custom', `--file=${destination}`, `--dbname=${source.url}`], source.env]);
  }
}

/** A URL without its password (which goes in the environment, not the process list). */
function connectionArgs(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.toString(), env: password ? { ...process.env, PGPASSWORD: password } : process.env };
}

type Command = [file: string, args: string[], env: NodeJS.ProcessEnv];

/** Runs the commands with each one's stdout into the next's stdin; rejects with the first failure's stderr. */
function pipeline(...commands: Command[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = commands.length;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      for (const child of children) child.kill();
      reject(error);
    };
    const children = commands.map(([file, args, env], index) => {
      const child = spawn(file, args, {
        env,
        stdio: [index === 0 ? 'ignore' : 'pipe', index === commands.length - 1 ? 'ignore' : 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stdin?.on('error', () => undefined);
      child.stdout?.on('error', () => undefined);
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) => {
        fail(
          error.code === 'ENOENT'
            ? new StoreError(
                'unavailable',
                `Backing up PostgreSQL needs ${file} (the PostgreSQL client tools, at least the server's version), which was not found.`,
                { cause: error },
              )
            : new StoreError('unavailable', `${file} failed to start: ${error.message}`, { cause: error }),
        );
      });
      child.on('close', (code) => {
        if (code !== 0) fail(new StoreError('unavailable', `${file} exited ${code}: ${stderr.trim()}`));
        else if (--pending === 0 && !failed) resolve();
      });
      return child;
    });
    for (let i = 1; i < children.length; i++) children[i - 1]!.stdout!.pipe(children[i]!.stdin!);
  });
}
