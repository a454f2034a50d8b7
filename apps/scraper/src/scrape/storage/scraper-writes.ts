import type { ActivityEventInput } from '@wds/contracts';
import type { ActivityRecorder } from '@wds/credits';
import { WriteBatcher, type Queryable } from '@wds/database';
import type { CachePut } from '../cache/cache-store';
import type { ScrapeRecord } from './scrape-store';

type Write = { cache: CachePut } | { scrape: ScrapeRecord };

/** Items per statement (at most 14 parameters each, far below PostgreSQL's 65,535). */
const WRITE_BATCH = 200;

/**
 * The scraper's inserts of cache entries and job rows, in natural batches (WriteBatcher) shared by
 * both kinds. A fetched page stores both, so one statement carries them (the cache rows in a
 * data-modifying WITH) instead of two, and a gzip that a job row shares with its cache entry is sent
 * once. Each caller resolves once the statement carrying its row committed.
 */
export class ScraperWrites {
  private readonly batcher = new WriteBatcher<Write>((items) => this.writeMany(items), WRITE_BATCH);

  constructor(
    private readonly db: Queryable,
    /** Records public scrapes as team activity; without it (tests of storage alone) nothing is recorded. */
    private readonly activity?: Pick<ActivityRecorder, 'record'>,
  ) {}

  putCache(entry: CachePut): Promise<void> {
    return this.batcher.add({ cache: entry });
  }

  insertScrape(record: ScrapeRecord): Promise<void> {
    return this.batcher.add({ scrape: record });
  }

  /**
   * The batch's statement and, for the public scrapes in it, their activity events, published at
   * the same time (the write waits for both; a redelivered hit batch publishes again and billing
   * keeps each event once). No round trip is added in series: the events ride along the INSERT.
   */
  private async writeMany(items: Write[]): Promise<void> {
    const { sql, params } = writeStatement(items);
    const events = this.activity ? activityEvents(items) : [];
    await Promise.all([this.db.query(sql, params), ...events.map((e) => this.activity!.record(e))]);
  }
}

/**
 * Activity of the public scrapes among the writes: completed ones and charged failures (a lockdown
 * miss). The target is the URL, or null when the row keeps none (zero data retention, lockdown).
 */
export function activityEvents(items: readonly Write[]): ActivityEventInput[] {
  const events: ActivityEventInput[] = [];
  for (const item of items) {
    if (!('scrape' in item)) continue;
    const r = item.scrape;
    if (!r.activity || (r.status !== 'completed' && r.creditsUsed <= 0)) continue;
    events.push({
      eventId: `scrape:${r.id}`,
      teamId: r.teamId,
      id: r.id,
      endpoint: 'scrape',
      createdAt: r.activity.createdAt,
      target: r.zeroDataRetention ? null : (r.url ?? null),
      apiKey: r.activity.apiKey,
      credits: Math.ceil(r.creditsUsed),
    });
  }
  return events;
}

/** The statement for a batch of writes (exported for tests). */
export function writeStatement(items: readonly Write[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const value = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const sharedBytes = new Map<Buffer, string>();
  const bytes = (b: Buffer) => {
    let ref = sharedBytes.get(b);
    if (ref === undefined) sharedBytes.set(b, (ref = value(b)));
    return `${ref}::bytea`;
  };

  // One row per key, the last put's (as one statement after another would leave it): an INSERT ...
  // ON CONFLICT DO UPDATE may not touch the same row twice.
  const lastPut = new Map<string, CachePut>();
  const scrapes: ScrapeRecord[] = [];
  for (const item of items) {
    if ('cache' in item) {
      lastPut.delete(item.cache.key);
      lastPut.set(item.cache.key, item.cache);
    } else {
      scrapes.push(item.scrape);
    }
  }

  const cacheRows = [...lastPut.values()].map((e) => {
    const f = `COALESCE(${value(e.fetchedAt ?? null)}::timestamptz, now())`;
    return `(${value(e.key)}, ${value(e.url)}, ${bytes(e.documentGz)}, ${value(e.contentCredits)}::integer, ${f}, ${f} + ${value(e.retainMs)}::bigint * interval '1 millisecond')`;
  });
  const scrapeRows = scrapes.map(
    (r) =>
      `(${value(r.id)}::uuid, ${value(r.teamId)}, ${value(r.url ?? null)}, ${value(r.status)}, ${value(r.errorCode ?? null)}, ` +
      `${value(r.statusCode ?? null)}::integer, ${r.documentGz ? bytes(r.documentGz) : `${value(null)}::bytea`}, ` +
      `${value(r.documentBytes ?? null)}::integer, ${value(r.creditsUsed)}::integer, ${value(r.cacheHit)}::boolean, ` +
      `${value(r.proxyUsed ?? null)}, ${value(r.zeroDataRetention)}::boolean, ` +
      `now() + ${value(r.retainMs)}::bigint * interval '1 millisecond', ` +
      `${value(r.metadataPatch ? JSON.stringify(r.metadataPatch) : null)}::jsonb)`,
  );

  const cacheSql =
    cacheRows.length === 0
      ? ''
      : `INSERT INTO scraper.cache_entries (cache_key, url, document_gz, content_credits, fetched_at, expires_at)
       VALUES ${cacheRows.join(',\n')}
       ON CONFLICT (cache_key) DO UPDATE SET url = EXCLUDED.url, document_gz = EXCLUDED.document_gz,
         content_credits = EXCLUDED.content_credits, fetched_at = EXCLUDED.fetched_at,
         expires_at = EXCLUDED.expires_at`;
  if (scrapeRows.length === 0) return { sql: cacheSql, params };
  const scrapeSql = `INSERT INTO scraper.scrapes (id, team_id, url, status, error_code, status_code, document_gz, document_bytes,
         credits_used, cache_hit, proxy_used, zero_data_retention, expires_at, metadata_patch)
       VALUES ${scrapeRows.join(',\n')}
       ON CONFLICT (id) DO NOTHING`;
  // A data-modifying WITH runs exactly once whether or not the main statement reads it.
  return { sql: cacheSql === '' ? scrapeSql : `WITH cached AS (${cacheSql})\n${scrapeSql}`, params };
}
