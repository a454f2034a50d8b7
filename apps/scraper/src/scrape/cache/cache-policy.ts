import { findFormat, readsScrapeCache, type ScrapeRunRequest } from '@wds/contracts';
import { scrapeCacheKey } from './cache-key';

type Options = ScrapeRunRequest['options'];

/** How one scrape reads the cache. */
export type CacheRead =
  /** `lockdown` or `minAge`: answered from the cache or not at all; the page is never fetched. */
  | { mode: 'cache-only'; lockdown: boolean; maxAgeMs?: number; minAgeMs?: number }
  /** An entry younger than `maxAgeMs` answers; otherwise the page is fetched. */
  | { mode: 'read-through'; maxAgeMs: number }
  /** The page is fetched whatever is cached. */
  | { mode: 'fetch' };

/**
 * Everything the scraper decides about the cache for one request, from its options alone, once:
 * the key, how it reads, and whether a fresh fetch may be written (the fetched page still has to
 * qualify: see `mayStore`).
 */
export interface CachePolicy {
  key: string;
  read: CacheRead;
  write: boolean;
}

/**
 * The cache policy of a request. `zeroDataRetention` is the request's effective setting (the
 * job's, the option, or lockdown): such a request never touches the index.
 */
export function cachePolicyOf(o: Options, zeroDataRetention: boolean): CachePolicy {
  const key = scrapeCacheKey(o);
  let read: CacheRead;
  if (o.lockdown || o.minAge !== undefined) {
    read = {
      mode: 'cache-only',
      lockdown: o.lockdown,
      maxAgeMs: o.lockdown ? o.maxAge : undefined,
      minAgeMs: o.minAge,
    };
  } else if (readsScrapeCache(o, zeroDataRetention)) {
    read = { mode: 'read-through', maxAgeMs: o.maxAge };
  } else {
    read = { mode: 'fetch' };
  }
  const write =
    // Zero data retention never touches the index; caller headers may change the page, so no shared copy.
    !zeroDataRetention &&
    Object.keys(o.headers ?? {}).length === 0 &&
    o.storeInCache &&
    // Media URLs expire with their artifacts: such documents are never reused from the cache.
    !findFormat(o.formats, 'audio') &&
    !findFormat(o.formats, 'video');
  return { key, read, write };
}

/**
 * Whether a freshly fetched page is stored under the policy: a successful answer, and no
 * screenshot (its URL expires with its artifact).
 */
export function mayStore(policy: CachePolicy, statusCode: number, hasScreenshot: boolean): boolean {
  return policy.write && !hasScreenshot && statusCode >= 200 && statusCode < 300;
}
