import { randomUUID } from 'node:crypto';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import {
  SCRAPE_RPC,
  ScrapeRequest,
  type MapLink,
  type MapRunReply,
  type MapRunRequest,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { getDomain } from 'tldts';
import { normalizeUrl, urlKey } from '../crawl/scope';
import { parseRobots, robotsPart } from '../crawl/robots';
import { discoverSitemapUrls } from '../crawl/sitemaps';
import { ROBOTS_PRODUCT_TOKEN, type SiteFetcher } from '../crawl/site-fetcher';

const gzipAsync = promisify(gzip);
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * POST /v2/map: a site's URLs from its sitemaps and the links of its start page, without scraping
 * them: same host (and subdomains with `includeSubdomains`), de-duplicated like a crawl, ordered
 * by relevance to `search` when given, at most `limit`.
 */
export class MapSiteUseCase {
  constructor(
    private readonly messaging: Messaging,
    private readonly fetcher: SiteFetcher,
  ) {}

  async execute(req: MapRunRequest): Promise<MapRunReply> {
    const r = req.request;
    const start = new URL(r.url);
    const deadline = Date.now() + (r.timeout ?? DEFAULT_TIMEOUT_MS);
    const domain = getDomain(start.hostname, { allowPrivateDomains: true });
    const bare = start.hostname.replace(/^www\./, '');
    const found = new Map<string, string>();
    const add = (raw: string) => {
      const u = normalizeUrl(raw, undefined, r.ignoreQueryParameters);
      if (!u) return;
      const host = u.hostname.replace(/^www\./, '');
      const inScope =
        host === bare ||
        (r.includeSubdomains &&
          domain !== null &&
          getDomain(u.hostname, { allowPrivateDomains: true }) === domain);
      if (!inScope) return;
      const key = urlKey(u, true);
      if (!found.has(key)) found.set(key, u.href);
    };
    add(start.href);

    if (r.sitemap !== 'skip') {
      const robotsUrl = new URL('/robots.txt', start.origin).href;
      const robots = await this.fetcher.getText(robotsUrl);
      const declared =
        robots && robots.status < 300
          ? parseRobots(robotsUrl, robotsPart(robots.text), ROBOTS_PRODUCT_TOKEN).sitemaps()
          : [];
      const urls = await withDeadline(
        discoverSitemapUrls(this.fetcher, start, declared, Math.max(r.limit * 4, 1000)),
        deadline,
        [],
      );
      urls.forEach(add);
    }
    // The start page's links, scraped with the URL as the caller wrote it (it passed the same URL
    // schema): the re-serialised `start.href` can be longer (a `/` added, characters
    // percent-encoded) and break a limit. A URL the scrape contract still refuses gets no links
    // rather than failing the whole map.
    const scrape =
      r.sitemap !== 'only' && Date.now() < deadline
        ? ScrapeRequest.safeParse({
            url: r.url,
            formats: ['links'],
            timeout: Math.max(1000, Math.min(60_000, deadline - Date.now())),
            ...(r.location ? { location: r.location } : {}),
          })
        : undefined;
    if (scrape?.success) {
      const options = scrape.data;
      const reply = await this.messaging
        .request(
          SCRAPE_RPC.run,
          { teamId: req.teamId, requestId: randomUUID(), jobId: randomUUID(), options },
          { timeoutMs: options.timeout + 5000 },
        )
        .catch(() => undefined);
      reply?.document?.links?.forEach(add);
    }

    let links: MapLink[] = [...found.values()].map((url) => ({ url }));
    if (r.search) links = rankBySearch(links, r.search);
    links = links.slice(0, r.limit);
    const gz = await gzipAsync(Buffer.from(JSON.stringify(links)));
    return { linksGz: gz.toString('base64'), count: links.length };
  }
}

/**
 * Distinct search terms a map ranks by: each is looked for in every link (a 1,000-character search
 * of 333 words took 320 ms over 100,000 links, on the event loop every crawl of the replica shares).
 */
export const MAX_SEARCH_TERMS = 32;

/** Links mentioning more of the (first 32 distinct) search terms first; ties keep discovery order. */
export function rankBySearch(links: MapLink[], search: string): MapLink[] {
  const terms = [
    ...new Set(
      search
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((t) => t.length > 0),
    ),
  ].slice(0, MAX_SEARCH_TERMS);
  const score = (url: string) => {
    const u = url.toLowerCase();
    return terms.reduce((n, t) => n + (u.includes(t) ? 1 : 0), 0);
  };
  return links
    .map((l, i) => ({ l, i, s: score(l.url) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.l);
}

async function withDeadline<T>(work: Promise<T>, deadline: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
