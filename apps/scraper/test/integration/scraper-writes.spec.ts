import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Database, runMigrations } from '@wds/database';
import { createTestDatabase } from '@wds/testing';
import { PgCacheStore } from '../../src/scrape/cache/cache-store';
import { PgScrapeStore, type ScrapeRecord } from '../../src/scrape/storage/scrape-store';
import { ScraperWrites, writeStatement } from '../../src/scrape/storage/scraper-writes';

/** Job rows and cache entries written through one queue, against real PostgreSQL. */
describe('ScraperWrites', () => {
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase('scraperwrites');
    db = new Database({ url: testDb.url });
    await runMigrations(db, { schema: 'scraper', dir: path.join(__dirname, '..', '..', 'migrations') });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const record = (gz: Buffer | undefined, extra: Partial<ScrapeRecord> = {}): ScrapeRecord => ({
    id: randomUUID(),
    teamId: 'team-w',
    url: 'https://example.com/a',
    status: 'completed',
    statusCode: 200,
    documentGz: gz,
    documentBytes: gz?.length,
    creditsUsed: 1,
    cacheHit: false,
    zeroDataRetention: false,
    retainMs: 60_000,
    ...extra,
  });

  it('stores a page’s cache entry and job row in one statement, sending a shared gzip once', async () => {
    const queries: string[] = [];
    const counted = {
      query: (sql: string, params?: unknown[]) => {
        queries.push(sql);
        return db.query(sql, params);
      },
    };
    const writes = new ScraperWrites(counted as unknown as Database);
    const cache = new PgCacheStore(db, writes);
    const scrapes = new PgScrapeStore(db, writes);
    const gz = Buffer.from('gzip-bytes-of-a-document');
    const key = `key-${randomUUID()}`;
    const job = record(gz, { metadataPatch: { scrapeId: 'x', creditsUsed: 1 } });
    const failed = record(undefined, { status: 'failed', errorCode: 'SCRAPE_TIMEOUT', url: undefined });
    await Promise.all([
      cache.put({ key, url: 'https://example.com/a', documentGz: gz, contentCredits: 1, retainMs: 60_000 }),
      scrapes.insert(job),
      scrapes.insert(failed),
    ]);
    expect(queries).toHaveLength(1);

    const entry = await cache.find({ key });
    expect(entry?.documentGz.equals(gz)).toBe(true);
    expect(entry?.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await scrapes.find(job.id)).toMatchObject({
      teamId: 'team-w',
      status: 'completed',
      metadataPatch: { scrapeId: 'x', creditsUsed: 1 },
    });
    expect((await scrapes.find(job.id))?.documentGz?.equals(gz)).toBe(true);
    const { rows } = await db.query<{
      status: string;
      error_code: string;
      url: string | null;
      document_gz: null;
    }>('SELECT status, error_code, url, document_gz FROM scraper.scrapes WHERE id = $1', [failed.id]);
    expect(rows).toEqual([{ status: 'failed', error_code: 'SCRAPE_TIMEOUT', url: null, document_gz: null }]);
  });

  it('keeps the last of several puts of one key in a batch, and writes either kind alone', async () => {
    const writes = new ScraperWrites(db);
    const cache = new PgCacheStore(db, writes);
    const key = `key-${randomUUID()}`;
    const put = (text: string) =>
      cache.put({
        key,
        url: 'https://example.com/b',
        documentGz: Buffer.from(text),
        contentCredits: 1,
        retainMs: 60_000,
      });
    await Promise.all([put('first'), put('second')]);
    expect((await cache.find({ key }))?.documentGz.toString()).toBe('second');

    const scrapes = new PgScrapeStore(db, writes);
    const job = record(Buffer.from('alone'));
    await scrapes.insert(job);
    await scrapes.insert(job); // a second insert of a job changes nothing
    expect((await scrapes.find(job.id))?.documentGz?.toString()).toBe('alone');
  });

  it('builds one parameter per distinct buffer and a WITH only when both kinds are present', () => {
    const gz = Buffer.from('shared');
    const both = writeStatement([
      { cache: { key: 'k', url: 'u', documentGz: gz, contentCredits: 1, retainMs: 1 } },
      { scrape: record(gz) },
    ]);
    expect(both.params.filter((p) => p === gz)).toHaveLength(1);
    expect(both.sql).toMatch(/^WITH cached AS \(INSERT INTO scraper\.cache_entries/);
    const alone = writeStatement([
      { scrape: record(Buffer.from('a')) },
      { scrape: record(Buffer.from('b')) },
    ]);
    expect(alone.sql).toMatch(/^INSERT INTO scraper\.scrapes/);
    expect(alone.params.filter((p) => Buffer.isBuffer(p))).toHaveLength(2);
  });
});
