import { z } from 'zod';
import { ScrapeRequest } from '../../api/scrape/scrape-request';
import { EXACTLY_ONE_DOCUMENT, documentOrRefShape, hasExactlyOneDocument } from '../scrape-document';

/** Scrape one page now; used by the gateway (POST /v2/scrape) and by crawl/batch page workers. */
export const ScrapeRunRequest = z.object({
  teamId: z.string().min(1),
  requestId: z.string().min(1),
  jobId: z.uuid(),
  /** The already-validated public request; parsing it again is idempotent. */
  options: ScrapeRequest,
  zeroDataRetention: z.boolean().optional(),
  /** W3C trace context of the caller, for services that cannot use message headers. */
  traceparent: z.string().optional(),
});
export type ScrapeRunRequest = z.output<typeof ScrapeRunRequest>;
export type ScrapeRunRequestInput = z.input<typeof ScrapeRunRequest>;

/**
 * The cache entry an inline document was answered from (a hit) or stored as (a fresh scrape): the
 * document is that entry's plus this request's metadata (PER_REQUEST_METADATA_KEYS). Lets a
 * gateway keep a hot copy and answer later hits itself (RPC.scrapeRecordHits).
 */
export const ScrapeCacheEntryRef = z.object({
  key: z.string().min(1),
  /** When the entry was fetched (ms since the epoch): its identity together with `key`. */
  fetchedAt: z.int(),
  /** When the entry leaves the cache (ms since the epoch). */
  expiresAt: z.int(),
  /** Credits a hit of this entry costs. */
  contentCredits: z.number().min(0),
});
export type ScrapeCacheEntryRef = z.output<typeof ScrapeCacheEntryRef>;

/** The document inline, or a reference to read with RPC.scrapeDocumentChunk when it is too large. */
export const ScrapeRunReply = z
  .object({
    ...documentOrRefShape,
    creditsUsed: z.number().min(0),
    cacheHit: z.boolean().optional(),
    cached: ScrapeCacheEntryRef.optional(),
  })
  .refine(hasExactlyOneDocument, EXACTLY_ONE_DOCUMENT);
export type ScrapeRunReply = z.output<typeof ScrapeRunReply>;

/** Most hits one RPC.scrapeRecordHits call carries. */
export const SCRAPE_RECORD_HITS_MAX = 256;

/**
 * Cache hits a gateway answered from its hot copy of a cache entry: the scraper records each as a
 * scrape job (the entry's stored document + the hit's metadata), exactly as a hit it served itself.
 */
export const ScrapeRecordHitsRequest = z.object({
  hits: z
    .array(
      z.object({
        teamId: z.string().min(1),
        jobId: z.uuid(),
        url: z.string().min(1),
        key: z.string().min(1),
        fetchedAt: z.int(),
        creditsUsed: z.number().min(0),
        /** The cached document's `metadata.statusCode`. */
        statusCode: z.int().optional(),
      }),
    )
    .min(1)
    .max(SCRAPE_RECORD_HITS_MAX),
});
export type ScrapeRecordHitsRequest = z.output<typeof ScrapeRecordHitsRequest>;

/**
 * The jobs recorded. A hit missing here was not: its entry is no longer in the cache as it was
 * (replaced by a newer fetch, or expired), and the caller must scrape the ordinary way instead.
 */
export const ScrapeRecordHitsReply = z.object({ recorded: z.array(z.uuid()) });
export type ScrapeRecordHitsReply = z.output<typeof ScrapeRecordHitsReply>;
