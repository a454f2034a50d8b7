import { ServiceError, CRAWL_RPC } from '@wds/contracts';
import { SITE_TREE } from '@wds/testing';
import { buildServices, pathsOf, startCrawlStack, type CrawlStack } from '../support/crawl-harness';

const urlsOf = (docs: any[]) => docs.map((d) => d.metadata.sourceURL as string).sort();

describe('crawl scope, status, errors and cancel (real scraper and billing processes)', () => {
  let stack: CrawlStack;
  let team: string;
  let site: string;

  beforeAll(async () => {
    buildServices();
    stack = await startCrawlStack();
    await stack.startCrawler({ WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' });
    team = await stack.team();
    site = stack.site.url;
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const crawl = async (request: Record<string, unknown>) => {
    const id = await stack.createCrawl(team, { url: site, ...request, scrapeOptions: { maxAge: 0 } });
    const result = await stack.finish(team, id);
    expect(result.status.status).toBe('completed');
    expect(result.status.completed).toBe(result.status.total);
    expect(result.docs).toHaveLength(result.status.completed);
    return { id, ...result, paths: pathsOf(result.docs), urls: urlsOf(result.docs) };
  };

  it('crawls start URL, sitemap and links, each URL once, honouring robots.txt', async () => {
    const { id, paths, urls, status } = await crawl({});
    expect(new Set(urls).size).toBe(urls.length);
    for (const p of ['/', '/article', '/meta', ...SITE_TREE]) expect(paths).toContain(p);
    expect(paths).not.toContain('/private/secret');
    expect(status.creditsUsed).toBe(status.completed);
    const errors = await stack.errors(team, id);
    expect(errors.robotsBlocked).toContain(`${site}/private/secret`);
  }, 60_000);

  it('applies includePaths and excludePaths to the pathname, or the full URL with regexOnFullURL', async () => {
    const inc = await crawl({ includePaths: ['^/(docs)?$', '^/docs/'], excludePaths: ['^/docs/b$'] });
    expect([...new Set(inc.paths)]).toEqual(['/', '/docs', '/docs/a']);
    const full = await crawl({ includePaths: ['ref='], regexOnFullURL: true, sitemap: 'skip' });
    // The start URL does not match: "the crawl may return 0 pages".
    expect(full.paths).toEqual([]);
  }, 60_000);

  it('stops at maxDiscoveryDepth (root and sitemap pages are depth 0) and ignores query parameters', async () => {
    const d0 = await crawl({ maxDiscoveryDepth: 0, sitemap: 'skip' });
    expect(d0.paths).toEqual(['/']);
    const d1 = await crawl({ maxDiscoveryDepth: 1, sitemap: 'skip', ignoreQueryParameters: true });
    expect(d1.paths).toEqual(['/', '/article', '/blog', '/docs', '/meta']);
    const noQuery = await crawl({ ignoreQueryParameters: true });
    // /docs/a links to /docs/a?ref=self: the same path, not scraped again.
    expect(noQuery.urls.some((u) => u.includes('?'))).toBe(false);
    expect(new Set(noQuery.paths).size).toBe(noQuery.paths.length);
    // A path is scraped once, at the URL it was first found at, query included (the page may need it).
    const fromStart = await crawl({
      url: `${site}/?from=start`,
      ignoreQueryParameters: true,
      sitemap: 'skip',
    });
    expect(fromStart.urls).toContain(`${site}/?from=start`);
    expect(fromStart.urls).not.toContain(`${site}/`);
    expect(new Set(fromStart.paths).size).toBe(fromStart.paths.length);
  }, 60_000);

  it('sitemap only: sitemap URLs plus the start URL, no HTML links; skip: links only', async () => {
    const only = await crawl({ sitemap: 'only' });
    expect(only.paths).not.toContain('/privacy');
    expect(only.paths).toEqual(expect.arrayContaining(['/', '/article', '/docs/a']));
    const skip = await crawl({ sitemap: 'skip', maxDiscoveryDepth: 1 });
    expect(skip.paths).not.toContain('/docs/a');
  }, 60_000);

  it('keeps to child paths unless crawlEntireDomain, and stops exactly at limit', async () => {
    const child = await stack.createCrawl(team, {
      url: `${site}/docs`,
      sitemap: 'skip',
      scrapeOptions: { maxAge: 0 },
    });
    const childPaths = [...new Set(pathsOf((await stack.finish(team, child)).docs))];
    expect(childPaths).toEqual(['/docs', '/docs/a', '/docs/b']);
    const entire = await stack.createCrawl(team, {
      url: `${site}/docs`,
      sitemap: 'skip',
      crawlEntireDomain: true,
      scrapeOptions: { maxAge: 0 },
    });
    expect(pathsOf((await stack.finish(team, entire)).docs)).toEqual(
      expect.arrayContaining(['/blog', '/blog/first-post']),
    );
    const limited = await crawl({ limit: 3 });
    expect(limited.docs).toHaveLength(3);
    expect(limited.status.total).toBe(3);
  }, 60_000);

  it('records failed pages in errors and counts them in total (pages attempted), not in completed', async () => {
    const id = await stack.createCrawl(team, {
      url: `${site}/slow?ms=5000`,
      sitemap: 'skip',
      scrapeOptions: { timeout: 1000, maxAge: 0 },
    });
    const { status, docs } = await stack.finish(team, id);
    expect(status).toMatchObject({ status: 'completed', total: 1, completed: 0 });
    expect(docs).toEqual([]);
    const { errors } = await stack.errors(team, id);
    expect(errors).toEqual([
      expect.objectContaining({ url: `${site}/slow?ms=5000`, code: 'SCRAPE_TIMEOUT' }),
    ]);
  }, 60_000);

  it('lists active crawls, cancels once (then 409), and guards other teams and unknown ids', async () => {
    const id = await stack.createCrawl(team, { url: site, delay: 1, scrapeOptions: { maxAge: 0 } });
    const { jobs } = await stack.client.request(CRAWL_RPC.active, { teamId: team });
    expect(jobs).toEqual([expect.objectContaining({ id, teamId: team, url: site })]);
    expect(jobs[0].options).toHaveProperty('scrapeOptions');
    const other = await stack.team(10);
    await expect(stack.status(other, id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(stack.status(team, crypto.randomUUID())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await stack.client.request(CRAWL_RPC.cancel, { teamId: team, jobId: id })).toEqual({
      status: 'cancelled',
    });
    const err = await stack.client
      .request(CRAWL_RPC.cancel, { teamId: team, jobId: id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('CONFLICT');
    expect((await stack.status(team, id)).status).toBe('cancelled');
    expect((await stack.client.request(CRAWL_RPC.active, { teamId: team })).jobs).toEqual([]);
  }, 60_000);

  it('fails the crawl with an error when the team runs out of credits', async () => {
    const poor = await stack.team(2);
    const id = await stack.createCrawl(poor, { url: site, scrapeOptions: { maxAge: 0, proxy: 'basic' } }, 1);
    const { status } = await stack.finish(poor, id);
    expect(status.status).toBe('failed');
    expect(status.completed).toBe(2);
    const { errors } = await stack.errors(poor, id);
    expect(errors.at(-1)?.error).toMatch(/Insufficient credits/);
  }, 60_000);
});
