import { ErrorCode, ServiceError } from '@wds/contracts';
import { buildServices, startCrawlStack, type CrawlStack } from '../support/crawl-harness';
import { startGeneratedSite, type GeneratedSite } from '@wds/testing';

const PAGES = 10;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Shorter than the scraper's (WDS_SCRAPE_RETENTION_HOURS, 24): the scraper's copies of the pages follow it. */
const CRAWL_RETENTION_HOURS = 6;

/**
 * Crawl results live for their retention (WDS_CRAWL_RETENTION_HOURS, or
 * WDS_CRAWL_ZDR_RETENTION_MINUTES for zero-data-retention crawls) and are then deleted by the
 * watchdog, documents with them.
 */
describe('crawl retention', () => {
  const sites: GeneratedSite[] = [];
  let stack: CrawlStack;

  beforeAll(async () => {
    buildServices();
    stack = await startCrawlStack({
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1`,
      WDS_CRAWL_WATCHDOG_INTERVAL_MS: '300',
      WDS_CRAWL_RETENTION_HOURS: String(CRAWL_RETENTION_HOURS),
    });
    await stack.startCrawler();
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    for (const s of sites) await s.close();
  }, 60_000);

  /** A site of its own per crawl, so scraper rows and cache entries can be told apart by URL. */
  async function site(): Promise<GeneratedSite> {
    const s = await startGeneratedSite({ pages: PAGES });
    sites.push(s);
    return s;
  }

  async function crawl(url: string, zeroDataRetention = false) {
    const team = await stack.team();
    const createdAt = Date.now();
    const id = await stack.createCrawl(team, {
      url,
      sitemap: 'skip',
      zeroDataRetention,
      scrapeOptions: { maxAge: 0, proxy: 'basic' },
    });
    const done = await stack.finish(team, id, 60_000);
    expect(done.status.status).toBe('completed');
    expect(done.docs).toHaveLength(PAGES);
    return { team, id, createdAt, ...done };
  }

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0].n;

  it('deletes a crawl past its retention, its pages and documents with it', async () => {
    const gen = await site();
    const { team, id } = await crawl(gen.url);
    expect(await count(`crawler.job_pages WHERE job_id = $1 AND document IS NOT NULL`, [id])).toBe(PAGES);

    await stack.db.query(`UPDATE crawler.jobs SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      id,
    ]);
    const deadline = Date.now() + 30_000;
    while ((await count(`crawler.jobs WHERE id = $1`, [id])) > 0) {
      if (Date.now() > deadline) throw new Error('the watchdog did not delete the expired crawl');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await count(`crawler.job_pages WHERE job_id = $1`, [id])).toBe(0);
    expect(await count(`crawler.job_blocked WHERE job_id = $1`, [id])).toBe(0);
    await expect(stack.status(team, id)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(stack.errors(team, id)).rejects.toBeInstanceOf(ServiceError);

    // The scraper's own records of these pages (GET /v2/scrape/{id}, interact) expire with the crawl
    // at the latest: the crawl's retention (6 h) is shorter than the scraper's (24 h). They go with
    // the scraper's periodic purge.
    const { rows } = await stack.db.query<{ n: number; bounded: number }>(
      `SELECT count(*)::int AS n,
         count(*) FILTER (WHERE expires_at <= now() + $2 * interval '1 hour')::int AS bounded
       FROM scraper.scrapes WHERE url LIKE $1`,
      [`${gen.url}/%`, CRAWL_RETENTION_HOURS],
    );
    expect(rows[0].n).toBeGreaterThanOrEqual(PAGES);
    expect(rows[0].bounded).toBe(rows[0].n);
  }, 120_000);

  it('keeps a zero-data-retention crawl for WDS_CRAWL_ZDR_RETENTION_MINUTES, and the scraper keeps nothing of it', async () => {
    const plainSite = await site();
    const zdrSite = await site();
    const plain = await crawl(plainSite.url);
    const zdr = await crawl(zdrSite.url, true);

    const expiresIn = (r: { status: { expiresAt: string }; createdAt: number }) =>
      new Date(r.status.expiresAt).getTime() - r.createdAt;
    expect(expiresIn(plain)).toBeGreaterThan(CRAWL_RETENTION_HOURS * HOUR - 5 * MINUTE);
    expect(expiresIn(plain)).toBeLessThan(CRAWL_RETENTION_HOURS * HOUR + 5 * MINUTE);
    expect(expiresIn(zdr)).toBeGreaterThan(55 * MINUTE);
    expect(expiresIn(zdr)).toBeLessThan(65 * MINUTE);

    // The crawl itself still serves its documents for that hour.
    for (const doc of zdr.docs) expect(doc.markdown).toMatch(/Content of page \d+/);

    // The plain crawl shows where the scraper would keep a page: its job row and the cache.
    const urlLike = (s: GeneratedSite) => `${s.url}/%`;
    expect(await count(`scraper.scrapes WHERE url LIKE $1`, [urlLike(plainSite)])).toBeGreaterThanOrEqual(
      PAGES,
    );
    expect(await count(`scraper.cache_entries WHERE url LIKE $1`, [urlLike(plainSite)])).toBeGreaterThan(0);

    expect(await count(`scraper.scrapes WHERE url LIKE $1`, [urlLike(zdrSite)])).toBe(0);
    expect(await count(`scraper.cache_entries WHERE url LIKE $1`, [urlLike(zdrSite)])).toBe(0);
    const { rows } = await stack.db.query<{ n: number; docs: number; urls: number }>(
      `SELECT count(*)::int AS n, count(document_gz)::int AS docs, count(url)::int AS urls
       FROM scraper.scrapes WHERE team_id = $1`,
      [zdr.team],
    );
    expect(rows[0]).toEqual({ n: PAGES, docs: 0, urls: 0 });
  }, 180_000);
});
