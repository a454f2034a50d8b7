import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const WINDOW_SECONDS = 60;
const KEY_PREFIX = 'rpm';

/**
 * Requests per minute per team, counted in gateway.rate_limits so every replica shares one budget.
 * rate-limiter-flexible fixes `points` per limiter instance while each team has its own limit, so
 * there is one instance per distinct limit over the same table and key space: changing a team's
 * limit takes effect on its next request without resetting the current window.
 */
@Injectable()
export class TeamRateLimiter {
  private readonly limiters = new Map<number, RateLimiterPostgres>();

  constructor(private readonly db: Database) {}

  async consume(teamId: string, requestsPerMinute: number): Promise<RateDecision> {
    try {
      await this.limiter(requestsPerMinute).consume(teamId, 1);
      return { allowed: true };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
      throw err;
    }
  }

  /** Drops counters of windows that ended; called by the gateway's housekeeping timer. */
  async deleteExpired(): Promise<void> {
    await this.db.query('DELETE FROM gateway.rate_limits WHERE expire < $1', [Date.now()]);
  }

  private limiter(points: number): RateLimiterPostgres {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        // The library only calls query({ text, values }) on a "pool" store client.
        storeClient: { query: (q: { text: string; values?: unknown[] }) => this.db.query(q.text, q.values) },
        storeType: 'pool',
        schemaName: 'gateway',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: KEY_PREFIX,
        points,
        duration: WINDOW_SECONDS,
      });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}
