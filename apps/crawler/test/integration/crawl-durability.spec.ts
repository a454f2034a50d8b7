import { CRAWL_WORK, STREAMS, deadLetterSubject } from '@wds/contracts';
import { buildServices, startCrawlStack, type CrawlStack, type ServiceChild } from '../support/crawl-harness';
import { startGeneratedSite, type GeneratedSite } from '@wds/testing';

const PAGES = 200;

/**
 * Crawls that lose a whole tier mid-way: the only crawler, or the only scraper, is SIGKILLed and
 * a new process takes over (same NATS and PostgreSQL). The frontier, the visited set and the
 * unacknowledged page tasks outlive the processes, so every page is stored once and charged once.
 */
describe('a crawl whose only crawler or scraper dies', () => {
  let gen: GeneratedSite;
  let stack: CrawlStack;
  /** The scraper now running (each scraper test kills it and starts the next). */
  let scraper: ServiceChild;

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
    scraper = stack.scraper;
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await gen?.close();
  }, 60_000);

  /** Starts a crawl of the generated site and resolves once `pages` pages are done (not all). */
  async function crawlUntil(pages: number, timeoutMs?: number): Promise<{ team: string; id: string }> {
    const team = await stack.team();
    const id = await stack.createCrawl(
      team,
      {
        url: gen.url,
        sitemap: 'skip',
        // A short page timeout bounds how long a request to a dead scraper waits for its reply.
        scrapeOptions: { maxAge: 0, proxy: 'basic', ...(timeoutMs ? { timeout: timeoutMs } : {}) },
      },
      16,
    );
    for (;;) {
      const s = await stack.status(team, id);
      if (s.completed >= pages) {
        expect(s.status).toBe('scraping');
        expect(s.completed).toBeLessThan(PAGES);
        return { team, id };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Every page stored once, no page failed, and each page's cost on record once. */
  async function expectEveryPageOnce(team: string, id: string): Promise<void> {
    const { status, docs } = await stack.finish(team, id, 150_000);
    expect({ status: status.status, total: status.total, completed: status.completed }).toEqual({
      status: 'completed',
      total: PAGES,
      completed: PAGES,
    });
    expect(docs).toHaveLength(PAGES);
    expect(new Set(docs.map((d) => d.metadata.sourceURL as string)).size).toBe(PAGES);
    expect((await stack.errors(team, id)).errors).toEqual([]);
    const { rows } = await stack.db.query<{ n: number; keys: number; charged: string }>(
      `SELECT count(*)::int AS n, count(DISTINCT usage_key)::int AS keys, sum(amount)::text AS charged
       FROM billing.usage WHERE team_id = $1`,
      [team],
    );
    expect(rows[0]).toEqual({ n: PAGES, keys: PAGES, charged: String(PAGES) });
    expect(status.creditsUsed).toBe(PAGES);
  }

  it('finishes on a new crawler process after the only one is SIGKILLed', async () => {
    const first = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    const { team, id } = await crawlUntil(40);
    first.child.kill('SIGKILL');
    await first.exited;

    // Nothing of the crawl lives in a process any more: the next crawler knows it only from
    // PostgreSQL (frontier, visited set, counters) and JetStream (unacknowledged page tasks).
    const second = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    await expectEveryPageOnce(team, id);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 240_000);

  it('finishes after the only scraper is SIGKILLed and a new one starts', async () => {
    const crawler = await stack.spawnService('crawler', { WDS_CRAWL_WORKER_CONCURRENCY: '8' });
    const { team, id } = await crawlUntil(40, 5000);
    scraper.child.kill('SIGKILL');
    await scraper.exited;

    // Requests the dead scraper had taken time out (page timeout + reply margin); tasks that find
    // no scraper fail at once. Both are transient: the crawler releases the page's credits and
    // JetStream redelivers the task, to the new scraper once it is up.
    scraper = await stack.spawnService('scraper');
    await expectEveryPageOnce(team, id);
    expect(crawler.child.exitCode).toBeNull();
    crawler.child.kill('SIGTERM');
    await crawler.exited;
  }, 240_000);

  it('loses no page to a scraper outage longer than all deliveries of its tasks', async () => {
    // Twenty deliveries at most 2 s apart (each after its request finds no scraper) are spent well within
    // the outage; the pages wait, dispatched, for the watchdog to republish them.
    const outageMs = 55_000;
    const crawler = await stack.spawnService('crawler', {
      WDS_CRAWL_WORKER_CONCURRENCY: '8',
      WDS_CRAWL_REDISPATCH_MS: String(outageMs + 20_000),
    });
    const { team, id } = await crawlUntil(40, 5000);
    scraper.child.kill('SIGKILL');
    await scraper.exited;
    await new Promise((r) => setTimeout(r, outageMs));

    // The outage did outlast the tasks: their last deliveries went to the dead-letter stream.
    const dlq = await stack.client.jsm.streams.info(STREAMS.WDS_DLQ_V1.name, { subjects_filter: '>' });
    expect(dlq.state.subjects?.[deadLetterSubject(CRAWL_WORK.page.subject)] ?? 0).toBeGreaterThan(0);

    scraper = await stack.spawnService('scraper');
    await expectEveryPageOnce(team, id);
    crawler.child.kill('SIGTERM');
    await crawler.exited;
  }, 300_000);
});
