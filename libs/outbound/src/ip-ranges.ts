import ipaddr from 'ipaddr.js';

export type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * IPv4 ranges (ipaddr.js names) a user-driven request may never reach: private, loopback, link-local
 * (which holds the 169.254.169.254 metadata endpoint), unspecified, CGNAT (which holds Alibaba's
 * 100.100.100.200 metadata endpoint), multicast, broadcast and reserved/documentation ranges.
 */
const BLOCKED_V4 = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
]);

/** IPv6 ranges that are reachable publicly; everything else is refused unless it embeds a public IPv4. */
const PUBLIC_V6 = new Set(['unicast', 'amt', 'as112v6']);

/**
 * IPv6 forms that carry an IPv4 address (mapped, SIIT, NAT64, 6to4). They are judged by the embedded
 * IPv4 address, otherwise `::ffff:127.0.0.1` or `64:ff9b::a9fe:a9fe` would slip through.
 */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = addr.parts;
  switch (addr.range()) {
    case 'rfc6052':
      // Only the well-known /96 prefix has a fixed layout; local-use NAT64 prefixes (64:ff9b:1::/48) are
      // operator-defined, so they are judged as the unspecified address, i.e. refused.
      if (p[1] !== 0xff9b || p[2] !== 0 || p[3] !== 0 || p[4] !== 0 || p[5] !== 0) {
        return new ipaddr.IPv4([0, 0, 0, 0]);
      }
      return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
    case 'ipv4Mapped':
    case 'rfc6145':
      return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
    case '6to4':
      return new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]);
    default:
      return undefined;
  }
}

/** Parses an address in any form ipaddr.js accepts, unwrapping IPv6 forms that embed an IPv4 address. */
export function parseAddress(ip: string): ParsedAddress | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Zone ids (fe80::1%eth0) only make sense for link-local addresses, which are refused anyway.
  const noZone = bare.includes('%') ? bare.slice(0, bare.indexOf('%')) : bare;
  if (!ipaddr.isValid(noZone)) return undefined;
  const parsed = ipaddr.parse(noZone);
  if (parsed.kind() === 'ipv6') return embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed;
  return parsed;
}

/** True when the address is in a range that must not be reached without an allow-list entry. */
export function isSpecialAddress(addr: ParsedAddress): boolean {
  if (addr.kind() === 'ipv4') return BLOCKED_V4.has(addr.range());
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  // ::/8 holds the unspecified and loopback addresses and the deprecated IPv4-compatible form (::a.b.c.d).
  if (v6.parts[0] === 0 && range !== 'ipv4Mapped' && range !== 'rfc6145') return true;
  return !PUBLIC_V6.has(range);
}

export function sameAddress(a: ParsedAddress, b: ParsedAddress): boolean {
  return a.kind() === b.kind() && a.toNormalizedString() === b.toNormalizedString();
}

export function inCidr(addr: ParsedAddress, cidr: [ParsedAddress, number]): boolean {
  if (addr.kind() !== cidr[0].kind()) return false;
  return addr.match(cidr);
}
