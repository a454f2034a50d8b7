import type { SiteFetcher } from './site-fetcher';

const MAX_SITEMAP_FILES = 50;
const LOC = /<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]]+?)\s*(?:\]\]>)?\s*<\/loc>/gi;

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'");
}

/** `<loc>` values of a sitemap or sitemap index, and which of the two it is. */
export function parseSitemap(xml: string): { index: boolean; locs: string[] } {
  const index = /<sitemapindex[\s>]/i.test(xml);
  const locs: string[] = [];
  for (const m of xml.matchAll(LOC)) locs.push(decodeEntities(m[1]));
  return { index, locs };
}

/**
 * Every page URL listed by the site's sitemaps: those robots.txt declares, else `/sitemap.xml`;
 * sitemap indexes are followed (up to 50 files), gzip files are read. Stops at `max` URLs.
 * Without `userAgent` the fetcher's own (the published crawler string) is sent.
 */
export async function discoverSitemapUrls(
  fetcher: SiteFetcher,
  start: URL,
  declared: readonly string[],
  max: number,
  userAgent?: string,
): Promise<string[]> {
  const queue = declared.length ? [...declared] : [new URL('/sitemap.xml', start.origin).href];
  const seen = new Set<string>();
  const urls: string[] = [];
  while (queue.length && seen.size < MAX_SITEMAP_FILES && urls.length < max) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const res = await fetcher.getText(next, { userAgent });
    if (!res || res.status < 200 || res.status >= 300) continue;
    const { index, locs } = parseSitemap(res.text);
    if (index) queue.push(...locs);
    else for (const loc of locs) if (urls.length < max) urls.push(loc);
  }
  return urls;
}
