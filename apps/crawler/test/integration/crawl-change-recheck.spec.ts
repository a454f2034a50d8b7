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
    stack = await startCrawlStack({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      // The kill test: a dead crawler's tasks come back after 3 s.
      WDS_CRAWL_ACK_WAIT_MS: '3000',
      WDS_CRAWL_RECONCILE_MS: '3000',
    });
    await stack.startCrawler({ WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' });
    site = await startScopeSite(routes, { delayMs: 30 });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await site?.close();
  }, 60_000);

  const start = (team: string, request: Omit<CrawlRequestInput, 'url'> & { url?: string }) =>
    stack.createCrawl(team, {
      url: site.url,
      sitemap: 'skip',
      ...request,
      scrapeOptions: { formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'] }], maxAge: 0 },
    });
  const crawl = async (team: string, request: Omit<CrawlRequestInput, 'url'> & { url?: string }) => {
    const id = await start(team, request);
    const { status, docs } = await stack.finish(team, id, 90_000);
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

  it('loses no re-checked page when a crawler is killed while they run', async () => {
    const team = await stack.team();
    const many = Array.from({ length: 40 }, (_, i) => `/p${i + 1}`);
    for (const p of many) routes[p] = page(`Page ${p}`);
    routes['/'] = page('Home', many);
    await crawl(team, {});
    routes['/'] = page('Home', many.slice(0, 10));

    const doomed = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    const id = await start(team, {});
    // Kill the crawler process once the re-checked pages are being scraped (11 pages are linked).
    let atKill = await stack.status(team, id);
    while (atKill.completed < 16 && atKill.status === 'scraping') {
      await new Promise((r) => setTimeout(r, 20));
      atKill = await stack.status(team, id);
    }
    doomed.child.kill('SIGKILL');
    expect(atKill.status).toBe('scraping');
    await doomed.exited;

    const { status, docs } = await stack.finish(team, id, 90_000);
    expect(status.status).toBe('completed');
    expect(status.total).toBe(41);
    expect(status.completed).toBe(41);
    const hidden = docs.filter((d) => d.changeTracking.visibility === 'hidden');
    expect(hidden.map((d) => new URL(d.metadata.sourceURL).pathname).sort()).toEqual(many.slice(10).sort());
    expect(hidden.every((d) => d.changeTracking.changeStatus === 'same')).toBe(true);
    // Each page charged once.
    const { rows } = await stack.db.query<{ n: number; keys: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT usage_key)::int AS keys FROM billing.usage
       WHERE usage_key LIKE $1`,
      [`crawl:${id}:%`],
    );
    expect(rows[0]).toEqual({ n: 41, keys: 41 });
  }, 180_000);
});
