import type { Queryable } from '@wds/database';
import { ScraperWrites } from './scraper-writes';

export interface ScrapeRecord {
  id: string;
  teamId: string;
  /** Omitted under zero data retention. */
  url?: string;
  status: 'completed' | 'failed';
  errorCode?: string;
  statusCode?: number;
  documentGz?: Buffer;
  documentBytes?: number;
  creditsUsed: number;
  cacheHit: boolean;
  proxyUsed?: 'basic' | 'enhanced';
  zeroDataRetention: boolean;
  /** How long the row (and its document) is kept. */
  retainMs: number;
  /** Metadata merged over the stored document's when read (a cache hit stores the cached gzip as is). */
  metadataPatch?: Record<string, string | number>;
  /** A public POST /v2/scrape: recorded as team activity with the row (see ScraperWrites). */
  activity?: ScrapeActivity;
}

/** Who made a public scrape and when (its activity record). */
export interface ScrapeActivity {
  /** Lookup prefix of the API key used; null when none. */
  apiKey: string | null;
  /** When the call was made (ms since the epoch); stable for a given job. */
  createdAt: number;
}

export interface StoredScrape {
  teamId: string;
  status: 'completed' | 'failed';
  zeroDataRetention: boolean;
  documentGz?: Buffer;
  metadataPatch?: Record<string, string | number>;
}

/** Port: scrape jobs and their documents. */
export abstract class ScrapeStore {
  abstract insert(record: ScrapeRecord): Promise<void>;
  /** Undefined when unknown or expired. */
  abstract find(id: string): Promise<StoredScrape | undefined>;
  /** A byte range of the stored gzip document. */
  abstract readDocumentRange(
    id: string,
    offset: number,
    length: number,
  ): Promise<{ teamId: string; data: Buffer; total: number; zeroDataRetention: boolean } | undefined>;
  abstract forgetDocument(id: string): Promise<void>;
  abstract purgeExpired(): Promise<number>;
}

export class PgScrapeStore extends ScrapeStore {
  constructor(
    private readonly db: Queryable,
    private readonly writes: ScraperWrites = new ScraperWrites(db),
  ) {
    super();
  }

  /**
   * Rows go out in natural batches shared with the cache entries (ScraperWrites); each caller
   * returns once its own row is committed.
   */
  insert(r: ScrapeRecord): Promise<void> {
    return this.writes.insertScrape(r);
  }

  async find(id: string): Promise<StoredScrape | undefined> {
    const { rows } = await this.db.query<{
      team_id: string;
      status: 'completed' | 'failed';
      zero_data_retention: boolean;
      document_gz: Buffer | null;
      metadata_patch: Record<string, string | number> | null;
    }>(
      `SELECT team_id, status, zero_data_retention, document_gz, metadata_patch FROM scraper.scrapes
       WHERE id = $1 AND expires_at > now()`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      teamId: row.team_id,
      status: row.status,
      zeroDataRetention: row.zero_data_retention,
      documentGz: row.document_gz ?? undefined,
      metadataPatch: row.metadata_patch ?? undefined,
    };
  }

  async readDocumentRange(id: string, offset: number, length: number) {
    const { rows } = await this.db.query<{
      team_id: string;
      data: Buffer | null;
      total: number | null;
      zero_data_retention: boolean;
    }>(
      `SELECT team_id, zero_data_retention, substring(document_gz FROM $2 FOR $3) AS data,
              octet_length(document_gz) AS total
       FROM scraper.scrapes WHERE id = $1 AND expires_at > now()`,
      [id, offset + 1, length],
    );
    const row = rows[0];
    if (!row || row.data === null || row.total === null) return undefined;
    return {
      teamId: row.team_id,
      data: row.data,
      total: row.total,
      zeroDataRetention: row.zero_data_retention,
    };
  }

  async forgetDocument(id: string): Promise<void> {
    await this.db.query(`UPDATE scraper.scrapes SET document_gz = NULL WHERE id = $1`, [id]);
  }

  async purgeExpired(): Promise<number> {
    const res = await this.db.query(`DELETE FROM scraper.scrapes WHERE expires_at <= now()`);
    return res.rowCount ?? 0;
  }
}
