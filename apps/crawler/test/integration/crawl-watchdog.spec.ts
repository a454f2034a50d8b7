import { randomUUID } from 'node:crypto';
import { CRAWL_WORK, CrawlRequest, EVENTS, STREAMS, type JobEvent } from '@wds/contracts';
import { JobStore } from '@wds/jobs';
import type { RunningService } from '@wds/service-kit';
import { buildServices, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import { startGeneratedSite, type GeneratedSite } from '@wds/testing';

const PAGES = 40;
const CONCURRENCY = 4;

/** A watchdog that runs often and acts on short idleness; the test adds what it exercises. */
const QUICK_WATCHDOG = {
  WDS_CRAWL_WATCHDOG_INTERVAL_MS: '300',
  WDS_CRAWL_RECONCILE_MS: '1000',
};

/**
 * The watchdog makes every crawl reach a final status: page tasks lost from JetStream are
 * published again after WDS_CRAWL_REDISPATCH_MS (the crawl completes) or, when nothing moves for
 * WDS_CRAWL_STALL_FAIL_MS first, the crawl fails with the reason in its errors and a
 * `crawl.failed` event; a crawl whose kickoff was lost is seeded again.
 */
describe('crawl watchdog', () => {
  let gen: GeneratedSite;
  let stack: CrawlStack;
  const events: JobEvent[] = [];
  let eventConsumer: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    buildServices();
    gen = await startGeneratedSite({ pages: PAGES, delayMs: 150 });
    // The crawlers started before a loss keep the defaults (minutes): only the crawler started
    // after it may repair anything, with the settings the test gives it.
    stack = await startCrawlStack({ WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1` });
    await stack.client.ensureStreams([STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1]);
    eventConsumer = await stack.client.consume(
      EVENTS.job,
      {
        stream: STREAMS.WDS_EVENTS_V1.name,
        durable: 'crawl-watchdog-test-events',
        filterSubject: EVENTS.job.subject,
        ackWaitMs: 30_000,
        maxDeliver: 1,
      },
      async (event) => {
        events.push(event);
      },
    );
  }, 180_000);

  afterAll(async () => {
    await eventConsumer?.stop();
    await stack?.stop();
    await gen?.close();
  }, 60_000);

  /**
   * Runs a crawl part-way on a crawler that is then stopped, and purges the crawl's page tasks from
   * the work stream: the pages it had dispatched stay `dispatched` in PostgreSQL with no task left.
   */
  async function crawlAndLoseTasks(): Promise<{ team: string; id: string; lost: string[] }> {
    const first = await stack.startCrawler({ WDS_CRAWL_WORKER_CONCURRENCY: String(CONCURRENCY) });
    const team = await stack.team();
    const id = await stack.createCrawl(
      team,
      { url: gen.url, sitemap: 'skip', scrapeOptions: { maxAge: 0, proxy: 'basic' } },
      CONCURRENCY,
    );
    for (;;) {
      const s = await stack.status(team, id);
      if (s.completed >= 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.stop();
    await stack.client.jsm.streams.purge(STREAMS.WDS_WORK_V1.name, { filter: CRAWL_WORK.page.subject });
    const { rows } = await stack.db.query<{ url: string }>(
      `SELECT url FROM crawler.job_pages WHERE job_id = $1 AND status = 'dispatched'`,
      [id],
    );
    expect(rows.length).toBeGreaterThan(0);
    return { team, id, lost: rows.map((r) => r.url) };
  }

  async function withCrawler<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    const crawler: RunningService = await stack.startCrawler(env);
    try {
      return await fn();
    } finally {
      await crawler.stop();
    }
  }

  it('republishes lost page tasks and the crawl completes, every page once', async () => {
    const { team, id, lost } = await crawlAndLoseTasks();
    const { status, docs } = await withCrawler(
      { ...QUICK_WATCHDOG, WDS_CRAWL_REDISPATCH_MS: '1500', WDS_CRAWL_STALL_FAIL_MS: '600000' },
      () => stack.finish(team, id, 90_000),
    );
    expect({ status: status.status, total: status.total, completed: status.completed }).toEqual({
      status: 'completed',
      total: PAGES,
      completed: PAGES,
    });
    expect(new Set(docs.map((d) => d.metadata.sourceURL as string)).size).toBe(PAGES);
    expect(status.creditsUsed).toBe(PAGES);
    // The pages whose tasks were purged were published a second time.
    const { rows } = await stack.db.query<{ url: string }>(
      `SELECT url FROM crawler.job_pages WHERE job_id = $1 AND dispatches > 1`,
      [id],
    );
    expect(rows.map((r) => r.url)).toEqual(expect.arrayContaining(lost));
    const usage = await stack.db.query<{ n: number; keys: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT usage_key)::int AS keys FROM billing.usage WHERE team_id = $1`,
      [team],
    );
    expect(usage.rows[0]).toEqual({ n: PAGES, keys: PAGES });
  }, 180_000);

  it('fails a stalled crawl with the reason in its errors and a crawl.failed event', async () => {
    const { team, id } = await crawlAndLoseTasks();
    const { status, errors } = await withCrawler(
      { ...QUICK_WATCHDOG, WDS_CRAWL_REDISPATCH_MS: '600000', WDS_CRAWL_STALL_FAIL_MS: '3000' },
      async () => ({ ...(await stack.finish(team, id, 60_000)), ...(await stack.errors(team, id)) }),
    );
    expect(status.status).toBe('failed');
    expect(status.completed).toBeLessThan(PAGES);
    expect(errors).toContainEqual(
      expect.objectContaining({ id, url: gen.url, error: expect.stringMatching(/no progress/) }),
    );

    const deadline = Date.now() + 30_000;
    let failed: JobEvent | undefined;
    while (!(failed = events.find((e) => e.id === id && e.type === 'crawl.failed'))) {
      if (Date.now() > deadline) throw new Error(`no crawl.failed event: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(failed).toMatchObject({ type: 'crawl.failed', success: false, id, teamId: team });
    expect(events.filter((e) => e.id === id && e.type === 'crawl.completed')).toEqual([]);
  }, 180_000);

  it('seeds a crawl whose kickoff was lost', async () => {
    // The row CreateCrawlUseCase writes, without the kickoff message it publishes next.
    const team = await stack.team();
    const id = randomUUID();
    const request = CrawlRequest.parse({
      url: gen.url,
      sitemap: 'skip',
      scrapeOptions: { maxAge: 0, proxy: 'basic' },
    });
    const { status, docs } = await withCrawler(
      { ...QUICK_WATCHDOG, WDS_CRAWL_REDISPATCH_MS: '600000', WDS_CRAWL_STALL_FAIL_MS: '600000' },
      async () => {
        await new JobStore(stack.db, 'crawler').create({
          id,
          teamId: team,
          kind: 'crawl',
          url: request.url,
          options: request as unknown as Record<string, unknown>,
          pageLimit: request.limit,
          concurrency: CONCURRENCY,
          delayMs: 0,
          zeroDataRetention: false,
          retentionMs: 3_600_000,
          teamConcurrency: CONCURRENCY,
        });
        return stack.finish(team, id, 90_000);
      },
    );
    expect(status.status).toBe('completed');
    expect(status.completed).toBe(PAGES);
    expect(new Set(docs.map((d) => d.metadata.sourceURL as string)).size).toBe(PAGES);
  }, 180_000);
});
