/**
 * The parts of wikimedia/ip-utils (`IPUtils`) that user names need: what counts as an IPv4 or
 * IPv6 address or range, and `sanitizeIP()`'s canonical form (no leading zeros, IPv6 upper case
 * and fully expanded: `2001:0db8::` → `2001:DB8:0:0:0:0:0:0`).
 */

/** IPUtils::RE_IP_BYTE: 0-255, with up to one leading zero on short forms (`001`, `099`). */
export const RE_IP_BYTE = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|0?[0-9]?[0-9])';
const RE_IP_ADD = `${RE_IP_BYTE}\\.${RE_IP_BYTE}\\.${RE_IP_BYTE}\\.${RE_IP_BYTE}`;
const RE_IP_PREFIX = '(?:3[0-2]|[12]?\\d)';
const RE_IPV6_PREFIX = '(?:12[0-8]|1[01][0-9]|[1-9]?\\d)';

const IPV4 = new RegExp(`^${RE_IP_ADD}$`);
const IPV4_RANGE = new RegExp(`^${RE_IP_ADD}\\/${RE_IP_PREFIX}$`);
const IPV6_PREFIX = new RegExp(`^${RE_IPV6_PREFIX}$`);
const IPV6_WORD = /^[0-9A-Fa-f]{1,4}$/;

/**
 * IPUtils::RE_IPV6_ADD without PCRE conditionals: eight words, or at most seven around exactly
 * one `::` (`::` alone included). No embedded IPv4 form.
 */
function isIPv6Address(ip: string): boolean {
  const gap = ip.indexOf('::');
  if (gap === -1) {
    const words = ip.split(':');
    return words.length === 8 && words.every((w) => IPV6_WORD.test(w));
  }
  if (ip.indexOf('::', gap + 1) !== -1) return false;
  const left = ip.slice(0, gap);
  const right = ip.slice(gap + 2);
  const leftWords = left === '' ? [] : left.split(':');
  const rightWords = right === '' ? [] : right.split(':');
  return leftWords.length + rightWords.length <= 7 && [...leftWords, ...rightWords].every((w) => IPV6_WORD.test(w));
}

function splitPrefix(ip: string): [string, string | undefined] {
  const slash = ip.indexOf('/');
  return slash === -1 ? [ip, undefined] : [ip.slice(0, slash), ip.slice(slash + 1)];
}

/** An IPv6 address, optionally with a /prefix (IPUtils::isIPv6). */
export function isIPv6(ip: string): boolean {
  const [address, prefix] = splitPrefix(ip);
  return isIPv6Address(address) && (prefix === undefined || IPV6_PREFIX.test(prefix));
}

/** An IPv4 address, optionally with a /prefix (IPUtils::isIPv4). */
export function isIPv4(ip: string): boolean {
  return IPV4.test(ip) || IPV4_RANGE.test(ip);
}

/** An IPv4 or IPv6 address or range (IPUtils::isIPAddress). */
export function isIPAddress(ip: string): boolean {
  return isIPv4(ip) || isIPv6(ip);
}

/** A single address, no prefix (IPUtils::isValid). */
export function isValidIP(ip: string): boolean {
  return IPV4.test(ip) || isIPv6Address(ip);
}

/** An address with a /prefix (IPUtils::isValidRange); host bits need not be zero. */
export function isValidRange(ip: string): boolean {
  if (IPV4_RANGE.test(ip)) return true;
  const [address, prefix] = splitPrefix(ip);
  return prefix !== undefined && isIPv6Address(address) && IPV6_PREFIX.test(prefix);
}

/**
 * IPUtils::sanitizeIP: trimmed; anything that is not an IP address comes back as it is; IPv4
 * loses leading zeros; IPv6 is upper-cased, `::` expanded and leading zeros dropped.
 */
export function sanitizeIP(input: string): string {
  let ip = input.trim();
  if (ip === '' || !isIPAddress(ip)) return ip;
  if (isIPv4(ip)) return ip.replace(/(?:^|(?<=\.))0+(?=[1-9]|0[./]|0$)/g, '');
  ip = ip.toUpperCase();
  const gap = ip.indexOf('::');
  if (gap !== -1) {
    const slash = ip.indexOf('/');
    const addressEnd = slash !== -1 ? slash - 1 : ip.length - 1;
    let repeat: string;
    let extra: string;
    let pad: number;
    if (gap === 0) {
      repeat = '0:';
      extra = ip === '::' ? '0' : '';
      pad = 9;
    } else if (gap === addressEnd - 1) {
      repeat = ':0';
      extra = '';
      pad = 9;
    } else {
      repeat = ':0';
      extra = ':';
      pad = 8;
    }
    const colons = ip.split(':').length - 1;
    ip = ip.replace('::', repeat.repeat(Math.max(0, pad - colons)) + extra);
  }
  return ip.replace(/(^|:)0+([0-9A-Fa-f]{1,4})/g, '$1$2');
}
