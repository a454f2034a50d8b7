import type { Document, PageTask } from '@wds/contracts';
import type { JobRow } from '@wds/jobs';
import { CrawlContexts } from './crawl-context';
import { CrawlPageHooks } from './crawl-page.hooks';

const job = (over: Partial<JobRow> = {}): JobRow => ({
  id: 'crawl-1',
  teamId: 'team-1',
  kind: 'crawl',
  status: 'scraping',
  url: 'https://e.com/',
  options: { url: 'https://e.com/', excludePaths: ['^/private'] },
  pageLimit: 100_000,
  concurrency: 4,
  delayMs: 0,
  zeroDataRetention: false,
  discovered: 1,
  succeeded: 0,
  failed: 0,
  inflight: 1,
  creditsUsed: 0,
  seeded: true,
  robotsTxt: 'User-agent: *\nDisallow: /admin\n',
  createdAt: new Date(),
  progressedAt: new Date(),
  expiresAt: new Date(Date.now() + 3_600_000),
  reopened: 0,
  ...over,
});

const task: PageTask = { jobId: 'crawl-1', url: 'https://e.com/', depth: 0 } as PageTask;

describe('CrawlPageHooks.afterScrape', () => {
  it('keeps the links in scope, once each, robots-blocked apart', async () => {
    const hooks = new CrawlPageHooks(new CrawlContexts(), async () => undefined);
    const doc = {
      metadata: { url: 'https://e.com/' },
      links: [
        'https://e.com/a',
        'https://e.com/a#top',
        'https://e.com/admin/x',
        'https://e.com/private/y',
        'https://other.com/',
      ],
    } as Document;
    const r = await hooks.afterScrape(job(), task, doc);
    expect(r.discovered.map((d) => d.url)).toEqual(['https://e.com/a']);
    expect(r.blocked).toEqual(['https://e.com/admin/x']);
  });

  it('lets the event loop turn while it checks a page of many links', async () => {
    const hooks = new CrawlPageHooks(new CrawlContexts(), async () => undefined);
    const links = Array.from({ length: 20_000 }, (_, i) => `https://e.com/p/${i}`);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const r = await hooks.afterScrape(job(), task, {
      metadata: { url: 'https://e.com/' },
      links,
    } as Document);
    counting = false;
    expect(r.discovered).toHaveLength(20_000);
    // One check after another would have held the event loop to the end.
    expect(turns).toBeGreaterThanOrEqual(10);
  });
});
