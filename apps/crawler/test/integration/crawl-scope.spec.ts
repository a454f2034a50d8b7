import type { CrawlRequestInput } from '@wds/contracts';
import { buildServices, pathsOf, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import {
  gzipSitemap,
  page,
  sitemap,
  sitemapIndex,
  startScopeSite,
  text,
  type Route,
  type ScopeSite,
} from '../support/scope-site';

/** The user agent apps/crawler/README.md publishes for robots.txt and sitemap fetches. */
const PUBLISHED_UA = 'WDSBot/1.0 (+https://github.com/web-data-service; crawler)';

/**
 * Crawl scope rules as api-v2.md words them, against local sites built per test (routes, hits,
 * headers and overlap recorded by the site), with the real scraper and billing processes.
 */
describe('crawl scope rules, sitemaps, robots.txt and concurrency on local sites', () => {
  let stack: CrawlStack;
  const sites: ScopeSite[] = [];

  beforeAll(async () => {
    buildServices();
    // A port-less IP entry admits every local site of this file, whether reached as 127.0.0.1 or
    // as localhost (names are resolved first and the address is what the entry matches).
    stack = await startCrawlStack({ WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1' });
    await stack.startCrawler({ WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    for (const s of sites) await s.close();
  }, 60_000);

  const site = async (routes: Record<string, Route>, opts?: { delayMs?: number }) => {
    const s = await startScopeSite(routes, opts);
    sites.push(s);
    return s;
  };

  const crawl = async (
    request: CrawlRequestInput,
    opts: { team?: string; teamConcurrency?: number } = {},
  ) => {
    const team = opts.team ?? (await stack.team());
    const id = await stack.createCrawl(
      team,
      { ...request, scrapeOptions: { maxAge: 0, ...request.scrapeOptions } },
      opts.teamConcurrency,
    );
    const result = await stack.finish(team, id, 90_000);
    expect(result.status.status).toBe('completed');
    expect(result.docs).toHaveLength(result.status.completed);
    return { id, team, ...result, paths: pathsOf(result.docs) };
  };

  /** Page requests only: robots.txt and sitemap fetches are the crawler's, not page scrapes. */
  const pageRequests = (s: ScopeSite) =>
    s.requests.filter((r) => r.path !== '/robots.txt' && !/\.xml(\.gz)?$/.test(r.path));

  it('regexOnFullURL matches includePaths and excludePaths against the full URL, not the pathname', async () => {
    const s = await site({
      '/': page('home', ['/a?keep=1', '/b', '/c?keep=1']),
      '/a': page('a'),
      '/b': page('b'),
      '/c': page('c'),
    });
    const req = { url: s.url, sitemap: 'skip' } as const;
    // `/$` matches the start URL both ways; `keep=1` only ever matches a query, which the
    // pathname does not carry.
    const include = ['/$', 'keep=1'];
    expect((await crawl({ ...req, includePaths: include })).paths).toEqual(['/']);
    expect((await crawl({ ...req, includePaths: include, regexOnFullURL: true })).paths).toEqual([
      '/',
      '/a',
      '/c',
    ]);
    expect((await crawl({ ...req, excludePaths: ['keep=1'] })).paths).toEqual(['/', '/a', '/b', '/c']);
    expect((await crawl({ ...req, excludePaths: ['keep=1'], regexOnFullURL: true })).paths).toEqual([
      '/',
      '/b',
    ]);
    // The host and port are part of the full URL only.
    const byHost = await crawl({ ...req, includePaths: [`:${s.port}/[ab]?($|\\?)`], regexOnFullURL: true });
    expect(byHost.paths).toEqual(['/', '/a', '/b']);
  }, 240_000);

  it('sitemap include uses sitemap and links, only the sitemap (no links), skip only links', async () => {
    const s = await site({
      '/': page('home', ['/linked']),
      '/linked': page('linked'),
      // Listed in the sitemap only, never linked.
      '/mapped': page('mapped', ['/from-mapped']),
      '/from-mapped': page('from mapped'),
      '/sitemap.xml': sitemap(['/', '/mapped']),
    });
    const include = await crawl({ url: s.url });
    expect(include.paths).toEqual(['/', '/from-mapped', '/linked', '/mapped']);
    const only = await crawl({ url: s.url, sitemap: 'only' });
    expect(only.paths).toEqual(['/', '/mapped']);
    const skip = await crawl({ url: s.url, sitemap: 'skip' });
    expect(skip.paths).toEqual(['/', '/linked']);
  }, 240_000);

  it('reads the sitemaps robots.txt declares: indexes, gzip files; sitemap pages are depth 0', async () => {
    const s = await site({
      '/robots.txt': {
        type: 'text/plain',
        body: (origin) => `User-agent: *\nAllow: /\n\nSitemap: ${origin}/maps/index.xml\n`,
      },
      '/maps/index.xml': sitemapIndex(['/maps/plain.xml', '/maps/pages.xml.gz']),
      '/maps/plain.xml': sitemap(['/from-plain']),
      '/maps/pages.xml.gz': gzipSitemap(['/from-gz']),
      '/': page('home', ['/linked']),
      '/linked': page('linked'),
      '/from-plain': page('from plain', ['/deeper']),
      '/from-gz': page('from gz'),
      '/deeper': page('deeper'),
    });
    const all = await crawl({ url: s.url });
    expect(all.paths).toEqual(['/', '/deeper', '/from-gz', '/from-plain', '/linked']);
    expect(s.hits('/maps/pages.xml.gz')).toBe(1);

    const flat = await crawl({ url: s.url, maxDiscoveryDepth: 0 });
    // Start and sitemap pages are depth 0; what they link to is depth 1.
    expect(flat.paths).toEqual(['/', '/from-gz', '/from-plain']);
  }, 240_000);

  it('fetches a page once however links spell it (slash, index page, fragment, scheme, query order)', async () => {
    const docs = page('docs', ['/', '/index.html', '/#top', '/docs/index.html', '/docs/']);
    const s = await site({
      '/': page('home', (origin) => [
        '/docs',
        '/docs/',
        '/docs/index.html',
        '/docs#intro',
        '/about/',
        '/about',
        '/about#team',
        // https on this plain-HTTP port: fetched as a page of its own, it would fail (and count).
        `${origin.replace('http:', 'https:')}/docs`,
        `${origin.replace('http:', 'https:')}/about/`,
        '/q?a=1&b=2',
        '/q?b=2&a=1',
      ]),
      '/index.html': page('home again'),
      '/docs': docs,
      '/docs/': docs,
      '/docs/index.html': docs,
      '/about': page('about'),
      '/about/': page('about'),
      '/q': page('query'),
    });
    const { status, paths } = await crawl({ url: s.url, sitemap: 'skip' });
    // Whichever spelling is found first is the one fetched.
    const canonical = paths.map((p) => p.replace(/index\.html$/, '').replace(/(.)\/$/, '$1'));
    expect(canonical).toEqual(['/', '/about', '/docs', '/q']);
    // Pages attempted: a variant fetched as a page of its own would count here.
    expect(status.total).toBe(4);
    const hits = (...ps: string[]) => ps.reduce((n, p) => n + s.hits(p), 0);
    expect(hits('/', '/index.html')).toBe(1);
    expect(hits('/docs', '/docs/', '/docs/index.html')).toBe(1);
    expect(hits('/about', '/about/')).toBe(1);
    expect(hits('/q')).toBe(1);
  }, 240_000);

  it('follows links to another host (localhost on a second port) only with allowExternalLinks', async () => {
    const other = await site({
      '/ext': page('external', ['/ext-child']),
      '/ext-child': page('external child'),
    });
    // localhost resolves to 127.0.0.1 here, but as a host name it is another site than 127.0.0.1.
    const otherUrl = `http://localhost:${other.port}`;
    const s = await site({ '/': page('home', ['/local', `${otherUrl}/ext`]), '/local': page('local') });

    const plain = await crawl({ url: s.url, sitemap: 'skip' });
    expect(plain.paths).toEqual(['/', '/local']);
    expect(other.hits('/ext')).toBe(0);

    const open = await crawl({ url: s.url, sitemap: 'skip', allowExternalLinks: true });
    const urls = open.docs.map((d) => d.metadata.sourceURL as string).sort();
    expect(urls).toEqual(expect.arrayContaining([`${otherUrl}/ext`, `${s.url}/`, `${s.url}/local`]));
    expect(other.hits('/ext')).toBe(1);
  }, 240_000);

  describe('concurrency', () => {
    const PAGES = 12;
    const slowSite = () => {
      const routes: Record<string, Route> = {
        '/': page(
          'home',
          Array.from({ length: PAGES }, (_, i) => `/c/${i}`),
        ),
      };
      for (let i = 0; i < PAGES; i++) routes[`/c/${i}`] = page(`c${i}`);
      // Slow answers make pages fetched at once overlap at the site.
      return site(routes, { delayMs: 150 });
    };
    const req = (s: ScopeSite) => ({ url: s.url, sitemap: 'skip' as const });

    it('runs more than maxConcurrency pages at once without it, at most maxConcurrency with it', async () => {
      const free = await slowSite();
      const a = await crawl(req(free), { teamConcurrency: 8 });
      expect(a.paths).toHaveLength(PAGES + 1);
      expect(free.maxInFlight()).toBeGreaterThan(2);

      const capped = await slowSite();
      const b = await crawl({ ...req(capped), maxConcurrency: 2 }, { teamConcurrency: 8 });
      expect(b.paths).toHaveLength(PAGES + 1);
      expect(capped.maxInFlight()).toBeLessThanOrEqual(2);
    }, 240_000);

    it('delay forces one page at a time and spaces the scrapes by at least the delay', async () => {
      const s = await slowSite();
      const delay = 0.5;
      const { paths } = await crawl({ ...req(s), delay, limit: 6 }, { teamConcurrency: 8 });
      expect(paths).toHaveLength(6);
      expect(s.maxInFlight()).toBe(1);
      const starts = pageRequests(s).map((r) => r.startedAt);
      expect(starts).toHaveLength(6);
      // A lower bound only (timers may fire a little early; a loaded machine only adds time).
      for (let i = 1; i < starts.length; i++) {
        expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(delay * 1000 * 0.9);
      }
    }, 240_000);
  });

  it('applies scrapeOptions (formats, onlyMainContent, headers) to every page', async () => {
    const s = await site({
      '/': page('home', ['/one', '/two']),
      '/one': page('one', ['/two']),
      '/two': page('two'),
    });
    const { docs, paths } = await crawl({
      url: s.url,
      sitemap: 'skip',
      scrapeOptions: {
        formats: ['markdown', 'html', 'links'],
        onlyMainContent: false,
        headers: { 'x-wds-test': 'yes' },
      },
    });
    expect(paths).toEqual(['/', '/one', '/two']);
    for (const d of docs) {
      expect(typeof d.html).toBe('string');
      expect(Array.isArray(d.links)).toBe(true);
      // Nav and footer lie outside <main>: kept only because onlyMainContent is false.
      expect(d.markdown).toContain('FOOTER-MARK');
    }
    const home = docs.find((d) => new URL(d.metadata.sourceURL).pathname === '/');
    expect(home.links).toEqual(expect.arrayContaining([`${s.url}/one`, `${s.url}/two`]));
    const requests = pageRequests(s);
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const r of requests) expect(r.headers['x-wds-test']).toBe('yes');
  }, 240_000);

  describe('robots.txt', () => {
    const robotsSite = () =>
      site({
        // A crawler obeys the most specific group naming it, not `*` as well.
        '/robots.txt': text(
          'User-agent: *\nDisallow: /all-blocked\n\n' +
            'User-agent: WDSBot\nDisallow: /wds-blocked\n\n' +
            'User-agent: OtherBot\nDisallow: /other-blocked\n',
        ),
        '/sitemap.xml': sitemap(['/']),
        '/': page('home', ['/open', '/all-blocked', '/wds-blocked', '/other-blocked']),
        '/open': page('open'),
        '/all-blocked': page('all'),
        '/wds-blocked': page('wds'),
        '/other-blocked': page('other'),
      });
    const agentsOf = (s: ScopeSite, path: string) =>
      s.requests.filter((r) => r.path === path).map((r) => r.headers['user-agent']);

    it('fetches robots.txt and sitemaps with the published user agent and obeys the WDSBot group', async () => {
      const s = await robotsSite();
      const { id, team, paths } = await crawl({ url: s.url });
      expect(paths).toEqual(['/', '/all-blocked', '/open', '/other-blocked']);
      expect(agentsOf(s, '/robots.txt')).toEqual([PUBLISHED_UA]);
      expect(agentsOf(s, '/sitemap.xml')).toEqual([PUBLISHED_UA]);
      expect(s.hits('/wds-blocked')).toBe(0);
      expect((await stack.errors(team, id)).robotsBlocked).toEqual([`${s.url}/wds-blocked`]);
    }, 240_000);

    it('robotsUserAgent fetches robots.txt with that string and obeys its group instead', async () => {
      const s = await robotsSite();
      const { id, team, paths } = await crawl({ url: s.url, robotsUserAgent: 'OtherBot/2.0' });
      expect(paths).toEqual(['/', '/all-blocked', '/open', '/wds-blocked']);
      expect(agentsOf(s, '/robots.txt')).toEqual(['OtherBot/2.0']);
      expect((await stack.errors(team, id)).robotsBlocked).toEqual([`${s.url}/other-blocked`]);
    }, 240_000);

    it('ignoreRobotsTxt crawls disallowed pages and blocks none', async () => {
      const s = await robotsSite();
      const { id, team, paths } = await crawl({ url: s.url, ignoreRobotsTxt: true });
      expect(paths).toEqual(['/', '/all-blocked', '/open', '/other-blocked', '/wds-blocked']);
      expect((await stack.errors(team, id)).robotsBlocked).toEqual([]);
    }, 240_000);
  });
});
