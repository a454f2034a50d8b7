import { ServiceError, type ProxyMode, type ProxyTier } from '@wds/contracts';
import { buildScrapeHeaders, type OutboundResponse, type ProxyPool } from '@wds/outbound';
import { throughProxyTiers } from './proxy-tiers';

/** What the fetch engine needs from the HTTP client (OutboundHttp in production). */
export interface HttpClient {
  request(req: {
    url: string;
    headers?: Record<string, string>;
    timeoutMs: number;
    maxBytes?: number;
    skipTlsVerification?: boolean;
    proxyUrl?: string;
  }): Promise<OutboundResponse>;
}

export interface FetchPageRequest {
  url: string;
  headers?: Record<string, string>;
  mobile: boolean;
  location: { country: string; languages?: string[] };
  skipTlsVerification: boolean;
  proxy: ProxyMode;
  /** Epoch ms by which the whole fetch (every attempt and redirect) must be done. */
  deadline: number;
}

export interface FetchedPage extends OutboundResponse {
  /** Which proxy pool served the answer; undefined = direct connection (no pool configured). */
  proxyUsed: ProxyTier | undefined;
}

export interface FetchEngineOptions {
  http: HttpClient;
  basicProxies: ProxyPool;
  enhancedProxies: ProxyPool;
  maxBytes: number;
  now?: () => number;
}

/**
 * Plain-HTTP page fetching with browser-like headers and proxy selection. The network policy is
 * enforced by the HTTP client on every hop; this class decides headers, proxies and retries.
 */
export class FetchEngine {
  private readonly now: () => number;

  constructor(private readonly opts: FetchEngineOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The proxy pools (WDS_PROXY_BASIC / _ENHANCED), shared with browser renders so rotation is one. */
  get proxies(): { basic: ProxyPool; enhanced: ProxyPool } {
    return { basic: this.opts.basicProxies, enhanced: this.opts.enhancedProxies };
  }

  async fetch(req: FetchPageRequest): Promise<FetchedPage> {
    const headers = buildScrapeHeaders({
      userHeaders: req.headers,
      mobile: req.mobile,
      location: req.location,
    });
    return throughProxyTiers({
      proxy: req.proxy,
      enhancedAvailable: this.opts.enhancedProxies.size > 0,
      attempt: (tier) => this.attempt(req, headers, tier),
      status: (page) => page.status,
      keepFirstWhenRetryFails: false,
    });
  }

  private async attempt(
    req: FetchPageRequest,
    headers: Record<string, string>,
    tier: ProxyTier,
  ): Promise<FetchedPage> {
    const remaining = req.deadline - this.now();
    if (remaining <= 0)
      throw new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out before the page was fetched');
    const pool = tier === 'enhanced' ? this.opts.enhancedProxies : this.opts.basicProxies;
    const proxyUrl = pool.next();
    const res = await this.opts.http.request({
      url: req.url,
      headers,
      timeoutMs: remaining,
      maxBytes: this.opts.maxBytes,
      skipTlsVerification: req.skipTlsVerification,
      proxyUrl,
    });
    return { ...res, proxyUsed: proxyUrl === undefined ? undefined : tier };
  }
}
