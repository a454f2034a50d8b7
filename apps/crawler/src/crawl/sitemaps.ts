import { Readable } from 'node:stream';
import { ErrorLevel, XMLToSitemapIndexStream, XMLToSitemapItemStream } from 'sitemap';
import type { SiteFetcher } from './site-fetcher';

const MAX_SITEMAP_FILES = 50;
/** Tried when robots.txt declares no sitemap that can be read, in this order. */
const WELL_KNOWN_SITEMAPS = ['/sitemap.xml', '/sitemap_index.xml'];
/** The document element, after the prolog, comments and doctype, with an optional namespace prefix. */
const ROOT = /<(?:[A-Za-z_][\w.-]*:)?(urlset|sitemapindex)[\s/>]/i;

export interface ParsedSitemap {
  index: boolean;
  /** Page URLs of a urlset (with any image/news/video extensions ignored), or sitemap URLs of an index. */
  locs: string[];
}

function collect(stream: XMLToSitemapItemStream | XMLToSitemapIndexStream, xml: string): Promise<string[]> {
  return new Promise((resolve) => {
    const locs: string[] = [];
    const done = () => resolve(locs);
    stream.on('data', (item: { url?: string }) => {
      if (typeof item.url === 'string' && item.url.trim() !== '') locs.push(item.url.trim());
    });
    // Whatever was read before a syntax error is kept: real sitemaps are often truncated or sloppy.
    stream.on('error', done);
    stream.on('end', done);
    Readable.from([xml]).on('error', done).pipe(stream);
  });
}

/**
 * A sitemap (`<urlset>`) or sitemap index (`<sitemapindex>`), read with the `sitemap` package's
 * SAX parser (entities, CDATA, namespaces, the image/news/video extensions); null when the text
 * is neither (an HTML error page served with status 200, say).
 */
export async function parseSitemap(xml: string): Promise<ParsedSitemap | null> {
  const root = ROOT.exec(xml.slice(0, 64 * 1024));
  if (root === null) return null;
  const index = root[1].toLowerCase() === 'sitemapindex';
  const options = { level: ErrorLevel.SILENT, logger: false as const };
  const locs = await collect(
    index ? new XMLToSitemapIndexStream(options) : new XMLToSitemapItemStream(options),
    xml,
  );
  return { index, locs };
}

/**
 * `Sitemap:` lines of a robots.txt as absolute http(s) URLs: the directive in any case, with or
 * without whitespace around the colon, relative values resolved against the robots.txt URL (as
 * sites write them: `Sitemap: /sitemap.xml`), a trailing ` # comment` dropped.
 */
export function robotsSitemaps(robotsUrl: string, text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const m = /^\s*site-?map\s*:\s*(.*)$/i.exec(line);
    if (!m) continue;
    const value = m[1].replace(/\s+#.*$/, '').trim();
    if (value === '') continue;
    try {
      const url = new URL(value, robotsUrl);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !out.includes(url.href))
        out.push(url.href);
    } catch {
      // not a URL: ignored, as a browser would
    }
  }
  return out;
}

/**
 * Every page URL listed by the site's sitemaps: those robots.txt declares and, when none of them
 * can be read, `/sitemap.xml` and `/sitemap_index.xml`; sitemap indexes are followed (up to 50
 * files), gzip files are read; only absolute http(s) `<loc>` values count, as the protocol says.
 * Stops at `max` URLs. Without `userAgent` the fetcher's own (the published crawler string) is sent.
 */
export async function discoverSitemapUrls(
  fetcher: SiteFetcher,
  start: URL,
  declared: readonly string[],
  max: number,
  userAgent?: string,
): Promise<string[]> {
  const queue = [...declared];
  const fallbacks = WELL_KNOWN_SITEMAPS.map((p) => new URL(p, start.origin).href);
  const seen = new Set<string>();
  const urls: string[] = [];
  let usable = 0;
  let fellBack = false;
  for (;;) {
    if (queue.length === 0 && usable === 0 && !fellBack) {
      fellBack = true;
      queue.push(...fallbacks);
    }
    if (queue.length === 0 || seen.size >= MAX_SITEMAP_FILES || urls.length >= max) break;
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const res = await fetcher.getText(next, { userAgent });
    if (!res || res.status < 200 || res.status >= 300) continue;
    const parsed = await parseSitemap(res.text);
    if (parsed === null) continue;
    usable++;
    for (const loc of parsed.locs) {
      const url = absolute(loc, res.url || next);
      if (url === null) continue;
      if (parsed.index) queue.push(url);
      else if (urls.length < max) urls.push(url);
    }
  }
  return urls;
}

function absolute(loc: string, base: string): string | null {
  try {
    const url = new URL(loc, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
