/** `CONSILIUM_TRUSTED_PROXIES`: the proxies whose `X-Forwarded-For` / `Forwarded` names the client. */
import { isIP } from 'node:net';
import { ConfigError } from './slots.js';

/** A range of addresses: `address/prefix`, IPv4 or IPv6. */
export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** What `loopback` stands for. */
const LOOPBACK: readonly AddressRange[] = [
  { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
  { address: '::1', prefix: 128, family: 'ipv6' },
];

/** What `*` stands for: every address, so any client's `X-Forwarded-For` is believed (a proxy in front of all traffic). */
const EVERYWHERE: readonly AddressRange[] = [
  { address: '0.0.0.0', prefix: 0, family: 'ipv4' },
  { address: '::', prefix: 0, family: 'ipv6' },
];

/**
 * Comma-separated IPs, CIDRs and the word `loopback`; unset or empty: none (the connection's address counts). A range
 * of every address (`0.0.0.0/0`, `::/0`) lets any client name itself anyone, which rate limits key on: it is taken
 * only as an explicit `*`.
 */
export function parseTrustedProxies(raw: string | undefined): AddressRange[] {
  const ranges: AddressRange[] = [];
  for (const entry of (raw ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    if (entry === 'loopback' || entry === '*') {
      ranges.push(...(entry === '*' ? EVERYWHERE : LOOPBACK));
      continue;
    }
    const [address = '', prefixText, ...rest] = entry.split('/');
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (family === 0 || rest.length > 0 || address.includes('%') || !(prefix >= 0 && prefix <= max)) {
      throw new ConfigError(
        `CONSILIUM_TRUSTED_PROXIES must list IP addresses, CIDR ranges (10.0.0.0/8, fd00::/8) or loopback, got "${entry}"`,
      );
    }
    if (prefix === 0) {
      throw new ConfigError(
        `CONSILIUM_TRUSTED_PROXIES: "${entry}" trusts every address, so any client could say it is any other; list the proxies, or write * if every client really comes through a proxy`,
      );
    }
    ranges.push({ address, prefix, family: family === 6 ? 'ipv6' : 'ipv4' });
  }
  return ranges;
}
