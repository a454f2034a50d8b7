import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { ServiceError } from '@wds/contracts';
import { Allowlist, normalizeHost } from './allowlist';
import { isSpecialAddress, parseAddress } from './ip-ranges';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its A/AAAA addresses. Injectable so tests can map names to loopback. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface NetworkPolicyOptions {
  /** Entries: `host`, `host:port`, `IP`, `IP:port`, `[v6]:port` or CIDR (v4/v6). */
  allowlist?: readonly string[];
  /** Defaults to the system resolver (`dns.lookup` with `all: true`, so /etc/hosts applies as for sockets). */
  resolve?: Resolver;
}

export interface ResolvedTarget {
  url: URL;
  /** Lower-case host without IPv6 brackets or trailing dot. */
  host: string;
  port: number;
  /** Every address the host resolved to; all of them passed the policy. */
  addresses: ResolvedAddress[];
}

export const systemResolver: Resolver = async (host) => {
  const found = await dns.promises.lookup(host, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function dnsError(host: string, cause?: unknown): ServiceError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return new ServiceError('UPSTREAM_FAILED', `could not resolve host ${host}`, {
    reason: 'dns',
    host,
    ...(typeof code === 'string' ? { code } : {}),
  });
}

function blockedError(host: string): ServiceError {
  return new ServiceError(
    'DESTINATION_BLOCKED',
    `destination ${host} is not allowed: it is or resolves to a private, loopback, link-local or reserved address ` +
      '(operators can allow it with WDS_PRIVATE_NETWORK_ALLOWLIST)',
    { host },
  );
}

/** Distinct (address, port, host) verdicts kept; the memo starts over when full. */
const VERDICT_CACHE_SIZE = 4096;

function defaultPort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * The network policy for requests made on a user's behalf: private, loopback, link-local, metadata,
 * CGNAT, multicast and reserved destinations are refused unless allow-listed by the operator.
 */
export class NetworkPolicy {
  private readonly allowlist: Allowlist;
  private readonly resolver: Resolver;
  /** Memoised `isAddressBlocked` answers, keyed by address, port and host. */
  private readonly verdicts = new Map<string, boolean>();

  /**
   * dns.lookup-compatible function that applies the policy (port-bound allow-list entries never match
   * here, since lookups do not carry the port; OutboundHttp uses `lookupFor(port)`).
   */
  readonly lookup: LookupFunction;

  constructor(opts: NetworkPolicyOptions = {}) {
    this.allowlist = new Allowlist(opts.allowlist ?? []);
    this.resolver = opts.resolve ?? systemResolver;
    this.lookup = this.lookupFor(undefined);
  }

  /** From the parsed `WDS_PRIVATE_NETWORK_ALLOWLIST` list; blank entries are ignored, bad ones throw. */
  static fromEnvList(list: readonly string[]): NetworkPolicy {
    return new NetworkPolicy({ allowlist: list.map((e) => e.trim()).filter((e) => e !== '') });
  }

  /** True when `ip` may not be reached (as `host` on `port`). Unparseable addresses are blocked. */
  isAddressBlocked(ip: string, port?: number, host?: string): boolean {
    // The verdict depends on these three inputs and the fixed allow-list only, and a crawl asks the
    // same question for every page (parsing the address was ~1% of a scraper's CPU).
    // Unambiguous: the port has no '|', the host's length delimits it, the address is the rest.
    const key = `${port ?? ''}|${host === undefined ? '-' : `${host.length}:${host}`}${ip}`;
    let blocked = this.verdicts.get(key);
    if (blocked === undefined) {
      blocked = this.judge(ip, port, host);
      if (this.verdicts.size >= VERDICT_CACHE_SIZE) this.verdicts.clear();
      this.verdicts.set(key, blocked);
    }
    return blocked;
  }

  private judge(ip: string, port: number | undefined, host: string | undefined): boolean {
    const addr = parseAddress(ip);
    if (!addr) return true;
    if (!isSpecialAddress(addr)) return false;
    return !this.allowlist.allows(addr, port, host);
  }

  /**
   * Validates the scheme, resolves the host and refuses it when ANY address is blocked (a name with
   * one public and one private address could otherwise be steered to the private one).
   */
  async checkUrl(input: string | URL): Promise<ResolvedTarget> {
    let url: URL;
    try {
      url = typeof input === 'string' ? new URL(input) : new URL(input.href);
    } catch {
      throw new ServiceError('BAD_REQUEST', `invalid URL: ${String(input).slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ServiceError('BAD_REQUEST', `unsupported URL scheme ${url.protocol} (only http and https)`);
    }
    const host = normalizeHost(url.hostname);
    if (host === '') throw new ServiceError('BAD_REQUEST', `URL has no host: ${url.href.slice(0, 200)}`);
    const port = defaultPort(url);
    const addresses = await this.vet(host, port);
    return { url, host, port, addresses };
  }

  /** A lookup function for sockets to `port`, so `host:port` allow-list entries apply at connect time. */
  lookupFor(port: number | undefined): LookupFunction {
    return (hostname, options, callback) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      this.vet(normalizeHost(hostname), port).then(
        (all) => {
          const list = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
          if (list.length === 0) {
            callback(dnsError(hostname) as NodeJS.ErrnoException, options.all ? [] : '');
          } else if (options.all) {
            callback(null, list);
          } else {
            callback(null, list[0].address, list[0].family);
          }
        },
        (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : ''),
      );
    };
  }

  /** Resolves (unless `host` is a literal address) and checks every address. */
  async vet(host: string, port?: number): Promise<ResolvedAddress[]> {
    const literal = net.isIP(host);
    let addresses: ResolvedAddress[];
    if (literal) {
      addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolver(host);
      } catch (err) {
        throw dnsError(host, err);
      }
    }
    if (addresses.length === 0) throw dnsError(host);
    for (const a of addresses) {
      if (this.isAddressBlocked(a.address, port, host)) throw blockedError(host);
    }
    return addresses;
  }
}
