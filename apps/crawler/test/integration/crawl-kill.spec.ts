import { buildServices, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import { startGeneratedSite, type GeneratedSite } from '../support/generated-site';

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

    const { rows } = await stack.db.query<{ n: number; settled: number; charged: string }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'settled')::int AS settled, sum(charged)::text AS charged
       FROM billing.reservations WHERE team_id = $1`,
      [team],
    );
    expect(rows[0]).toEqual({ n: PAGES, settled: PAGES, charged: String(PAGES) });
    const settles = await stack.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM billing.ledger_entries WHERE team_id = $1 AND kind = 'settle'`,
      [team],
    );
    expect(settles.rows[0].n).toBe(PAGES);
    expect(status.creditsUsed).toBe(PAGES);
    expect(b.child.exitCode).toBeNull();
  }, 150_000);
});
