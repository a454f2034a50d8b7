import type { CrawlRequestInput } from '@wds/contracts';
import { buildServices, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import { page, startScopeSite, type Route, type ScopeSite } from '../support/scope-site';

/**
 * Change tracking's `hidden` visibility: a crawl with the changeTracking format also re-checks the
 * URLs of its team's change-tracking history (same tag) that are in its scope but no link or
 * sitemap led to this time. Real scraper (snapshots in PostgreSQL) and billing processes.
 */
describe('crawl with changeTracking: pages no longer linked are re-checked as hidden', () => {
  let stack: CrawlStack;
  let site: ScopeSite;
  const routes: Record<string, Route> = {};

  beforeAll(async () => {
    buildServices();
    stack = await startCrawlStack({ WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1' });
    await stack.startCrawler({ WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' });
    site = await startScopeSite(routes);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await site?.close();
  }, 60_000);

  const crawl = async (team: string, request: Omit<CrawlRequestInput, 'url'> & { url?: string }) => {
    const id = await stack.createCrawl(team, {
      url: site.url,
      sitemap: 'skip',
      ...request,
      scrapeOptions: { formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'] }], maxAge: 0 },
    });
    const { status, docs } = await stack.finish(team, id, 60_000);
    expect(status.status).toBe('completed');
    expect(status.completed).toBe(status.total);
    const byPath = new Map<string, any>();
    for (const d of docs) byPath.set(new URL(d.metadata.sourceURL).pathname, d);
    return { status, byPath };
  };
  const tracking = (byPath: Map<string, any>) =>
    Object.fromEntries(
      [...byPath].map(([p, d]) => [p, `${d.changeTracking?.changeStatus}/${d.changeTracking?.visibility}`]),
    );

  it('returns pages of the history that the crawl no longer reaches with visibility hidden, within scope and for the same team only', async () => {
    const team = await stack.team();
    const other = await stack.team();
    Object.assign(routes, {
      '/': page('Home', ['/a', '/old', '/moved', '/gone', '/x']),
      '/a': page('A'),
      '/old': page('Old'),
      '/moved': page('Moved'),
      '/gone': page('Gone'),
      '/x': page('X'),
      '/u-only': page('Only the other team'),
    });
    const first = await crawl(team, {});
    expect(tracking(first.byPath)).toEqual({
      '/': 'new/visible',
      '/a': 'new/visible',
      '/old': 'new/visible',
      '/moved': 'new/visible',
      '/gone': 'new/visible',
      '/x': 'new/visible',
    });
    // Another team's history: a page only it tracked.
    const theirs = await crawl(other, { url: `${site.url}/u-only` });
    expect(tracking(theirs.byPath)).toEqual({ '/u-only': 'new/visible' });

    // The site changes: the home page links to /a only, /moved has new content, /gone is gone.
    routes['/'] = page('Home', ['/a']);
    routes['/moved'] = page('Moved, now with new content');
    delete routes['/gone'];
    const hitsBefore = { x: site.hits('/x'), uOnly: site.hits('/u-only') };

    // /x is in the history but outside this crawl's scope (excludePaths).
    const second = await crawl(team, { excludePaths: ['^/x$'] });
    expect(tracking(second.byPath)).toEqual({
      '/': 'changed/visible',
      '/a': 'same/visible',
      '/old': 'same/hidden',
      '/moved': 'changed/hidden',
      '/gone': 'removed/hidden',
    });
    expect(second.byPath.get('/moved').changeTracking.diff).toContain('+# Moved, now with new content');
    expect(site.hits('/x')).toBe(hitsBefore.x);
    expect(site.hits('/u-only')).toBe(hitsBefore.uOnly);
    // Each page once, and charged like any page.
    expect(second.status.total).toBe(5);
    expect(second.status.creditsUsed).toBe(5);
  }, 180_000);

  it("counts re-checked pages in the crawl's limit", async () => {
    const team = await stack.team();
    Object.assign(routes, {
      '/': page('Home', ['/a', '/b', '/c']),
      '/a': page('A'),
      '/b': page('B'),
      '/c': page('C'),
    });
    await crawl(team, {});
    routes['/'] = page('Home', ['/a']);
    const limited = await crawl(team, { limit: 3 });
    expect(limited.status.total).toBe(3);
    const hidden = [...limited.byPath.values()].filter((d) => d.changeTracking.visibility === 'hidden');
    expect(hidden).toHaveLength(1);
    expect(['/b', '/c']).toContain(new URL(hidden[0].metadata.sourceURL).pathname);
    // A crawl whose discovered pages fill its limit re-checks nothing.
    const full = await crawl(team, { limit: 2 });
    expect(tracking(full.byPath)).toEqual({ '/': 'same/visible', '/a': 'same/visible' });
  }, 180_000);
});
