import { SITE_TREE } from '@wds/testing';
import { buildServices, pathsOf, startCrawlStack, type CrawlStack } from '../support/crawl-harness';

describe('crawl (crawler in-process, real scraper and billing processes)', () => {
  let stack: CrawlStack;
  let team: string;

  beforeAll(async () => {
    buildServices();
    stack = await startCrawlStack();
    await stack.startCrawler({ WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' });
    team = await stack.team();
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('crawls the site from its start URL, sitemap and links, each page once, and completes', async () => {
    const id = await stack.createCrawl(team, { url: stack.site.url, scrapeOptions: { maxAge: 0 } });
    const { status, docs } = await stack.finish(team, id);
    console.log(JSON.stringify({ ...status, items: [] }), pathsOf(docs));
    expect(status.status).toBe('completed');
    expect(status.completed).toBe(status.total);
    const paths = pathsOf(docs);
    expect(new Set(paths).size).toBe(paths.length);
    for (const p of ['/', '/article', '/meta', ...SITE_TREE]) expect(paths).toContain(p);
    expect(paths).not.toContain('/private/secret');
    const errors = await stack.errors(team, id);
    expect(errors.robotsBlocked.some((u) => u.includes('/private'))).toBe(true);
  }, 60_000);
});
