import { CrawlScope, normalizeUrl, urlKey, type ScopeOptions } from './scope';
import { parseSitemap } from './sitemaps';
import { parseRobots, robotsPart, ROBOTS_MAX_CHARS } from './robots';

const base: ScopeOptions = {
  regexOnFullURL: false,
  crawlEntireDomain: false,
  allowSubdomains: false,
  allowExternalLinks: false,
  ignoreQueryParameters: false,
  deduplicateSimilarURLs: true,
};
const scope = (start: string, o: Partial<ScopeOptions> = {}) =>
  new CrawlScope(new URL(start), { ...base, ...o });

describe('similar-URL keys', () => {
  it('collapse www, scheme, trailing slash, index pages and fragments; sort query parameters', () => {
    const key = (u: string) => urlKey(normalizeUrl(u)!, true);
    expect(key('https://www.example.com/docs/')).toBe(key('http://example.com/docs'));
    expect(key('https://example.com/docs/index.html')).toBe(key('https://example.com/docs'));
    expect(key('https://example.com/a#top')).toBe(key('https://example.com/a'));
    expect(key('https://example.com/a?b=2&a=1')).toBe(key('https://example.com/a?a=1&b=2'));
    expect(key('https://example.com/a?x=1')).not.toBe(key('https://example.com/a'));
    expect(urlKey(normalizeUrl('https://www.example.com/a/')!, false)).toBe('https://www.example.com/a/');
  });

  it('drop the query with ignoreQueryParameters and refuse non-http(s) links', () => {
    expect(normalizeUrl('https://e.com/a?x=1#f', undefined, true)!.href).toBe('https://e.com/a');
    expect(normalizeUrl('mailto:a@e.com')).toBeUndefined();
    expect(normalizeUrl('javascript:void(0)')).toBeUndefined();
  });
});

describe('CrawlScope', () => {
  it('with ignoreQueryParameters fetches a URL with its query but scrapes each path once', () => {
    const s = scope('https://e.com/?from=start', { ignoreQueryParameters: true });
    expect(s.startPage().url).toBe('https://e.com/?from=start');
    const a1 = s.check('https://e.com/a?id=1#top', 1);
    const a2 = s.check('https://e.com/a?id=2', 1);
    const a = s.check('https://e.com/a', 1);
    expect(a1).toMatchObject({ ok: true, url: 'https://e.com/a?id=1' });
    expect(a1.ok && a2.ok && a.ok && a1.key === a2.key && a2.key === a.key).toBe(true);
    expect(s.check('https://e.com/', 1)).toMatchObject({ ok: true, key: s.startPage().key });
    // Without it, each query is a page of its own.
    const q = scope('https://e.com/');
    const [k1, k2] = [q.check('https://e.com/a?id=1', 1), q.check('https://e.com/a?id=2', 1)];
    expect(k1.ok && k2.ok && k1.key !== k2.key).toBe(true);
  });

  it('keeps to child paths of the start path unless crawlEntireDomain', () => {
    const s = scope('https://e.com/docs');
    expect(s.check('https://e.com/docs/a', 1).ok).toBe(true);
    expect(s.check('https://e.com/docs', 1).ok).toBe(true);
    expect(s.check('https://e.com/docsearch', 1)).toEqual({ ok: false, reason: 'path' });
    expect(s.check('https://e.com/blog', 1)).toEqual({ ok: false, reason: 'path' });
    expect(scope('https://e.com/docs', { crawlEntireDomain: true }).check('https://e.com/blog', 1).ok).toBe(
      true,
    );
  });

  it('matches include/exclude regexes on the pathname, or the full URL with regexOnFullURL', () => {
    const s = scope('https://e.com/', { includePaths: ['^/blog/'], excludePaths: ['draft'] });
    expect(s.check('https://e.com/blog/post', 1).ok).toBe(true);
    expect(s.check('https://e.com/blog/draft-1', 1)).toEqual({ ok: false, reason: 'excluded' });
    expect(s.check('https://e.com/docs', 1)).toEqual({ ok: false, reason: 'not-included' });
    const full = scope('https://e.com/', {
      includePaths: ['^https://e\\.com/.*\\?page=\\d+$'],
      regexOnFullURL: true,
    });
    expect(full.check('https://e.com/list?page=2', 1).ok).toBe(true);
    expect(full.check('https://e.com/list', 1).ok).toBe(false);
  });

  it('limits discovery depth', () => {
    const s = scope('https://e.com/', { maxDiscoveryDepth: 1 });
    expect(s.check('https://e.com/a', 1).ok).toBe(true);
    expect(s.check('https://e.com/a/b', 2)).toEqual({ ok: false, reason: 'depth' });
  });

  it('follows subdomains by registrable domain (public suffix aware) and external links only when allowed', () => {
    const sub = scope('https://www.example.co.uk/', { allowSubdomains: true });
    expect(sub.check('https://blog.example.co.uk/x', 1).ok).toBe(true);
    expect(sub.check('https://other.co.uk/x', 1)).toEqual({ ok: false, reason: 'external' });
    const plain = scope('https://example.com/');
    expect(plain.check('https://www.example.com/x', 1).ok).toBe(true);
    expect(plain.check('https://blog.example.com/x', 1)).toEqual({ ok: false, reason: 'external' });
    expect(
      scope('https://example.com/', { allowExternalLinks: true }).check('https://other.org/x', 1).ok,
    ).toBe(true);
    // github.io is a public suffix: two users' sites are not subdomains of one another.
    expect(scope('https://a.github.io/', { allowSubdomains: true }).check('https://b.github.io/', 1).ok).toBe(
      false,
    );
  });

  it('matches user patterns in linear time: a catastrophic pattern on a long path cannot stall the crawler', () => {
    // With JavaScript's backtracking engine, 31 a's took ~20 s and each more doubled it.
    const s = scope('https://e.com/', { includePaths: ['(a+)+$'], excludePaths: ['(x|x)*y'] });
    const long = `https://e.com/${'a'.repeat(5000)}!`;
    expect(s.check(long, 1)).toEqual({ ok: false, reason: 'not-included' });
    expect(s.check(`https://e.com/${'x'.repeat(5000)}`, 1).ok).toBe(false);
    expect(s.check('https://e.com/aaa', 1).ok).toBe(true);
  });

  it('skips links to files that are not pages', () => {
    const s = scope('https://e.com/');
    expect(s.check('https://e.com/logo.png', 1)).toEqual({ ok: false, reason: 'file' });
    expect(s.check('https://e.com/report.pdf', 1).ok).toBe(true);
  });
});

