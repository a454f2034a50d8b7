import { z } from 'zod';
import { ActivityEndpoint, ActivityItem } from '../../api/team/team';

/*
 * Billing's read side of activity and usage, served to the gateway (public /v2/team/* routes and
 * the admin API). Billing owns these records; nobody else reads its tables.
 */

export const ActivityListRequest = z.object({
  teamId: z.string().min(1),
  endpoint: ActivityEndpoint.optional(),
  limit: z.int().min(1).max(100),
  /** The opaque cursor of the previous page; billing answers BAD_REQUEST (field `cursor`) when it is not one it issued for this team and filter. */
  cursor: z.string().min(1).max(500).optional(),
  /** Activity of this window back from now (ms); the public endpoint lists 24 hours. */
  windowMs: z.int().min(1),
});
export type ActivityListRequest = z.output<typeof ActivityListRequest>;

export const ActivityListReply = z.object({
  data: z.array(ActivityItem),
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
});
export type ActivityListReply = z.output<typeof ActivityListReply>;

export const UsageCurrentRequest = z.object({ teamId: z.string().min(1) });
export const UsageCurrentReply = z.object({
  /** Spendable credits now (credits parked in open blocks count). */
  remainingCredits: z.number(),
  /** Credits granted to the team so far (a self-hosted team has no plan: its grants are its plan). */
  planCredits: z.number(),
  /** The current usage period: the UTC calendar month. */
  billingPeriodStart: z.string(),
  billingPeriodEnd: z.string(),
});
export type UsageCurrentReply = z.output<typeof UsageCurrentReply>;

export const UsageHistoricalRequest = z.object({
  teamId: z.string().min(1),
  byApiKey: z.boolean().default(false),
});
export type UsageHistoricalRequest = z.output<typeof UsageHistoricalRequest>;

export const UsageMonth = z.object({
  /** First instant of the UTC calendar month (ISO). */
  startDate: z.string(),
  /** Last millisecond of the month (ISO). */
  endDate: z.string(),
  /** Masked API key (byApiKey only); absent for usage without a key. */
  apiKey: z.string().optional(),
  creditsUsed: z.int().min(0),
  /** Tokens LLM calls actually spent in the month (reported by the calls). */
  llmInputTokens: z.int().min(0),
  llmOutputTokens: z.int().min(0),
});
export type UsageMonth = z.output<typeof UsageMonth>;

export const UsageHistoricalReply = z.object({ periods: z.array(UsageMonth) });
export type UsageHistoricalReply = z.output<typeof UsageHistoricalReply>;
