import { createHash } from 'node:crypto';
import { normalizeFormats, type ScrapeRequest } from '@wds/contracts';

/**
 * URL form used for cache identity: no fragment, query parameters sorted, no trailing slash on a
 * non-root path. Host case and default ports are already normalised by the URL parser.
 */
export function normalizeCacheUrl(url: string): string {
  const u = new URL(url);
  u.hash = '';
  u.searchParams.sort();
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
 * is fetched (timeout, proxy, TLS verification) are not.
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
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}
