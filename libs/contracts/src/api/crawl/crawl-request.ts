import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { HttpUrl } from '../common/url';
import { userRegexProblem } from '../common/user-regex';
import { ScrapeOptions } from '../scrape/scrape-request';
import { WebhookOption } from '../webhooks/webhook-config';

/** A scope pattern: compiled with RE2 (linear time) by the crawler, so validated with it here. */
const PathPattern = z
  .string()
  .min(1)
  .max(2000)
  .superRefine((pattern, ctx) => {
    const problem = userRegexProblem(pattern);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('Regular expression (RE2 syntax: matched in linear time; no backreferences or lookaround)');

/**
 * Upper bound of `delay` (s): a delayed page (this plus a scrape's longest timeout) finishes well
 * within the crawler's redispatch delay (600 s) and the watchdog's no-progress limit (1800 s).
 */
export const CRAWL_MAX_DELAY_SECONDS = 240;

export const SitemapMode = z.enum(['include', 'skip', 'only']);
export type SitemapMode = z.infer<typeof SitemapMode>;

export const CRAWL_LIMIT_DEFAULT = 10000;

/** POST /v2/crawl body. */
export const CrawlRequest = publicBody({
  url: HttpUrl,
  prompt: z.string().min(1).max(10000).optional().describe('Generate crawl options from this description'),
  excludePaths: z.array(PathPattern).max(200).optional(),
  includePaths: z.array(PathPattern).max(200).optional(),
  maxDiscoveryDepth: z.int().min(0).max(10_000).optional(),
  sitemap: SitemapMode.default('include'),
  ignoreQueryParameters: z.boolean().default(false),
  deduplicateSimilarURLs: z.boolean().default(true),
  regexOnFullURL: z.boolean().default(false),
  limit: z.int().min(1).max(1_000_000).default(CRAWL_LIMIT_DEFAULT),
  crawlEntireDomain: z.boolean().default(false),
  allowExternalLinks: z.boolean().default(false),
  allowSubdomains: z.boolean().default(false),
  ignoreRobotsTxt: z.boolean().default(false).describe('Enterprise only'),
  robotsUserAgent: z.string().min(1).max(500).optional().describe('Enterprise only'),
  delay: z
    .number()
    .min(0)
    .max(CRAWL_MAX_DELAY_SECONDS)
    .optional()
    .describe('Seconds between scrapes; forces concurrency 1'),
  maxConcurrency: z.int().min(1).max(10_000).optional(),
  webhook: WebhookOption.optional(),
  scrapeOptions: ScrapeOptions.prefault({}),
  zeroDataRetention: z.boolean().default(false),
});
export type CrawlRequest = z.output<typeof CrawlRequest>;
export type CrawlRequestInput = z.input<typeof CrawlRequest>;

/** POST /v2/crawl/params-preview body. */
export const CrawlParamsPreviewRequest = publicBody({
  url: HttpUrl,
  prompt: z.string().min(1).max(10000),
});
export type CrawlParamsPreviewRequest = z.output<typeof CrawlParamsPreviewRequest>;

export const JobIdParams = z.object({ id: z.uuid().describe('Job id') });
export type JobIdParams = z.output<typeof JobIdParams>;
