/** A session store that cannot be opened stops the start at once, saying where and why. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envWith, ROOT } from '../support/process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'consilium-dbpath-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Well past a start (about a second) and far short of forever. */
const EXIT_WITHIN_MS = 30_000;

/** Runs the server's entry point (through tsx, not `npm start`'s bundle build) until it exits. */
function startWith(database: string): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: envWith(dataDir, { CONSILIUM_DATABASE: database, PORT: '0' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${EXIT_WITHIN_MS} ms with CONSILIUM_DATABASE=${database}\n${stderr}`));
    }, EXIT_WITHIN_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

describe('a database path that cannot be used', () => {
  it.each([
    ['/proc/nope/x.db', 'cannot create the directory /proc/nope: ENOENT at /proc/nope'],
    ['/proc/x.db', 'SQLITE_CANTOPEN'],
    ['/etc/hostname/x.db', 'cannot create the directory /etc/hostname: /etc/hostname is not a directory'],
    ['/', 'SQLITE_CANTOPEN'],
  ])('CONSILIUM_DATABASE=%s: exits 1 at once with a clear message', async (database, reason) => {
    const { code, stderr } = await startWith(database);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`consilium: cannot open the session store at ${database}: `);
    expect(stderr).toContain(reason);
  });
});