describe('sitemaps and robots', () => {
  it('reads urlsets and sitemap indexes with CDATA and entities', async () => {
    expect(
      await parseSitemap(
        '<urlset><url><loc>https://e.com/a?x=1&amp;y=2</loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>',
      ),
    ).toEqual({ index: false, locs: ['https://e.com/a?x=1&y=2', 'https://e.com/b'] });
    expect(
      await parseSitemap('<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>'),
    ).toEqual({
      index: true,
      locs: ['https://e.com/s1.xml'],
    });
  });

  it('reads a large sitemap in pieces, the event loop getting turns, and stops when told', async () => {
    const entries = Array.from({ length: 40_000 }, (_, i) => `<url><loc>https://e.com/p/${i}</loc></url>`);
    const xml = `<urlset>${entries.join('\n')}</urlset>`;
    expect(xml.length).toBeGreaterThan(1_000_000);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const all = await parseSitemap(xml);
    counting = false;
    expect(all?.locs).toHaveLength(40_000);
    expect(all?.locs[39_999]).toBe('https://e.com/p/39999');
    // In one piece the parse would have held the event loop from start to end.
    expect(turns).toBeGreaterThan(20);
    let seen = 0;
    const some = await parseSitemap(xml, () => ++seen <= 100);
    expect(some?.locs).toEqual(all?.locs.slice(0, 100));
  });

  it('reads the first 500 KiB of a robots.txt, to a line break (RFC 9309)', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = Array.from({ length: 40_000 }, (_, i) => `Allow: /filler/${i}`).join('\n');
    const text = `${head}${filler}\nDisallow: /late\n`;
    expect(text.length).toBeGreaterThan(ROBOTS_MAX_CHARS);
    const part = robotsPart(text);
    expect(part.length).toBeLessThanOrEqual(ROBOTS_MAX_CHARS);
    expect(part.endsWith('\n')).toBe(true);
    const robots = parseRobots('https://e.com/robots.txt', part, 'WDSBot');
    expect(robots.isAllowed('https://e.com/early/x')).toBe(false);
    expect(robots.isAllowed('https://e.com/late/x')).toBe(true);
    expect(robotsPart(head)).toBe(head);
  });

  it('applies robots.txt for the crawler agent and lists declared sitemaps', () => {
    const robots = parseRobots(
      'https://e.com/robots.txt',
      'User-agent: *\nDisallow: /private\n\nUser-agent: WDSBot\nDisallow: /no-bots\nSitemap: https://e.com/s.xml',
      'WDSBot',
    );
    expect(robots.isAllowed('https://e.com/no-bots/x')).toBe(false);
    expect(robots.isAllowed('https://e.com/docs')).toBe(true);
    expect(robots.sitemaps()).toEqual(['https://e.com/s.xml']);
  });
});
