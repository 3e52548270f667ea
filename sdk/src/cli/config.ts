/// <reference types="node" />
/**
 * The user's saved server and token: `$CONSILIUM_CONFIG`, else `$XDG_CONFIG_HOME/consilium/config.json`,
 * else `~/.config/consilium/config.json`. The file holds a secret, so it is written with mode 0600 in a
 * 0700 folder, and rewritten through a temporary file so it is never half-written.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface SavedConfig {
  url?: string;
  token?: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export function configPath(env: Record<string, string | undefined>): string {
  if (env.CONSILIUM_CONFIG) return env.CONSILIUM_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'consilium', 'config.json');
}

export function readConfig(path: string): SavedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const value = JSON.parse(text) as SavedConfig;
  return {
    ...(typeof value.url === 'string' && { url: value.url }),
    ...(typeof value.token === 'string' && { token: value.token }),
  };
}

export function writeConfig(path: string, config: SavedConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600); // the mode above is masked by umask; this is not
  renameSync(temporary, path);
}

/** Where to connect: flags, then the environment, then the saved file, then the local default. */
export function resolveConnection(
  flags: { url?: string; token?: string },
  env: Record<string, string | undefined>,
  saved: SavedConfig,
): { url: string; token: string | undefined } {
  // An empty variable counts as unset, as shells make it easy to export one by accident.
  const pick = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v !== '');
  return {
    url: pick(flags.url, env.CONSILIUM_URL, saved.url) ?? DEFAULT_URL,
    token: pick(flags.token, env.CONSILIUM_TOKEN, saved.token),
  };
}
