import { compileUserRegex, type UserRegex } from '@wds/contracts';
import { getDomain } from 'tldts';

/** The crawl options that decide which URLs a crawl visits. */
export interface ScopeOptions {
  includePaths?: readonly string[];
  excludePaths?: readonly string[];
  regexOnFullURL: boolean;
  maxDiscoveryDepth?: number;
  crawlEntireDomain: boolean;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
  ignoreQueryParameters: boolean;
  deduplicateSimilarURLs: boolean;
}

export type Verdict =
  | { ok: true; url: string; key: string }
  | { ok: false; reason: 'invalid' | 'file' | 'depth' | 'external' | 'path' | 'excluded' | 'not-included' };

/** Links to these are not pages (Firecrawl skips them too); PDFs and documents stay crawlable. */
const NON_PAGE_EXTENSION =
  /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|map|json|xml|rss|atom|woff2?|ttf|otf|eot|mp3|mp4|m4a|wav|ogg|webm|mov|avi|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|iso|apk|bin)$/i;
const INDEX_PAGE = /\/(?:index|default)\.(?:html?|php|aspx?)$/i;

/** Normalises a URL for fetching: no fragment, lower-case host, no default port; http(s) only. */
export function normalizeUrl(raw: string, base?: string, dropQuery = false): URL | undefined {
  let u: URL;
  try {
    u = base ? new URL(raw, base) : new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  if (dropQuery) u.search = '';
  return u;
}

/**
 * The de-duplication key: with `similar`, www/non-www, http/https, a trailing slash and index
 * pages collapse to one key (Firecrawl's deduplicateSimilarURLs); query parameters are sorted, or
 * left out with `ignoreQuery` (ignoreQueryParameters: a path is scraped once, at the first URL
 * found for it, query included).
 */
export function urlKey(u: URL, similar: boolean, ignoreQuery = false): string {
  if (ignoreQuery && u.search) {
    u = new URL(u.href);
    u.search = '';
  }
  if (!similar) return u.href;
  const host = u.hostname.replace(/^www\./, '');
  const port = u.port ? `:${u.port}` : '';
  let path = u.pathname.replace(INDEX_PAGE, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const params = [...u.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return `${host}${port}${path}${query}`;
}

function hostBare(host: string): string {
  return host.replace(/^www\./, '');
}

/**
 * Decides, for one crawl, whether a URL is in scope, exactly as api-v2.md words each option.
 * Regexes are compiled once with RE2 (the gateway has already refused invalid ones with 400).
 */
export class CrawlScope {
  private readonly include: UserRegex[];
  private readonly exclude: UserRegex[];
  private readonly startHost: string;
  private readonly startDomain: string | null;
  private readonly startPath: string;

  constructor(
    readonly start: URL,
    private readonly o: ScopeOptions,
  ) {
    // Linear-time engine: a user's pattern must not be able to stall the crawler (ReDoS).
    this.include = (o.includePaths ?? []).map(compileUserRegex);
    this.exclude = (o.excludePaths ?? []).map(compileUserRegex);
    this.startHost = hostBare(start.hostname);
    this.startDomain = getDomain(start.hostname, { allowPrivateDomains: true });
    // "Child paths of the start path": /docs covers /docs and /docs/…, not /docsearch.
    this.startPath = start.pathname.replace(INDEX_PAGE, '/').replace(/\/+$/, '');
  }

  /** The start URL as the crawl fetches it (its query kept) and its key. */
  startPage(): { url: string; key: string } {
    const u = normalizeUrl(this.start.href)!;
    return { url: u.href, key: this.keyOf(u) };
  }

  /**
   * `depth` is the discovery depth the URL would get (root and sitemap pages 0). `fromSitemap`
   * URLs skip the child-path rule only when the crawl covers the entire domain, as with links.
   */
  check(raw: string, depth: number, base?: string): Verdict {
    const u = normalizeUrl(raw, base);
    if (!u) return { ok: false, reason: 'invalid' };
    if (NON_PAGE_EXTENSION.test(u.pathname)) return { ok: false, reason: 'file' };
    if (this.o.maxDiscoveryDepth !== undefined && depth > this.o.maxDiscoveryDepth) {
      return { ok: false, reason: 'depth' };
    }
    const host = hostBare(u.hostname);
    const sameHost = host === this.startHost;
    const subdomain =
      !sameHost &&
      this.o.allowSubdomains &&
      this.startDomain !== null &&
      getDomain(u.hostname, { allowPrivateDomains: true }) === this.startDomain;
    if (!sameHost && !subdomain && !this.o.allowExternalLinks) return { ok: false, reason: 'external' };
    if (sameHost && !this.o.crawlEntireDomain && !this.underStartPath(u.pathname)) {
      return { ok: false, reason: 'path' };
    }
    const target = this.o.regexOnFullURL ? u.href : u.pathname;
    if (this.exclude.some((r) => r.test(target))) return { ok: false, reason: 'excluded' };
    if (this.include.length && !this.include.some((r) => r.test(target))) {
      return { ok: false, reason: 'not-included' };
    }
    return { ok: true, url: u.href, key: this.keyOf(u) };
  }

  private keyOf(u: URL): string {
    return urlKey(u, this.o.deduplicateSimilarURLs, this.o.ignoreQueryParameters);
  }

  private underStartPath(pathname: string): boolean {
    if (!this.startPath) return true;
    const p = pathname.replace(INDEX_PAGE, '/').replace(/\/+$/, '');
    return p === this.startPath || p.startsWith(`${this.startPath}/`);
  }
}
