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

/**
 * Characters of XML the parser reads before the event loop gets a turn: the SAX parser reads ~10 MB/s,
 * and a sitemap can be 50 MB (a 33 MB one held the crawler's event loop for 3.3 s in one piece).
 */
const CHUNK_CHARS = 16 * 1024;

/** The XML in pieces cut after a `>` (never inside a tag or a surrogate pair), a turn of the event loop between them. */
async function* pieces(xml: string): AsyncGenerator<string> {
  let at = 0;
  while (at < xml.length) {
    const gt = xml.indexOf('>', at + CHUNK_CHARS);
    const end = gt === -1 ? xml.length : gt + 1;
    yield xml.slice(at, end);
    at = end;
    if (at < xml.length) await new Promise((r) => setImmediate(r));
  }
}

function collect(
  stream: XMLToSitemapItemStream | XMLToSitemapIndexStream,
  xml: string,
  take: (loc: string) => boolean,
): Promise<string[]> {
  return new Promise((resolve) => {
    const locs: string[] = [];
    const source = Readable.from(pieces(xml));
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve(locs);
    };
    stream.on('data', (item: { url?: string }) => {
      if (settled || typeof item.url !== 'string' || item.url.trim() === '') return;
      const loc = item.url.trim();
      if (!take(loc)) {
        // Enough: the rest of the file is not read.
        done();
        source.destroy();
        stream.destroy();
        return;
      }
      locs.push(loc);
    });
    // Whatever was read before a syntax error is kept: real sitemaps are often truncated or sloppy.
    stream.on('error', done);
    stream.on('end', done);
    stream.on('close', done);
    source.on('error', done).pipe(stream);
  });
}

/**
 * A sitemap (`<urlset>`) or sitemap index (`<sitemapindex>`), read with the `sitemap` package's
 * SAX parser (entities, CDATA, namespaces, the image/news/video extensions) in pieces, so that a
 * large file does not hold the event loop; null when the text is neither (an HTML error page
 * served with status 200, say). `take` sees each `<loc>` in order and stops the reading by
 * answering false (that loc is left out).
 */
export async function parseSitemap(
  xml: string,
  take: (loc: string, index: boolean) => boolean = () => true,
): Promise<ParsedSitemap | null> {
  const root = ROOT.exec(xml.slice(0, 64 * 1024));
  if (root === null) return null;
  const index = root[1].toLowerCase() === 'sitemapindex';
  const options = { level: ErrorLevel.SILENT, logger: false as const };
  const locs = await collect(
    index ? new XMLToSitemapIndexStream(options) : new XMLToSitemapItemStream(options),
    xml,
    (loc) => take(loc, index),
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
    const base = res.url || next;
    // URLs are taken as they are read; a urlset is read no further once `max` are in hand, an
    // index no further than a few times the files that can be read (some fail or repeat).
    const parsed = await parseSitemap(res.text, (loc, index) => {
      if (index ? queue.length >= 4 * MAX_SITEMAP_FILES : urls.length >= max) return false;
      const url = absolute(loc, base);
      if (url !== null) (index ? queue : urls).push(url);
      return true;
    });
    if (parsed === null) continue;
    usable++;
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
