import type { Document } from '@wds/contracts';
import type { Queryable } from '@wds/database';

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

/** Entries per INSERT statement (6 parameters each). */
const PUT_BATCH = 100;

export interface CachePut {
  key: string;
  url: string;
  documentGz: Buffer;
  contentCredits: number;
  retainMs: number;
  /** The entry's fetch time (its identity with the key, see `findExact`); defaults to now. */
  fetchedAt?: Date;
}

/** Port: the page cache/index, one entry per cache key. */
export abstract class CacheStore {
  abstract find(lookup: CacheLookup): Promise<CacheEntry | undefined>;
  /**
   * The unexpired entry of `key` fetched at exactly `fetchedAtMs`, while some copy of it is still
   * held (the shared store keeps only the newest fetch of a key; memory may keep an older one).
   */
  abstract findExact(key: string, fetchedAtMs: number): Promise<CacheEntry | undefined>;
  abstract put(entry: CachePut): Promise<void>;
  abstract purgeExpired(): Promise<number>;
}

export class PgCacheStore extends CacheStore {
  constructor(private readonly db: Queryable) {
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

  async findExact(key: string, fetchedAtMs: number): Promise<CacheEntry | undefined> {
    const { rows } = await this.db.query<{
      document_gz: Buffer;
      content_credits: number;
      fetched_at: Date;
      expires_at: Date;
    }>(
      `SELECT document_gz, content_credits, fetched_at, expires_at FROM scraper.cache_entries
       WHERE cache_key = $1 AND expires_at > now()`,
      [key],
    );
    const row = rows[0];
    // Compared as JavaScript dates: both sides then have the same (millisecond) precision.
    if (!row || row.fetched_at.getTime() !== fetchedAtMs) return undefined;
    return {
      documentGz: row.document_gz,
      contentCredits: row.content_credits,
      fetchedAt: row.fetched_at,
      expiresAt: row.expires_at,
    };
  }

  /**
   * Writes go out in natural batches, as the scrape rows do (scrape-store.ts): one statement at a
   * time, carrying every entry put while the previous one ran, so under load one commit serves many
   * pages (a crawl stores every page it fetches). Each caller still returns once its entry is committed.
   */
  put(e: CachePut): Promise<void> {
    return new Promise((resolve, reject) => {
      this.puts.push({ entry: e, resolve, reject });
      if (!this.putting) void this.flushPuts();
    });
  }

  private readonly puts: { entry: CachePut; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private putting = false;

  private async flushPuts(): Promise<void> {
    this.putting = true;
    try {
      while (this.puts.length > 0) {
        const batch = this.puts.splice(0, PUT_BATCH);
        try {
          await this.putMany(batch.map((b) => b.entry));
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.putting = false;
    }
  }

  private async putMany(entries: CachePut[]): Promise<void> {
    // One row per key, the last put's (as one statement after another would leave it): an INSERT ...
    // ON CONFLICT DO UPDATE may not touch the same row twice.
    const last = new Map<string, CachePut>();
    for (const e of entries) {
      last.delete(e.key);
      last.set(e.key, e);
    }
    const params: unknown[] = [];
    const rows = [...last.values()].map((e) => {
      const b = params.length;
      params.push(e.key, e.url, e.documentGz, e.contentCredits, e.retainMs, e.fetchedAt ?? null);
      const f = `COALESCE($${b + 6}::timestamptz, now())`;
      return `($${b + 1}, $${b + 2}, $${b + 3}::bytea, $${b + 4}::integer, ${f}, ${f} + $${b + 5}::bigint * interval '1 millisecond')`;
    });
    await this.db.query(
      `INSERT INTO scraper.cache_entries (cache_key, url, document_gz, content_credits, fetched_at, expires_at)
       VALUES ${rows.join(',\n')}
       ON CONFLICT (cache_key) DO UPDATE SET url = EXCLUDED.url, document_gz = EXCLUDED.document_gz,
         content_credits = EXCLUDED.content_credits, fetched_at = EXCLUDED.fetched_at,
         expires_at = EXCLUDED.expires_at`,
      params,
    );
  }

  async purgeExpired(): Promise<number> {
    const res = await this.db.query(`DELETE FROM scraper.cache_entries WHERE expires_at <= now()`);
    return res.rowCount ?? 0;
  }
}
