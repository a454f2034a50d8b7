import { z } from 'zod';

export const ACTIVITY_ENDPOINTS = [
  'scrape',
  'crawl',
  'batch_scrape',
  'search',
  'extract',
  'llmstxt',
  'deep_research',
  'map',
  'agent',
  'browser',
  'interact',
] as const;
export const ActivityEndpoint = z.enum(ACTIVITY_ENDPOINTS);
export type ActivityEndpoint = z.infer<typeof ActivityEndpoint>;

/**
 * What LLM tokens can be spent for: every activity endpoint, plus the docs-search answers
 * (`POST /v2/support/docs-search`, which is not a billable call and so has no activity record).
 */
export const TOKEN_USAGE_ENDPOINTS = [...ACTIVITY_ENDPOINTS, 'docs_search'] as const;
export const TokenUsageEndpoint = z.enum(TOKEN_USAGE_ENDPOINTS);
export type TokenUsageEndpoint = z.infer<typeof TokenUsageEndpoint>;

/** Query strings arrive as text; `true`/`false` (and real booleans) are accepted. */
export const QueryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** GET /v2/team/activity query (last 24 hours). */
export const TeamActivityQuery = z.object({
  endpoint: ActivityEndpoint.optional(),
  limit: z.coerce.number<string | number>().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(500).optional(),
});
export type TeamActivityQuery = z.output<typeof TeamActivityQuery>;

export const ActivityItem = z.object({
  id: z.string(),
  endpoint: ActivityEndpoint,
  api_version: z.string(),
  created_at: z.string(),
  /** The URL or query; null for zero-data-retention and lockdown calls (their URLs are never stored). */
  target: z.string().nullable(),
});
export type ActivityItem = z.output<typeof ActivityItem>;

export const TeamActivityResponse = z.object({
  success: z.literal(true),
  data: z.array(ActivityItem),
  cursor: z.string().nullable(),
  has_more: z.boolean(),
});
export type TeamActivityResponse = z.output<typeof TeamActivityResponse>;

/** GET /v2/team/{credit,token}-usage/historical query. */
export const TokenUsageQuery = z.object({
  byApiKey: QueryBoolean.default(false).describe('Break usage down per API key'),
});
export type TokenUsageQuery = z.output<typeof TokenUsageQuery>;
export const CreditUsageHistoricalQuery = TokenUsageQuery;

/** One credit counts as this many tokens (api-v2.md, endpoint 11). */
export const TOKENS_PER_CREDIT = 15;

const period = {
  startDate: z.string().describe('First instant of the UTC calendar month'),
  endDate: z.string().describe('Last millisecond of the UTC calendar month'),
  apiKey: z
    .string()
    .optional()
    .describe('Masked API key (with byApiKey); absent for usage made without a key'),
};

export const TokenUsagePeriod = z.object({
  ...period,
  totalTokens: z.int().min(0).describe('Credits used × 15'),
  tokensUsed: z.int().min(0).describe('Same as totalTokens (the name the official SDKs read)'),
  llmTokens: z
    .object({ input: z.int().min(0), output: z.int().min(0), total: z.int().min(0) })
    .describe('Tokens LLM features actually spent, as reported by the model server'),
});
export type TokenUsagePeriod = z.output<typeof TokenUsagePeriod>;

export const TokenUsageResponse = z.object({ success: z.literal(true), periods: z.array(TokenUsagePeriod) });
export type TokenUsageResponse = z.output<typeof TokenUsageResponse>;

export const CreditUsagePeriod = z.object({ ...period, creditsUsed: z.int().min(0) });
export type CreditUsagePeriod = z.output<typeof CreditUsagePeriod>;
export const CreditUsageHistoricalResponse = z.object({
  success: z.literal(true),
  periods: z.array(CreditUsagePeriod),
});
export type CreditUsageHistoricalResponse = z.output<typeof CreditUsageHistoricalResponse>;

/** GET /v2/team/credit-usage. */
export const CreditUsageResponse = z.object({
  success: z.literal(true),
  data: z.object({
    remainingCredits: z.number(),
    planCredits: z.number().describe('Credits granted to the team so far'),
    billingPeriodStart: z.string().nullable(),
    billingPeriodEnd: z.string().nullable(),
  }),
});
export type CreditUsageResponse = z.output<typeof CreditUsageResponse>;

/** GET /v2/team/token-usage (credits × 15). */
export const TokenUsageCurrentResponse = z.object({
  success: z.literal(true),
  data: z.object({
    remainingTokens: z.number(),
    planTokens: z.number(),
    billingPeriodStart: z.string().nullable(),
    billingPeriodEnd: z.string().nullable(),
  }),
});
export type TokenUsageCurrentResponse = z.output<typeof TokenUsageCurrentResponse>;

/** GET /v2/team/queue-status. */
export const QueueStatusResponse = z.object({
  success: z.literal(true),
  jobsInQueue: z.int().min(0).describe('Active plus waiting'),
  activeJobsInQueue: z.int().min(0).describe('Requests in flight and crawl/batch pages being scraped'),
  waitingJobsInQueue: z.int().min(0).describe('Crawl/batch pages waiting for a concurrency slot'),
  maxConcurrency: z.int().min(0),
  mostRecentSuccess: z.string().nullable().describe('When a page of the team last completed (last 24 h)'),
});
export type QueueStatusResponse = z.output<typeof QueueStatusResponse>;

/** GET /v2/concurrency-check. */
export const ConcurrencyCheckResponse = z.object({
  success: z.literal(true),
  concurrency: z.int().min(0),
  maxConcurrency: z.int().min(0),
});
export type ConcurrencyCheckResponse = z.output<typeof ConcurrencyCheckResponse>;

/**
 * How an API key is shown in usage answers: its public lookup prefix in the key's format with the
 * secret part masked (`wds_<prefix>_********`), like Firecrawl shows keys. The secret is never
 * stored, so it can never be shown.
 */
export function maskApiKey(prefix: string): string {
  return `wds_${prefix}_********`;
}
