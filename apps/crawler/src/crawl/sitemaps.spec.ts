import { gzipSync } from 'node:zlib';
import { discoverSitemapUrls, parseSitemap, robotsSitemaps } from './sitemaps';
import { SiteFetcher, type FetchedText } from './site-fetcher';

class MapFetcher extends SiteFetcher {
  readonly reads: string[] = [];
  constructor(private readonly bodies: Record<string, string>) {
    super();
  }
  async getText(url: string): Promise<FetchedText | undefined> {
    this.reads.push(url);
    const text = this.bodies[url];
    return text === undefined ? { status: 404, url, text: 'not found' } : { status: 200, url, text };
  }
  async close(): Promise<void> {}
}

const urlset = (...locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<url><loc>${l}</loc></url>`)
    .join('')}</urlset>`;

describe('robots.txt Sitemap lines', () => {
  it('resolves relative values against robots.txt and tolerates case, whitespace and comments', () => {
    const text = [
      'User-agent: *',
      'Sitemap: /sitemap-pages.xml',
      'sitemap:https://e.com/abs.xml',
      '  SITEMAP  :  sitemaps/news.xml   # the news',
      'Site-map: //cdn.e.com/s.xml',
      'Sitemap: ftp://e.com/nope.xml',
      'Sitemap:',
    ].join('\r\n');
    expect(robotsSitemaps('https://e.com/robots.txt', text)).toEqual([
      'https://e.com/sitemap-pages.xml',
      'https://e.com/abs.xml',
      'https://e.com/sitemaps/news.xml',
      'https://cdn.e.com/s.xml',
    ]);
  });
});

describe('sitemap XML', () => {
  it('reads news and image sitemaps with namespaces, and refuses what is not a sitemap', async () => {
    const news =
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" ' +
      'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" ' +
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">' +
      '<url><loc>https://e.com/story</loc><news:news><news:publication><news:name>E</news:name>' +
      '<news:language>en</news:language></news:publication><news:publication_date>2024-01-01</news:publication_date>' +
      '<news:title>T</news:title></news:news><image:image><image:loc>https://e.com/i.png</image:loc></image:image></url>' +
      '</urlset>';
    expect(await parseSitemap(news)).toEqual({ index: false, locs: ['https://e.com/story'] });
    expect(await parseSitemap('<!doctype html><html><body>Not found</body></html>')).toBeNull();
    // A truncated file keeps what was read before the break.
    expect(
      await parseSitemap(urlset('https://e.com/a').replace('</urlset>', '<url><loc>https://e.c')),
    ).toEqual({
      index: false,
      locs: ['https://e.com/a'],
    });
  });
});

describe('discoverSitemapUrls', () => {
  const start = new URL('https://e.com/');

  it('falls back to /sitemap.xml and /sitemap_index.xml when no declared sitemap can be read', async () => {
    const fetcher = new MapFetcher({
      'https://e.com/sitemap_index.xml':
        '<sitemapindex><sitemap><loc>https://e.com/part-1.xml</loc></sitemap></sitemapindex>',
      'https://e.com/part-1.xml': urlset('https://e.com/only-in-sitemap', '/relative-page'),
    });
    const urls = await discoverSitemapUrls(fetcher, start, ['https://e.com/declared-but-gone.xml'], 100);
    expect(fetcher.reads).toEqual([
      'https://e.com/declared-but-gone.xml',
      'https://e.com/sitemap.xml',
      'https://e.com/sitemap_index.xml',
      'https://e.com/part-1.xml',
    ]);
    // Relative <loc> values are not valid sitemap entries (the protocol requires absolute URLs).
    expect(urls).toEqual(['https://e.com/only-in-sitemap']);
  });

  it('does not try the well-known files when a declared sitemap was read', async () => {
    const fetcher = new MapFetcher({ 'https://e.com/s.xml': urlset('https://e.com/a') });
    expect(await discoverSitemapUrls(fetcher, start, ['https://e.com/s.xml'], 100)).toEqual([
      'https://e.com/a',
    ]);
    expect(fetcher.reads).toEqual(['https://e.com/s.xml']);
  });

  it('is fed gzip sitemaps already inflated by the fetcher (gzip bodies are detected by magic bytes)', () => {
    // OutboundSiteFetcher inflates bodies starting with the gzip magic; the parser sees XML.
    expect(gzipSync(Buffer.from(urlset('https://e.com/z')))[0]).toBe(0x1f);
  });
});
