/**
 * A name the service answers to. `port: 'local'` means the port the request actually reached
 * (known only per connection: tests and `PORT=0` listen on a free one); `undefined`, any port.
 */
export interface HostName {
  hostname: string;
  port?: number | 'local';
}

/** `name[:port]` → its parts, the name lowercased without a trailing dot; undefined if it is not a host. */
export function parseHost(value: string): HostName | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m?.[1]) return undefined;
  return { hostname: normalizeHostname(m[1]), port: m[2] === undefined ? undefined : Number(m[2]) };
}

export const normalizeHostname = (hostname: string) => hostname.toLowerCase().replace(/\.$/, '');
