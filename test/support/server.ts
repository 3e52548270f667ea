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

/** The real app on a real HTTP server on loopback, on a free port. */
export async function startServer(env: Record<string, string | undefined> = {}): Promise<RunningServer> {
  const config = loadConfig({ CONSILIUM_LOG_LEVEL: 'silent', ...env });
  const app = createApp({ config, logger: createLogger('silent'), version: '0.0.0-test' });
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
