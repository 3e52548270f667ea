import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../../server/src/app.js';
import { type Config, loadConfig } from '../../server/src/config.js';
import { createLogger } from '../../server/src/http/log.js';

export interface RunningServer {
  baseUrl: string;
  config: Config;
  close(): Promise<void>;
}

/** The real app on a real HTTP server on loopback, on a free port; offline models stream without delay unless `env` says otherwise. */
export async function startServer(env: Record<string, string | undefined> = {}): Promise<RunningServer> {
  const all = { CONSILIUM_LOG_LEVEL: 'silent', CONSILIUM_OFFLINE_TOKEN_MS: '0', ...env };
  const config = loadConfig(all);
  // Slot keys come from `env` only, never from the machine running the tests.
  const app = createApp({ config, env: all, logger: createLogger('silent'), version: '0.0.0-test' });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
