import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../config/proxies.js';
import { clientAddresses, parseForwarded, parseXForwardedFor } from './client-address.js';

/** The client address an app trusting `proxies` sees for a request from `peer` with `headers`. */
async function clientOf(proxies: string | undefined, peer: string | undefined, headers: Record<string, string> = {}) {
  const app = new Hono();
  const client = clientAddresses(parseTrustedProxies(proxies));
  app.get('*', (c) => c.text(client(c)));
  const env = peer === undefined ? {} : { incoming: { socket: { remoteAddress: peer } } };
  return (await app.request('http://localhost/', { headers }, env)).text();
}

describe('client address', () => {
  it('is the connection’s address without trusted proxies, whatever the headers say', async () => {
    const spoof = { 'x-forwarded-for': '203.0.113.9', forwarded: 'for=203.0.113.9' };
    expect(await clientOf(undefined, '127.0.0.1', spoof)).toBe('127.0.0.1');
    expect(await clientOf('', '::ffff:10.1.2.3', spoof)).toBe('10.1.2.3');
    expect(await clientOf(undefined, undefined, spoof)).toBe('unknown');
  });

  it('is the connection’s address when that is not a trusted proxy', async () => {
    expect(await clientOf('10.0.0.0/8', '192.0.2.1', { 'x-forwarded-for': '203.0.113.9' })).toBe('192.0.2.1');
    expect(await clientOf('loopback', '::ffff:192.0.2.1', { 'x-forwarded-for': '203.0.113.9' })).toBe('192.0.2.1');
  });

  it('walks X-Forwarded-For right to left past trusted proxies; the first untrusted address is the client', async () => {
    const proxies = 'loopback, 10.0.0.0/8, fd00::/8';
    const via = (xff: string, peer = '127.0.0.1') => clientOf(proxies, peer, { 'x-forwarded-for': xff });
    expect(await via('203.0.113.9')).toBe('203.0.113.9');
    // What the client wrote before its own address is not believed.
    expect(await via('198.51.100.1, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(await via('198.51.100.1, 203.0.113.9, 10.0.0.2, fd12::7', '::1')).toBe('203.0.113.9');
    // Every hop trusted: the leftmost is the client.
    expect(await via('10.9.9.9, 10.0.0.2')).toBe('10.9.9.9');
    // Ports, brackets, IPv6 spelled any way, IPv4-mapped.
    expect(await via('203.0.113.9:5123')).toBe('203.0.113.9');
    expect(await via('[2001:DB8:0:0::1]:443')).toBe('2001:db8::1');
    expect(await via('2001:0db8::0001')).toBe('2001:db8::1');
    expect(await via('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(await via('[::ffff:cb00:7109]')).toBe('203.0.113.9');
    // Whitespace is allowed between entries.
    expect(await via('  203.0.113.9 ,10.0.0.2 ')).toBe('203.0.113.9');
  });

  it('reads Forwarded: for=, quoted or not, IPv6 in brackets with a port, other parameters beside it', async () => {
    const via = (forwarded: string) => clientOf('loopback', '127.0.0.1', { forwarded });
    expect(await via('for=203.0.113.9')).toBe('203.0.113.9');
    expect(await via('For="203.0.113.9:80";proto=https;by=10.0.0.1')).toBe('203.0.113.9');
    expect(await via('for="[2001:db8:cafe::17]:4711"')).toBe('2001:db8:cafe::17');
    expect(await via('for=198.51.100.1, for="203.0.113.9";proto=http, for=127.0.0.1')).toBe('203.0.113.9');
    expect(await via('proto=https; for="\\203.0.113.9"')).toBe('203.0.113.9');
  });

  it('falls back to the connection’s address on a malformed header', async () => {
    const bad = async (headers: Record<string, string>) =>
      expect(await clientOf('loopback', '127.0.0.1', headers)).toBe('127.0.0.1');
    for (const xff of [
      '',
      'unknown',
      'garbage',
      '203.0.113.9,,10.0.0.2',
      '203.0.113.999',
      '1.2.3',
      '[203.0.113.9]',
      '::1::2',
      'a, 203.0.113.9',
    ]) {
      await bad({ 'x-forwarded-for': xff });
    }
    for (const fwd of [
      '',
      'for=unknown',
      'for=_hidden',
      'proto=https',
      'for="203.0.113.9',
      'for=203.0.113.9 garbage',
      'for=203.0.113.9;for=198.51.100.1',
      'for=203.0.113.9,',
      '=203.0.113.9',
      'for=',
      'for=203.0.113.9, for=unknown',
    ]) {
      await bad({ forwarded: fwd });
    }
  });

  it('believes neither header when both are sent and disagree (the client wrote one of them)', async () => {
    const both = (xff: string, forwarded: string) => clientOf('loopback', '127.0.0.1', { 'x-forwarded-for': xff, forwarded });
    expect(await both('198.51.100.1, 203.0.113.9', 'for=203.0.113.9')).toBe('203.0.113.9');
    expect(await both('198.51.100.66', 'for=203.0.113.9')).toBe('127.0.0.1');
  });
});

describe('the forwarded headers on their own', () => {
  it('X-Forwarded-For: every entry an address, or nothing', () => {
    expect(parseXForwardedFor('1.2.3.4, [::1]:80, fe80::1')).toStrictEqual(['1.2.3.4', '::1', 'fe80::1']);
    expect(parseXForwardedFor('1.2.3.4, nope')).toBeUndefined();
  });

  it('Forwarded: quoted-pair escapes, each element’s for= in order', () => {
    expect(parseForwarded('for="\\[::1\\]";by=x, for=1.2.3.4')).toStrictEqual(['::1', '1.2.3.4']);
    expect(parseForwarded('by=x')).toBeUndefined();
  });
});

describe('CONSILIUM_TRUSTED_PROXIES', () => {
  it('lists addresses, CIDRs (IPv4 and IPv6) and loopback', () => {
    expect(parseTrustedProxies(undefined)).toStrictEqual([]);
    expect(parseTrustedProxies(' , ')).toStrictEqual([]);
    expect(parseTrustedProxies('loopback, 10.0.0.0/8,fd00::/8, 192.0.2.7,::1')).toStrictEqual([
      { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '::1', prefix: 128, family: 'ipv6' },
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '192.0.2.7', prefix: 32, family: 'ipv4' },
      { address: '::1', prefix: 128, family: 'ipv6' },
    ]);
  });

  it('refuses anything else, naming the setting', () => {
    for (const bad of [
      'localhost',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/',
      '10.0.0.0/8/8',
      '10.0.0.0/x',
      '300.1.1.1',
      'fe80::1%eth0',
    ]) {
      expect(() => parseTrustedProxies(bad), bad).toThrow(/CONSILIUM_TRUSTED_PROXIES must list/);
    }
  });
});
