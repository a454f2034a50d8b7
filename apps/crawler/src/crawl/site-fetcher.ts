import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { NetworkPolicy, OutboundHttp, decodeBody } from '@wds/outbound';

const gunzipAsync = promisify(gunzip);

/** The crawler's own user agent for robots.txt and sitemaps, published in the docs. */
export const CRAWLER_USER_AGENT = 'WDSBot/1.0 (+https://github.com/web-data-service; crawler)';
/** The product token robots.txt groups are matched against. */
export const ROBOTS_PRODUCT_TOKEN = 'WDSBot';

export interface FetchedText {
  status: number;
  url: string;
  text: string;
}

/** Reads robots.txt and sitemaps through the network policy (a port, so logic is testable). */
export abstract class SiteFetcher {
  /** Undefined when the request failed (network, policy, too large). */
  abstract getText(
    url: string,
    opts?: { userAgent?: string; timeoutMs?: number },
  ): Promise<FetchedText | undefined>;
  abstract close(): Promise<void>;
}

const MAX_BYTES = 50 * 1024 * 1024;

export class OutboundSiteFetcher extends SiteFetcher {
  private readonly http: OutboundHttp;

  constructor(allowlist: readonly string[]) {
    super();
    this.http = new OutboundHttp({
      policy: NetworkPolicy.fromEnvList(allowlist),
      userAgent: CRAWLER_USER_AGENT,
    });
  }

  async getText(url: string, opts: { userAgent?: string; timeoutMs?: number } = {}) {
    try {
      const res = await this.http.request({
        url,
        timeoutMs: opts.timeoutMs ?? 15_000,
        maxBytes: MAX_BYTES,
        headers: { 'User-Agent': opts.userAgent ?? CRAWLER_USER_AGENT, Accept: '*/*' },
      });
      let body = res.body;
      // .xml.gz sitemaps are served as application/gzip bodies, not Content-Encoding.
      // No more than MAX_BYTES once inflated either (a gzip bomb fails instead of filling the memory).
      if (body.length > 2 && body[0] === 0x1f && body[1] === 0x8b)
        body = await gunzipAsync(body, { maxOutputLength: MAX_BYTES });
      return { status: res.status, url: res.url, text: decodeBody(body, res.contentType).text };
    } catch {
      return undefined;
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
