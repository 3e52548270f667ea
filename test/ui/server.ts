/**
 * The server exactly as `npm start` runs it (`dist/server.mjs`, with the web UI built into `dist/web/`), in its own
 * process on a free loopback port, with a fresh data directory and offline models at a fast pace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleServer } from '../../server/build.js';
import { buildWeb } from '../../web/build.js';
import { envWith, ROOT } from '../support/process.js';

export const ADMIN = { username: 'admin', password: 'ui-test-admin-password-1' };

let built: Promise<unknown> | undefined;
/** Builds what `npm start`'s prestart builds, once per test process. */
const buildOnce = () => {
  built ??= Promise.all([bundleServer(), buildWeb()]);
  return built;
};

export interface UiServer {
  baseUrl: string;
  output(): string;
  close(): Promise<void>;
}

export async function startUiServer(settings: Record<string, string> = {}): Promise<UiServer> {
  await buildOnce();
  const dataDir = mkdtempSync(join(tmpdir(), 'consilium-ui-'));
  const env = envWith(dataDir, {
    PORT: '0',
    CONSILIUM_LOG_LEVEL: 'warn',
    CONSILIUM_OFFLINE_TOKEN_MS: '2',
    CONSILIUM_ADMIN_PASSWORD: ADMIN.password,
    ...settings,
  });
  const child: ChildProcess = spawn(process.execPath, ['dist/server.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${out}`)), 30_000);
    const check = () => {
      const match = /is serving (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before serving:\n${out}`)));
  });
  return {
    baseUrl,
    output: () => out,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
