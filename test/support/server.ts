import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { type Config, loadConfig } from '../../server/src/config/config.js';
import { createLogger } from '../../server/src/config/log.js';
import { createApp } from '../../server/src/http/app.js';
import { answerClientErrors, httpServerOptions } from '../../server/src/http/timeouts.js';
import { openSessions } from '../../server/src/sessions/open.js';
import type { Sessions } from '../../server/src/sessions/sessions.js';

export interface RunningServer {
  baseUrl: string;
  config: Config;
  sessions: Sessions;
  close(): Promise<void>;
}

/**
 * The real app on a real HTTP server on loopback, on a free port, storing sessions in a fresh SQLite
 * file (unless `env` names a database); offline models stream without delay unless `env` says otherwise.
 */
export async function startServer(env: Record<string, string | undefined> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'consilium-test-'));
  // Rate limits off unless a test sets them: suites run more debates than a person would.
  const all = {
    CONSILIUM_LOG_LEVEL: 'silent',
    CONSILIUM_OFFLINE_TOKEN_MS: '0',
    CONSILIUM_DATA_DIR: dataDir,
    CONSILIUM_RATE_LIMITS: 'off',
    ...env,
  };
  const config = loadConfig(all);
  const sessions = await openSessions({ database: config.database, cacheSize: config.sessionCacheSize });
  // Slot keys come from `env` only, never from the machine running the tests.
  const app = createApp({ config, env: all, logger: createLogger('silent'), version: '0.0.0-test', sessions });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0, serverOptions: httpServerOptions(config) }, () =>
      resolve(s),
    );
    answerClientErrors(s);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    sessions,
    close: async () => {
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      await sessions.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
