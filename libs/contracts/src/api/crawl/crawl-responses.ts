import { z } from 'zod';
import { Document } from '../scrape/document';
import { ScrapeOptions } from '../scrape/scrape-request';

/** Answer of a job-creating POST (crawl). */
export const CrawlCreateResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  url: z.string().describe('Status URL of the job'),
  /** Set when options generated from `prompt` were dropped (invalid regular expressions, values). */
  warning: z.string().optional(),
});
export type CrawlCreateResponse = z.output<typeof CrawlCreateResponse>;

export const CrawlStatus = z.enum(['scraping', 'completed', 'failed', 'cancelled']);
export type CrawlStatus = z.infer<typeof CrawlStatus>;

/** GET /v2/crawl/{id}. `next` is set while the job runs or when the page exceeds 10 MB. */
export const CrawlStatusResponse = z.object({
  success: z.literal(true),
  status: CrawlStatus,
  total: z.int().min(0),
  completed: z.int().min(0),
  creditsUsed: z.number().min(0),
  expiresAt: z.string(),
  next: z.string().nullable(),
  data: z.array(Document),
});
export type CrawlStatusResponse = z.output<typeof CrawlStatusResponse>;

export const JobError = z.object({
  id: z.string(),
  timestamp: z.string().optional(),
  url: z.string(),
  error: z.string(),
  code: z.string().optional(),
});
export type JobError = z.output<typeof JobError>;

/** GET /v2/crawl/{id}/errors and GET /v2/batch/scrape/{id}/errors. */
export const JobErrorsResponse = z.object({
  errors: z.array(JobError),
  robotsBlocked: z.array(z.string()),
});
export type JobErrorsResponse = z.output<typeof JobErrorsResponse>;
export const CrawlErrorsResponse = JobErrorsResponse;
export type CrawlErrorsResponse = JobErrorsResponse;

/** DELETE /v2/crawl/{id} and DELETE /v2/batch/scrape/{id}. */
export const CancelJobResponse = z.object({
  success: z.boolean().optional(),
  status: z.literal('cancelled'),
});
export type CancelJobResponse = z.output<typeof CancelJobResponse>;

export const CrawlParamsPreviewResponse = z.object({
  success: z.literal(true),
  data: z.object({
    url: z.string().optional(),
    includePaths: z.array(z.string()).optional(),
    excludePaths: z.array(z.string()).optional(),
    maxDepth: z.int().optional(),
    maxDiscoveryDepth: z.int().optional(),
    crawlEntireDomain: z.boolean().optional(),
    allowExternalLinks: z.boolean().optional(),
    allowSubdomains: z.boolean().optional(),
    sitemap: z.string().optional(),
    ignoreQueryParameters: z.boolean().optional(),
    ignoreRobotsTxt: z.boolean().optional(),
    robotsUserAgent: z.string().optional(),
    deduplicateSimilarURLs: z.boolean().optional(),
    delay: z.number().optional(),
    limit: z.int().optional(),
  }),
  warning: z.string().optional(),
});
export type CrawlParamsPreviewResponse = z.output<typeof CrawlParamsPreviewResponse>;

export const ActiveCrawl = z.object({
  id: z.uuid(),
  teamId: z.string(),
  url: z.string(),
  options: z.object({ scrapeOptions: ScrapeOptions.optional() }).catchall(z.unknown()),
});
export type ActiveCrawl = z.output<typeof ActiveCrawl>;

/** GET /v2/crawl/active. */
export const ActiveCrawlsResponse = z.object({ success: z.literal(true), crawls: z.array(ActiveCrawl) });
export type ActiveCrawlsResponse = z.output<typeof ActiveCrawlsResponse>;
