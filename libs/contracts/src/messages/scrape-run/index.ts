import { z } from 'zod';
import { ScrapeRequest } from '../../api/scrape/scrape-request';
import { ActivityEndpoint } from '../../api/team/team';
import { EXACTLY_ONE_DOCUMENT, documentOrRefShape, hasExactlyOneDocument } from '../scrape-document';

/** Scrape one page now; used by the gateway (POST /v2/scrape) and by crawl/batch page workers. */
export const ScrapeRunRequest = z.object({
  teamId: z.string().min(1),
  requestId: z.string().min(1),
  /**
   * The scrape's id (`metadata.scrapeId`). Every run writes the scraper's job row under it, crawl and
   * batch pages included (ADR 0022, decision 6): GET /v2/scrape/{id}, interact and chunked document
   * reads work on any page, at the cost of the page's document stored by the job service as well.
   */
  jobId: z.uuid(),
  /** The already-validated public request; parsing it again is idempotent. */
  options: ScrapeRequest,
  zeroDataRetention: z.boolean().optional(),
  /**
   * A crawl or batch page: when its job expires (ms since the epoch). The scraper's row of the page
   * (its document, for GET /v2/scrape/{id} and interact) is kept until then at most, so that a job
   * retention shorter than the scraper's (`WDS_CRAWL_RETENTION_HOURS` < `WDS_SCRAPE_RETENTION_HOURS`)
   * holds for every copy of the job's pages.
   */
  keepUntil: z.int().positive().optional(),
  /**
   * Present when this is a public POST /v2/scrape (not a crawl or batch page): the scraper records
   * it as team activity (endpoint `scrape`) together with the job row, for the API key named here
   * (its lookup prefix; null when none).
   */
  activity: z.object({ apiKey: z.string().min(1).max(64).nullable() }).optional(),
  /**
   * A crawl page that no link or sitemap of the crawl led to (a URL of the team's change-tracking
   * history the crawl re-checks): the changeTracking format answers `visibility: 'hidden'`.
   */
  hiddenInCrawl: z.boolean().optional(),
  /** W3C trace context of the caller, for services that cannot use message headers. */
  traceparent: z.string().optional(),
  /** Whom the LLM tokens of this scrape are booked under (token usage); default: a scrape, no key. */
  usage: z.object({ endpoint: ActivityEndpoint, apiKey: z.string().min(1).max(64).nullable() }).optional(),
});
export type ScrapeRunRequest = z.output<typeof ScrapeRunRequest>;
export type ScrapeRunRequestInput = z.input<typeof ScrapeRunRequest>;

/**
 * The cache entry an inline document was answered from (a hit) or stored as (a fresh scrape): the
 * document is that entry's plus this request's metadata (PER_REQUEST_METADATA_KEYS). Lets a
 * gateway keep a hot copy and answer later hits itself (`SCRAPE_HITS`, ADR 0006).
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
    /** LLM tokens the page's formats spent (provider-reported, else estimated); absent when none ran. */
    tokensUsed: z.int().min(0).optional(),
    cacheHit: z.boolean().optional(),
    cached: ScrapeCacheEntryRef.optional(),
  })
  .refine(hasExactlyOneDocument, EXACTLY_ONE_DOCUMENT);
export type ScrapeRunReply = z.output<typeof ScrapeRunReply>;

/** Most hits one batch on `SCRAPE_HITS` carries; also bounded by `SCRAPE_HIT_BATCH_MAX_BYTES`. */
export const SCRAPE_HIT_BATCH_MAX = 256;
/** Payload bound of one batch (NATS max payload is 1 MiB). */
export const SCRAPE_HIT_BATCH_MAX_BYTES = 768 * 1024;

/**
 * A cache hit a gateway answered from its hot copy of a cache entry (ADR 0006). The scraper stores
 * it as the job row a hit it served itself would have: the entry's document + this metadata.
 */
export const ScrapeHitRecord = z.object({
  teamId: z.string().min(1),
  jobId: z.uuid(),
  url: z.string().min(1),
  /** The entry's fetch time (ms since the epoch): `cachedAt` of the answer. */
  fetchedAt: z.int(),
  creditsUsed: z.number().min(0),
  /** The cached document's `metadata.statusCode`. */
  statusCode: z.int().optional(),
  /** Base64 of the gzip-compressed JSON of the entry's document (without any request's metadata). */
  documentGz: z.string().min(1),
  /** Lookup prefix of the API key the hit was answered for (team activity); null when none. */
  apiKey: z.string().min(1).max(64).nullable().optional(),
  /** When the gateway answered (ms since the epoch): the activity's created_at, stable across redeliveries. */
  answeredAt: z.int().min(0).optional(),
});
export type ScrapeHitRecord = z.output<typeof ScrapeHitRecord>;

/** A hit as a batch carries it: its document is an index into the batch's `documents`. */
export const ScrapeHitEntry = ScrapeHitRecord.omit({ documentGz: true }).extend({ document: z.int().min(0) });
export type ScrapeHitEntry = z.output<typeof ScrapeHitEntry>;

/**
 * Hits answered together, published as one message (the answers wait for the stream's ack). Each
 * distinct document travels once per batch: hot hits of one page share it.
 */
export const ScrapeHitBatch = z
  .object({
    documents: z.array(z.string().min(1)).min(1).max(SCRAPE_HIT_BATCH_MAX),
    hits: z.array(ScrapeHitEntry).min(1).max(SCRAPE_HIT_BATCH_MAX),
  })
  .refine((b) => b.hits.every((h) => h.document < b.documents.length), {
    message: 'every hit must name one of the batch documents',
    path: ['hits'],
  });
export type ScrapeHitBatch = z.output<typeof ScrapeHitBatch>;

/** Builds a batch from hits, carrying each distinct document once. */
export function packHitBatch(hits: readonly ScrapeHitRecord[]): ScrapeHitBatch {
  const documents: string[] = [];
  const index = new Map<string, number>();
  const entries = hits.map(({ documentGz, ...hit }) => {
    let i = index.get(documentGz);
    if (i === undefined) {
      i = documents.push(documentGz) - 1;
      index.set(documentGz, i);
    }
    return { ...hit, document: i };
  });
  return { documents, hits: entries };
}

/** The hits of a batch, each with its document. */
export function unpackHitBatch(batch: ScrapeHitBatch): ScrapeHitRecord[] {
  return batch.hits.map(({ document, ...hit }) => ({ ...hit, documentGz: batch.documents[document] }));
}
