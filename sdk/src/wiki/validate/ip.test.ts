import { describe, expect, it } from 'vitest';
import { isIPAddress, isValidIP, isValidRange, sanitizeIP } from './ip.js';

describe('IP addresses', () => {
  it('recognizes IPv4 and IPv6 addresses and ranges as IPUtils does', () => {
    for (const ip of ['1.2.3.4', '001.002.003.004', '::', '::1', '1::', '1::2', '1:2:3:4:5:6:7:8', 'aBcD::']) {
      expect(isValidIP(ip), ip).toBe(true);
    }
    for (const ip of [
      '256.1.1.1',
      '0000.1.1.1',
      '1.2.3',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':1',
      '1:2:3:4:5:6:7::8',
      '12345::',
      '::ffff:1.2.3.4',
    ]) {
      expect(isValidIP(ip), ip).toBe(false);
    }
    expect(isValidRange('10.0.0.0/8')).toBe(true);
    expect(isValidRange('10.0.0.0/33')).toBe(false);
    expect(isValidRange('2001:db8::/128')).toBe(true);
    expect(isValidRange('2001:db8::/129')).toBe(false);
    expect(isValidRange('1.2.3.4')).toBe(false);
    expect(isIPAddress('1.2.3.4/24')).toBe(true);
  });

  it('sanitizes to the canonical form', () => {
    expect(sanitizeIP(' 192.168.000.001 ')).toBe('192.168.0.1');
    expect(sanitizeIP('010.000.000.000/08')).toBe('010.000.000.000/08');
    expect(sanitizeIP('10.000.000.000/8')).toBe('10.0.0.0/8');
    expect(sanitizeIP('::')).toBe('0:0:0:0:0:0:0:0');
    expect(sanitizeIP('::1')).toBe('0:0:0:0:0:0:0:1');
    expect(sanitizeIP('2001:0db8::')).toBe('2001:DB8:0:0:0:0:0:0');
    expect(sanitizeIP('2001:0DB8::/64')).toBe('2001:DB8:0:0:0:0:0:0/64');
    expect(sanitizeIP('1::00ff:2')).toBe('1:0:0:0:0:0:FF:2');
    expect(sanitizeIP('not an ip')).toBe('not an ip');
  });

  it('is idempotent', () => {
    for (const ip of ['::1', '2001:0db8::/64', '192.168.000.000/16', 'a:b:c:d:e:f:0:1']) {
      expect(sanitizeIP(sanitizeIP(ip))).toBe(sanitizeIP(ip));
    }
  });
});
