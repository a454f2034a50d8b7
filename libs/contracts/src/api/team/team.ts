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
  target: z.string(),
});
export type ActivityItem = z.output<typeof ActivityItem>;

export const TeamActivityResponse = z.object({
  success: z.literal(true),
  data: z.array(ActivityItem),
  cursor: z.string().nullable(),
  has_more: z.boolean(),
});
export type TeamActivityResponse = z.output<typeof TeamActivityResponse>;

/** GET /v2/team/token-usage/historical query. */
export const TokenUsageQuery = z.object({
  byApiKey: QueryBoolean.default(false).describe('Break usage down per API key'),
});
export type TokenUsageQuery = z.output<typeof TokenUsageQuery>;

export const TokenUsagePeriod = z.object({
  startDate: z.string(),
  endDate: z.string(),
  apiKey: z.string().optional(),
  totalTokens: z.int().min(0),
});
export type TokenUsagePeriod = z.output<typeof TokenUsagePeriod>;

export const TokenUsageResponse = z.object({ success: z.literal(true), periods: z.array(TokenUsagePeriod) });
export type TokenUsageResponse = z.output<typeof TokenUsageResponse>;
