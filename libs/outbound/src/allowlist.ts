import ipaddr from 'ipaddr.js';
import { inCidr, parseAddress, sameAddress, type ParsedAddress } from './ip-ranges';

type Entry =
  | { kind: 'cidr'; range: [ParsedAddress, number] }
  | { kind: 'ip'; addr: ParsedAddress; port?: number }
  | { kind: 'host'; host: string; port?: number };

/** Lower-cases and drops a trailing dot and IPv6 brackets so `Example.COM.` and `example.com` compare equal. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function parsePort(text: string, entry: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error(`invalid port in allow-list entry "${entry}"`);
  return port;
}

const HOST_RE =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function parseHostOrIp(text: string, entry: string, port?: number): Entry {
  const addr = parseAddress(text);
  if (addr) return { kind: 'ip', addr, port };
  const host = normalizeHost(text);
  if (!HOST_RE.test(host)) throw new Error(`invalid allow-list entry "${entry}"`);
  return { kind: 'host', host, port };
}

/** Parses one `WDS_PRIVATE_NETWORK_ALLOWLIST` entry: `host`, `host:port`, `IP`, `IP:port`, `[v6]:port` or CIDR. */
export function parseAllowEntry(raw: string): Entry {
  const entry = raw.trim();
  if (entry.includes('/')) {
    let cidr: [ParsedAddress, number];
    try {
      cidr = ipaddr.parseCIDR(entry);
    } catch {
      throw new Error(`invalid CIDR in allow-list entry "${entry}"`);
    }
    const [base, prefix] = cidr;
    // An IPv4-mapped CIDR (::ffff:10.0.0.0/104) becomes its IPv4 equivalent, as addresses are unwrapped too.
    if (base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress()) {
      if (prefix < 96) throw new Error(`unsupported CIDR in allow-list entry "${entry}"`);
      return { kind: 'cidr', range: [(base as ipaddr.IPv6).toIPv4Address(), prefix - 96] };
    }
    return { kind: 'cidr', range: [base, prefix] };
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    const addr = parseAddress(bracketed[1]);
    if (!addr) throw new Error(`invalid allow-list entry "${entry}"`);
    return {
      kind: 'ip',
      addr,
      port: bracketed[2] === undefined ? undefined : parsePort(bracketed[2], entry),
    };
  }
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host, port] = entry.split(':');
    return parseHostOrIp(host, entry, parsePort(port, entry));
  }
  // Zero or several colons: a bare host, IPv4 or IPv6 address without a port.
  return parseHostOrIp(entry, entry);
}

export class Allowlist {
  private readonly entries: Entry[];

  constructor(list: readonly string[]) {
    this.entries = list.filter((e) => e.trim() !== '').map(parseAllowEntry);
  }

  get size(): number {
    return this.entries.length;
  }

  /** True when an entry admits this address (reached as `host`, on `port`). Port-bound entries need a port. */
  allows(addr: ParsedAddress, port?: number, host?: string): boolean {
    const name = host === undefined ? undefined : normalizeHost(host);
    return this.entries.some((e) => {
      if (e.kind === 'cidr') return inCidr(addr, e.range);
      if (e.port !== undefined && e.port !== port) return false;
      if (e.kind === 'ip') return sameAddress(addr, e.addr);
      return name !== undefined && name === e.host;
    });
  }
}
