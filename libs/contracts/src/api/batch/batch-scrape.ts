import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { refineUrlList, splitUrlList } from '../common/url';
import { Document } from '../scrape/document';
import { applyScrapeRules, scrapeOptionsShape } from '../scrape/scrape-request';
import { WebhookOption } from '../webhooks/webhook-config';

export const BATCH_MAX_URLS = 10000;
/** Longest URL of a batch; with BATCH_MAX_URLS it keeps the largest valid batch within its body limit. */
export const BATCH_MAX_URL_LENGTH = 2048;
/**
 * Body limit of POST /v2/batch/scrape: the largest valid batch (BATCH_MAX_URLS URLs of
 * BATCH_MAX_URL_LENGTH characters, about 20.5 MB, plus every scrape option at its maximum, about 11 MB) fits.
 */
export const BATCH_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * POST /v2/batch/scrape body: the URLs plus every scrape option at the top level (as the Firecrawl
 * SDK sends them). With `ignoreInvalidURLs` bad URLs are set aside in `invalidURLs` instead of
 * failing the request.
 */
export const BatchScrapeRequest = publicBody({
  urls: z.array(z.string().max(BATCH_MAX_URL_LENGTH)).min(1).max(BATCH_MAX_URLS),
  ...scrapeOptionsShape,
  webhook: WebhookOption.optional(),
  ignoreInvalidURLs: z.boolean().default(false),
  maxConcurrency: z.int().min(1).max(10_000).optional(),
  appendToId: z.uuid().optional().describe('Add the URLs to this existing batch job'),
  zeroDataRetention: z.boolean().default(false),
})
  .superRefine((body, ctx) => refineUrlList(body.urls, body.ignoreInvalidURLs, ctx))
  .transform((body) => ({ ...applyScrapeRules(body), ...splitUrlList(body.urls) }));
export type BatchScrapeRequest = z.output<typeof BatchScrapeRequest>;
export type BatchScrapeRequestInput = z.input<typeof BatchScrapeRequest>;

export const BatchScrapeCreateResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  url: z.string().describe('Status URL of the job'),
  invalidURLs: z.array(z.string()).optional(),
});
export type BatchScrapeCreateResponse = z.output<typeof BatchScrapeCreateResponse>;

export const BatchScrapeStatus = z.enum(['scraping', 'completed', 'failed', 'cancelled']);
export type BatchScrapeStatus = z.infer<typeof BatchScrapeStatus>;

/** GET /v2/batch/scrape/{id}. `next` fetches the next 10 MB of data. */
export const BatchScrapeStatusResponse = z.object({
  success: z.literal(true),
  status: BatchScrapeStatus,
  total: z.int().min(0).describe('Pages attempted'),
  completed: z.int().min(0).describe('Pages scraped successfully'),
  creditsUsed: z.number().min(0),
  expiresAt: z.string(),
  next: z.string().nullable(),
  data: z.array(Document),
});
export type BatchScrapeStatusResponse = z.output<typeof BatchScrapeStatusResponse>;
