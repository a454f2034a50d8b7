import { hash } from 'node:crypto';
import { normalizeFormats } from './formats';
import { hasPerRequestFormat } from '../../messages/scrape/features';
import type { ScrapeRequest } from './scrape-request';

/**
 * URL form used for cache identity: no fragment, query parameters sorted, no trailing slash on a
 * non-root path. Host case and default ports are already normalised by the URL parser.
 */
export function normalizeCacheUrl(url: string): string {
  const u = new URL(url);
  // Each URL setter re-parses the whole URL: skipped when the input cannot hold a fragment or a
  // query (the parser never makes one up), so most URLs cost a single parse.
  if (url.includes('#')) u.hash = '';
  if (url.includes('?')) u.searchParams.sort();
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.replace(/\/+$/, '');
  return u.href;
}

type KeyFields = Pick<
  ScrapeRequest,
  | 'url'
  | 'formats'
  | 'onlyMainContent'
  | 'includeTags'
  | 'excludeTags'
  | 'removeBase64Images'
  | 'mobile'
  | 'location'
  | 'parsers'
>;

const sorted = (values: readonly string[] | undefined): string[] => [...new Set(values ?? [])].sort();

/**
 * Cache identity of a scrape: every option that changes the produced document is part of it, so
 * requests differing in one of them never share an entry. Options that only change how the page
 * is fetched (timeout, proxy, TLS verification) are not. The scraper (owner of the cache) and the
 * gateway's hot copy (see the gateway README) must agree on it, hence it lives here.
 */
export function scrapeCacheKey(o: KeyFields): string {
  const formats = normalizeFormats(o.formats)
    .map((f) => JSON.stringify(f))
    .sort();
  const identity = {
    v: 1,
    url: normalizeCacheUrl(o.url),
    formats: [...new Set(formats)],
    onlyMainContent: o.onlyMainContent,
    includeTags: sorted(o.includeTags),
    excludeTags: sorted(o.excludeTags),
    removeBase64Images: o.removeBase64Images,
    mobile: o.mobile,
    country: o.location.country,
    languages: o.location.languages ?? [],
    parsers: o.parsers.map((p) => JSON.stringify(p)),
  };
  // One-shot hash: a Hash object per key cost as much as the rest of the key.
  return hash('sha256', JSON.stringify(identity), 'hex');
}

type ReadFields = Pick<
  ScrapeRequest,
  | 'zeroDataRetention'
  | 'lockdown'
  | 'minAge'
  | 'maxAge'
  | 'headers'
  | 'actions'
  | 'formats'
  | 'onlyCleanContent'
>;

/**
 * Whether a scrape may be answered from a cached copy younger than `maxAge` (the ordinary path;
 * lockdown and minAge are cache-only paths of their own). Never under zero data retention (the
 * index is not touched), never with caller headers or actions (they may change the page, so no
 * shared copy answers them), never for change tracking or media (see `PER_REQUEST_FORMATS`: a
 * change-tracking scrape compares what the page is now with the team's previous snapshot).
 */
export function readsScrapeCache(o: ReadFields, zeroDataRetention = false): boolean {
  return (
    !zeroDataRetention &&
    !o.zeroDataRetention &&
    !o.lockdown &&
    o.minAge === undefined &&
    o.maxAge > 0 &&
    Object.keys(o.headers ?? {}).length === 0 &&
    (o.actions?.length ?? 0) === 0 &&
    !hasPerRequestFormat(o.formats) &&
    // The LLM cleaning pass runs per request (its output is not part of the cached copy).
    !o.onlyCleanContent
  );
}

/** `data.metadata` keys that belong to one request, not to the cached document. */
export const PER_REQUEST_METADATA_KEYS = [
  'scrapeId',
  'cacheState',
  'cachedAt',
  'creditsUsed',
  'proxyUsed',
] as const;

/** The metadata a cache hit adds to the cached document's. */
export function cacheHitMetadata(
  scrapeId: string,
  fetchedAtMs: number,
  creditsUsed: number,
): { scrapeId: string; cacheState: 'hit'; cachedAt: string; creditsUsed: number } {
  return { scrapeId, cacheState: 'hit', cachedAt: new Date(fetchedAtMs).toISOString(), creditsUsed };
}
