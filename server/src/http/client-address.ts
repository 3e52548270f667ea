/**
 * The client's address: the connection's, or, when that is a trusted proxy (`CONSILIUM_TRUSTED_PROXIES`), the one
 * its `X-Forwarded-For` or `Forwarded: for=` names. The chain is read right to left, past the trusted proxies; the
 * first address that is not one is the client. Anything before it was written by the client and proves nothing.
 */
import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import type { AddressRange } from '../config/proxies.js';

/** Decides, per request, which address is the client's. */
export type ClientAddresses = (c: Context) => string;

/** The connection's address, canonical (an IPv4-mapped IPv6 address as IPv4), or `unknown`. */
export function peerAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  const remote = incoming?.socket?.remoteAddress;
  return remote ? (canonical(remote) ?? remote) : 'unknown';
}

/** With no trusted proxies, the connection's address; see the module's comment otherwise. */
export function clientAddresses(trusted: readonly AddressRange[] = []): ClientAddresses {
  if (trusted.length === 0) return peerAddress;
  const list = new BlockList();
  for (const r of trusted) list.addSubnet(r.address, r.prefix, r.family);
  const isTrusted = (address: string) => list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  return (c) => {
    const peer = peerAddress(c);
    if (isIP(peer) === 0 || !isTrusted(peer)) return peer;
    const xff = c.req.header('x-forwarded-for');
    const fwd = c.req.header('forwarded');
    const fromXff = xff === undefined ? undefined : walk(parseXForwardedFor(xff), isTrusted);
    const fromFwd = fwd === undefined ? undefined : walk(parseForwarded(fwd), isTrusted);
    // Both sent and disagreeing: the proxy manages one, and the client wrote the other. Neither is believed.
    if (fromXff !== undefined && fromFwd !== undefined && fromXff !== fromFwd) return peer;
    return fromXff ?? fromFwd ?? peer;
  };
}

/** The client: the rightmost address that is not a trusted proxy (all trusted: the leftmost); undefined if malformed. */
function walk(chain: (string | undefined)[] | undefined, isTrusted: (address: string) => boolean): string | undefined {
  if (!chain || chain.length === 0) return undefined;
  for (let i = chain.length - 1; i >= 0; i--) {
    const address = chain[i];
    if (address === undefined) return undefined;
    if (!isTrusted(address) || i === 0) return address;
  }
  return undefined;
}

/** `X-Forwarded-For: 203.0.113.7, 10.0.0.2` (several lines arrive joined by commas); undefined when any entry is not an address. */
export function parseXForwardedFor(value: string): (string | undefined)[] | undefined {
  const chain = value.split(',').map((entry) => node(entry.trim()));
  return chain.includes(undefined) ? undefined : chain;
}

/**
 * `Forwarded` (RFC 7239): elements by commas, pairs by semicolons, values as tokens or quoted strings; each element's
 * `for=`, in order. undefined when the header does not parse or an element has no address (`unknown`, `_hidden`,
 * no `for`), since who sent it is then not known.
 */
export function parseForwarded(value: string): (string | undefined)[] | undefined {
  const chain: (string | undefined)[] = [];
  let i = 0;
  const space = () => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };
  for (;;) {
    let forValue: string | undefined;
    let hasFor = false;
    for (;;) {
      space();
      const name = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(value.slice(i))?.[0];
      if (!name || value[i + name.length] !== '=') return undefined;
      i += name.length + 1;
      let v: string;
      if (value[i] === '"') {
        v = '';
        for (i++; i < value.length && value[i] !== '"'; i++) {
          if (value[i] === '\\') i++;
          if (i < value.length) v += value[i];
        }
        if (value[i] !== '"') return undefined;
        i++;
      } else {
        const token = /^[!#$%&'*+.^_`|~0-9A-Za-z:[\]-]*/.exec(value.slice(i))?.[0] ?? '';
        if (token === '') return undefined;
        v = token;
        i += token.length;
      }
      if (name.toLowerCase() === 'for') {
        if (hasFor) return undefined;
        hasFor = true;
        forValue = v;
      }
      space();
      if (value[i] !== ';') break;
      i++;
    }
    if (!hasFor) return undefined;
    chain.push(node(forValue!));
    if (i >= value.length) break;
    if (value[i] !== ',') return undefined;
    i++;
  }
  return chain.includes(undefined) ? undefined : chain;
}

/** An address as forwarded: `1.2.3.4`, `1.2.3.4:80`, `::1`, `[::1]`, `[::1]:80`; canonical, or undefined. */
function node(text: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? canonical(bracketed[1]!) : undefined;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$/.exec(text);
  if (v4) return isIP(v4[1]!) === 4 ? v4[1] : undefined;
  return isIP(text) === 6 ? canonical(text) : undefined;
}

/** One spelling per address: IPv6 compressed and lower case, IPv4-mapped IPv6 as IPv4; undefined if not an address. */
function canonical(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return undefined;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1];
  if (address.includes('%')) return address.toLowerCase(); // a zone id: URL does not take it
  const host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (hex) {
    const n = (Number.parseInt(hex[1]!, 16) << 16) | Number.parseInt(hex[2]!, 16);
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  return host;
}
