import {
  SCRAPE_DOCUMENT_CHUNK_BYTES,
  SCRAPE_INLINE_MAX_BYTES,
  type Document,
  type ScrapeResultReply,
} from '@wds/contracts';
import { chunkCount, encodeDocument } from '../storage/document-codec';
import type { ScrapeActivity, ScrapeStore } from '../storage/scrape-store';

export type DeliveredResult = ScrapeResultReply;

export interface DeliveryInput {
  teamId: string;
  jobId: string;
  url: string;
  document: Document;
  creditsUsed: number;
  /** LLM tokens of the page's formats, handed back in the reply (extract jobs bill by them). */
  tokensUsed?: number;
  cacheHit: boolean;
  proxyUsed?: 'basic' | 'enhanced';
  statusCode?: number;
  zeroDataRetention: boolean;
  /** Set for a public scrape: recorded as team activity with the row. */
  activity?: ScrapeActivity;
  /** A crawl or batch page: its job's expiry (ms since the epoch), the row's latest expiry. */
  keepUntil?: number;
}

/** A document whose stored form already exists (the cache entry's gzip) and differs only in metadata. */
export interface SharedDeliveryInput extends Omit<DeliveryInput, 'zeroDataRetention'> {
  /** The gzip of the document without this job's metadata. */
  gz: Buffer;
  /** This job's metadata, merged over the stored document's when it is read back. */
  metadataPatch: Record<string, string | number>;
}

export interface DeliverySettings {
  retentionMs: number;
  /** How long a zero-data-retention document too large for a message waits for the gateway to read it. */
  transientMs: number;
}

/**
 * Records the job and hands the document back: inline when it fits a NATS message, otherwise as a
 * reference to the stored gzip that the caller reads in chunks. Zero data retention keeps neither
 * URL nor document, except a too-large document, kept briefly until its last chunk is read.
 */
export class DocumentDelivery {
  constructor(
    private readonly scrapes: ScrapeStore,
    private readonly settings: DeliverySettings,
  ) {}

  async deliver(input: DeliveryInput): Promise<DeliveredResult> {
    const { gz, jsonBytes } = await encodeDocument(input.document);
    const inline = jsonBytes <= SCRAPE_INLINE_MAX_BYTES;
    const keepDocument = !input.zeroDataRetention || !inline;
    await this.scrapes.insert({
      id: input.jobId,
      teamId: input.teamId,
      url: input.zeroDataRetention ? undefined : input.url,
      status: 'completed',
      statusCode: input.statusCode,
      documentGz: keepDocument ? gz : undefined,
      documentBytes: keepDocument ? gz.length : undefined,
      creditsUsed: input.creditsUsed,
      cacheHit: input.cacheHit,
      proxyUsed: input.proxyUsed,
      zeroDataRetention: input.zeroDataRetention,
      retainMs: retainFor(
        input.zeroDataRetention ? this.settings.transientMs : this.settings.retentionMs,
        input.keepUntil,
      ),
      activity: input.activity,
    });
    const base = {
      creditsUsed: input.creditsUsed,
      cacheHit: input.cacheHit,
      ...(input.tokensUsed ? { tokensUsed: input.tokensUsed } : {}),
    };
    if (inline) return { ...base, document: input.document };
    return {
      ...base,
      documentRef: {
        jobId: input.jobId,
        bytes: gz.length,
        chunks: chunkCount(gz.length, SCRAPE_DOCUMENT_CHUNK_BYTES),
      },
    };
  }

  /**
   * Records the job with an already compressed document (shared with the cache entry) and its own
   * metadata beside it: no re-encoding. Only for documents that fit a message and keep no secrets
   * from the cache (no zero data retention), so the answer is always inline.
   */
  async deliverShared(input: SharedDeliveryInput): Promise<DeliveredResult> {
    await this.recordShared(input);
    return {
      creditsUsed: input.creditsUsed,
      cacheHit: input.cacheHit,
      ...(input.tokensUsed ? { tokensUsed: input.tokensUsed } : {}),
      document: input.document,
    };
  }

  /**
   * Records a completed job whose stored document is a cache entry's gzip plus the job's own
   * metadata (as `deliverShared` does), without answering it: for cache hits a gateway answered
   * from its hot copy.
   */
  async recordShared(input: Omit<SharedDeliveryInput, 'document'>): Promise<void> {
    await this.scrapes.insert({
      id: input.jobId,
      teamId: input.teamId,
      url: input.url,
      status: 'completed',
      statusCode: input.statusCode,
      documentGz: input.gz,
      documentBytes: input.gz.length,
      metadataPatch: input.metadataPatch,
      creditsUsed: input.creditsUsed,
      cacheHit: input.cacheHit,
      proxyUsed: input.proxyUsed,
      zeroDataRetention: false,
      retainMs: retainFor(this.settings.retentionMs, input.keepUntil),
      activity: input.activity,
    });
  }
}

/**
 * How long a job row is kept: `retainMs`, cut to what is left of `keepUntil` (a crawl or batch page
 * lives no longer than its job; one whose job already expired is kept for nothing).
 */
export function retainFor(retainMs: number, keepUntil: number | undefined, now = Date.now()): number {
  return keepUntil === undefined ? retainMs : Math.max(0, Math.min(retainMs, keepUntil - now));
}
