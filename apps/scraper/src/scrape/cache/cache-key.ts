/** The cache identity is shared with the gateway's hot copy of cache entries, so it lives in contracts. */
export { normalizeCacheUrl, scrapeCacheKey } from '@wds/contracts';
