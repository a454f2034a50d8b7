import type { Document } from '@wds/contracts';
import type { Queryable } from '@wds/database';
import { ScraperWrites } from '../storage/scraper-writes';

export interface CacheEntry {
  documentGz: Buffer;
  contentCredits: number;
  fetchedAt: Date;
  expiresAt: Date;
  /** The decoded document when the store already has it (an in-process cache), else decode documentGz. */
  document?: Document;
  /** Size of the document's JSON, known when `document` is. */
  jsonBytes?: number;
}

export interface CacheLookup {
  key: string;
  /** The entry must be younger than this (ms); undefined = any age within retention. */
  maxAgeMs?: number;
  /** The entry must be at least this old (ms). */
  minAgeMs?: number;
}

export interface CachePut {
  key: string;
  url: string;
  documentGz: Buffer;
  contentCredits: number;
  retainMs: number;
  /** The entry's fetch time (`cachedAt` of its hits), set once for every copy of it; defaults to now. */
  fetchedAt?: Date;
}

/** Port: the page cache/index, one entry per cache key. */
export abstract class CacheStore {
  abstract find(lookup: CacheLookup): Promise<CacheEntry | undefined>;
  abstract put(entry: CachePut): Promise<void>;
  abstract purgeExpired(): Promise<number>;
}

export class PgCacheStore extends CacheStore {
  constructor(
    private readonly db: Queryable,
    private readonly writes: ScraperWrites = new ScraperWrites(db),
  ) {
    super();
  }

  async find(l: CacheLookup): Promise<CacheEntry | undefined> {
    const { rows } = await this.db.query<{
      document_gz: Buffer;
      content_credits: number;
      fetched_at: Date;
      expires_at: Date;
    }>(
      `SELECT document_gz, content_credits, fetched_at, expires_at FROM scraper.cache_entries
       WHERE cache_key = $1
         AND expires_at > now()
         AND ($2::bigint IS NULL OR fetched_at > now() - $2::bigint * interval '1 millisecond')
         AND fetched_at <= now() - $3::bigint * interval '1 millisecond'`,
      [l.key, l.maxAgeMs ?? null, l.minAgeMs ?? 0],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      documentGz: row.document_gz,
      contentCredits: row.content_credits,
      fetchedAt: row.fetched_at,
      expiresAt: row.expires_at,
    };
  }

  /**
   * Entries go out in natural batches shared with the job rows (ScraperWrites): a crawl stores
   * every page it fetches. Each caller returns once its own entry is committed.
   */
  put(e: CachePut): Promise<void> {
    return this.writes.putCache(e);
  }

  async purgeExpired(): Promise<number> {
    const res = await this.db.query(`DELETE FROM scraper.cache_entries WHERE expires_at <= now()`);
    return res.rowCount ?? 0;
  }
}
