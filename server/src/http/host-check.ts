import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import { type HostName, normalizeHostname, parseHost } from '../config/hosts.js';
import { problem } from './problem.js';

export type { HostName };
export { parseHost };

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD = new Set(['', '0.0.0.0', '::', '[::]']);

export interface HostNamesInput {
  /** The interface the server listens on (`HOST`); a specific address is one of its names. */
  listenHost: string;
  /** `CONSILIUM_PUBLIC_ORIGIN`: the name clients use through a proxy. */
  publicOrigin?: URL;
  /** `CONSILIUM_ALLOWED_HOSTS` entries, `name` (any port) or `name:port`. */
  allowedHosts: readonly string[];
}

/** The service's names: loopback on the local port, the listening address, the public origin, the extra hosts. */
export function hostNames({ listenHost, publicOrigin, allowedHosts }: HostNamesInput): HostName[] {
  const names: HostName[] = LOOPBACK.map((hostname) => ({ hostname, port: 'local' as const }));
  const listen = normalizeHostname(listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost);
  if (!WILDCARD.has(listen) && !LOOPBACK.includes(listen)) names.push({ hostname: listen, port: 'local' });
  if (publicOrigin) {
    const port = publicOrigin.port ? Number(publicOrigin.port) : publicOrigin.protocol === 'https:' ? 443 : 80;
    names.push({ hostname: normalizeHostname(publicOrigin.hostname), port });
  }
  for (const entry of allowedHosts) {
    const parsed = parseHost(entry);
    if (parsed) names.push(parsed);
  }
  return names;
}

/**
 * Refuses requests whose `Host` is not one of the service's names (421 `host_not_allowed`), so a page on
 * another site cannot reach a local server by pointing its own name at 127.0.0.1 (DNS rebinding).
 * `allowAny` turns the check off (`CONSILIUM_ALLOWED_HOSTS=*`).
 */
export function hostCheck(names: readonly HostName[], allowAny = false): MiddlewareHandler {
  return async (c, next) => {
    if (allowAny) return next();
    const header = c.req.header('host');
    const host = header === undefined ? undefined : parseHost(header);
    const localPort = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.localPort;
    if (host && names.some((name) => matches(name, host, localPort))) return next();
    return problem(c, 421, 'host_not_allowed', {
      detail: `This server does not answer to the host ${JSON.stringify((header ?? '').slice(0, 100))}; add it to CONSILIUM_ALLOWED_HOSTS or set CONSILIUM_PUBLIC_ORIGIN.`,
    });
  };
}

function matches(name: HostName, host: HostName, localPort: number | undefined): boolean {
  if (name.hostname !== host.hostname) return false;
  if (name.port === undefined) return true;
  // No port in `Host` means the scheme's default; behind plain HTTP that is 80.
  const port = host.port ?? 80;
  if (name.port === 'local') return localPort === undefined || port === localPort;
  return port === name.port || (host.port === undefined && name.port === 443);
}
