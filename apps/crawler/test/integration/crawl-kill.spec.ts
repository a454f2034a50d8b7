import { buildServices, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import { startGeneratedSite, type GeneratedSite } from '@wds/testing';

const PAGES = 300;

/**
 * Two crawler processes share a crawl; one is SIGKILLed mid-crawl. Its unacknowledged tasks are
 * redelivered (short ack wait here), so the crawl completes with every page once and each page
 * charged once in the billing ledger.
 */
describe('a crawler process killed mid-crawl', () => {
  let gen: GeneratedSite;
  let stack: CrawlStack;

  beforeAll(async () => {
    buildServices();
    gen = await startGeneratedSite({ pages: PAGES, delayMs: 40 });
    stack = await startCrawlStack({
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1`,
      WDS_CRAWL_ACK_WAIT_MS: '3000',
      WDS_CRAWL_WATCHDOG_INTERVAL_MS: '1000',
      WDS_CRAWL_RECONCILE_MS: '3000',
      WDS_CRAWL_REDISPATCH_MS: '15000',
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await gen?.close();
  }, 60_000);

  it('loses no page and charges none twice', async () => {
    const a = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    const b = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    const team = await stack.team();
    const id = await stack.createCrawl(
      team,
      { url: gen.url, sitemap: 'skip', scrapeOptions: { maxAge: 0, proxy: 'basic' } },
      16,
    );
    // Kill one crawler while pages are in flight.
    for (;;) {
      const s = await stack.status(team, id);
      if (s.completed >= 60) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    a.child.kill('SIGKILL');
    await a.exited;

    const { status, docs } = await stack.finish(team, id, 90_000);
    expect(status.status).toBe('completed');
    expect(status.completed).toBe(PAGES);
    expect(status.total).toBe(PAGES);
    const urls = docs.map((d) => d.metadata.sourceURL as string);
    expect(new Set(urls).size).toBe(PAGES);

    // Every page's cost is on record once, under its own key, before the page counts as done.
    const { rows } = await stack.db.query<{ n: number; keys: number; charged: string }>(
      `SELECT count(*)::int AS n, count(DISTINCT usage_key)::int AS keys, sum(amount)::text AS charged
       FROM billing.usage WHERE team_id = $1`,
      [team],
    );
    expect(rows[0]).toEqual({ n: PAGES, keys: PAGES, charged: String(PAGES) });
    // The survivor's blocks are closed once idle; the killed crawler's block expires later and is
    // then settled at its reported usage. Either way the team pays exactly the pages.
    const blocks = await stack.db.query<{ charged: string }>(
      `SELECT sum(charged)::text AS charged FROM billing.reservations WHERE team_id = $1 AND kind = 'block'`,
      [team],
    );
    expect(blocks.rows[0].charged).toBe(String(PAGES));
    expect(status.creditsUsed).toBe(PAGES);
    expect(b.child.exitCode).toBeNull();
  }, 150_000);
});
