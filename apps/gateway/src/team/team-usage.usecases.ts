import { Injectable } from '@nestjs/common';
import {
  BATCH_RPC,
  CRAWL_RPC,
  RPC,
  TOKENS_PER_CREDIT,
  type ConcurrencyCheckResponse,
  type CreditUsageHistoricalResponse,
  type CreditUsageResponse,
  type QueueStatusResponse,
  type TeamActivityQuery,
  type TeamActivityResponse,
  type TokenUsageCurrentResponse,
  type TokenUsageResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { ConcurrencyLimiter } from '../limits/concurrency-limiter';

/** GET /v2/team/activity lists this window. */
export const ACTIVITY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A page of the team's activity of the last 24 hours (billing's records). */
@Injectable()
export class ListTeamActivity {
  constructor(private readonly messaging: Messaging) {}

  async execute(teamId: string, query: TeamActivityQuery): Promise<TeamActivityResponse> {
    const page = await this.messaging.request(RPC.activityList, {
      teamId,
      endpoint: query.endpoint,
      limit: query.limit,
      cursor: query.cursor,
      windowMs: ACTIVITY_WINDOW_MS,
    });
    return { success: true, data: page.data, cursor: page.cursor, has_more: page.hasMore };
  }
}

/** The team's remaining and granted credits and the current period (GET /v2/team/credit-usage). */
@Injectable()
export class GetCreditUsage {
  constructor(private readonly messaging: Messaging) {}

  async execute(teamId: string): Promise<CreditUsageResponse> {
    const u = await this.messaging.request(RPC.usageCurrent, { teamId });
    return {
      success: true,
      data: {
        remainingCredits: u.remainingCredits,
        planCredits: u.planCredits,
        billingPeriodStart: u.billingPeriodStart,
        billingPeriodEnd: u.billingPeriodEnd,
      },
    };
  }
}

/** The same in tokens: one credit = 15 tokens (GET /v2/team/token-usage). */
@Injectable()
export class GetTokenUsage {
  constructor(private readonly messaging: Messaging) {}

  async execute(teamId: string): Promise<TokenUsageCurrentResponse> {
    const u = await this.messaging.request(RPC.usageCurrent, { teamId });
    return {
      success: true,
      data: {
        remainingTokens: u.remainingCredits * TOKENS_PER_CREDIT,
        planTokens: u.planCredits * TOKENS_PER_CREDIT,
        billingPeriodStart: u.billingPeriodStart,
        billingPeriodEnd: u.billingPeriodEnd,
      },
    };
  }
}

/** Credits per UTC calendar month, optionally per API key (GET /v2/team/credit-usage/historical). */
@Injectable()
export class GetCreditUsageHistorical {
  constructor(private readonly messaging: Messaging) {}

  async execute(teamId: string, byApiKey: boolean): Promise<CreditUsageHistoricalResponse> {
    const { periods } = await this.messaging.request(RPC.usageHistorical, { teamId, byApiKey });
    return {
      success: true,
      periods: periods.map((p) => ({
        startDate: p.startDate,
        endDate: p.endDate,
        ...(p.apiKey !== undefined ? { apiKey: p.apiKey } : {}),
        creditsUsed: p.creditsUsed,
      })),
    };
  }
}

/**
 * Tokens per UTC calendar month, optionally per API key (GET /v2/team/token-usage/historical):
 * `totalTokens` (the spec's name) and `tokensUsed` (the SDKs') are credits × 15; `llmTokens` are
 * the tokens LLM features actually spent, as their model server reported them.
 */
@Injectable()
export class GetTokenUsageHistorical {
  constructor(private readonly messaging: Messaging) {}

  async execute(teamId: string, byApiKey: boolean): Promise<TokenUsageResponse> {
    const { periods } = await this.messaging.request(RPC.usageHistorical, { teamId, byApiKey });
    return {
      success: true,
      periods: periods.map((p) => {
        const tokens = p.creditsUsed * TOKENS_PER_CREDIT;
        return {
          startDate: p.startDate,
          endDate: p.endDate,
          ...(p.apiKey !== undefined ? { apiKey: p.apiKey } : {}),
          totalTokens: tokens,
          tokensUsed: tokens,
          llmTokens: {
            input: p.llmInputTokens,
            output: p.llmOutputTokens,
            total: p.llmInputTokens + p.llmOutputTokens,
          },
        };
      }),
    };
  }
}

/**
 * The team's work as the concurrency machinery sees it now: requests in flight through the
 * gateways (their concurrency leases, the asking request excluded) and crawl/batch pages in
 * flight or waiting for one of the team's slots (the shared team gate of the job services).
 */
@Injectable()
export class ReadTeamQueue {
  constructor(
    private readonly messaging: Messaging,
    private readonly limiter: ConcurrencyLimiter,
  ) {}

  async status(teamId: string, maxConcurrency: number, selfInFlight: number): Promise<QueueStatusResponse> {
    const [requests, crawl, batch, scrapes] = await Promise.all([
      this.limiter.teamInFlight(teamId),
      this.messaging.request(CRAWL_RPC.queue, { teamId }),
      this.messaging.request(BATCH_RPC.queue, { teamId }),
      // The team's latest recorded scrape (activity records only calls that succeeded or were charged).
      this.messaging.request(RPC.activityList, {
        teamId,
        endpoint: 'scrape',
        limit: 1,
        windowMs: ACTIVITY_WINDOW_MS,
      }),
    ]);
    const active = Math.max(0, requests - selfInFlight) + crawl.active + batch.active;
    const waiting = crawl.waiting + batch.waiting;
    return {
      success: true,
      jobsInQueue: active + waiting,
      activeJobsInQueue: active,
      waitingJobsInQueue: waiting,
      maxConcurrency,
      mostRecentSuccess: latest([
        crawl.lastSuccessAt,
        batch.lastSuccessAt,
        scrapes.data[0]?.created_at ?? null,
      ]),
    };
  }

  async concurrency(
    teamId: string,
    maxConcurrency: number,
    selfInFlight: number,
  ): Promise<ConcurrencyCheckResponse> {
    const q = await this.status(teamId, maxConcurrency, selfInFlight);
    return { success: true, concurrency: q.activeJobsInQueue, maxConcurrency };
  }
}

/** The latest of ISO instants (all in UTC with the same format, so they compare as text). */
function latest(instants: (string | null)[]): string | null {
  const times = instants.filter((t): t is string => t !== null);
  return times.length ? times.reduce((a, b) => (a > b ? a : b)) : null;
}
