import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const WINDOW_SECONDS = 60;
const KEY_PREFIX = 'rpm';

/**
 * Points a replica takes from the shared counter at once and then spends locally, so a busy team
 * does not cost a PostgreSQL round trip per request. Only for limits of 1000/min and more (smaller
 * limits stay exact); at most 1/200 of the limit, at most 50. Points taken but not spent before
 * the window ends are lost, so a team may be refused up to that many requests early per replica.
 */
export function rateBlock(requestsPerMinute: number): number {
  return requestsPerMinute >= 1000 ? Math.min(50, Math.floor(requestsPerMinute / 200)) : 1;
}

interface LocalBudget {
  points: number;
  left: number;
  until: number;
}

/**
 * Requests per minute per team, counted in gateway.rate_limits so every replica shares one budget.
 * rate-limiter-flexible fixes `points` per limiter instance while each team has its own limit, so
 * there is one instance per distinct limit over the same table and key space: changing a team's
 * limit takes effect on its next request without resetting the current window. Large limits are
 * spent in blocks (`rateBlock`).
 */
@Injectable()
export class TeamRateLimiter {
  private readonly limiters = new Map<number, RateLimiterPostgres>();
  private readonly budgets = new Map<string, LocalBudget>();

  constructor(private readonly db: Database) {}

  async consume(teamId: string, requestsPerMinute: number): Promise<RateDecision> {
    const local = this.budgets.get(teamId);
    if (local && local.left > 0 && local.points === requestsPerMinute && Date.now() < local.until) {
      local.left--;
      return { allowed: true };
    }
    const block = rateBlock(requestsPerMinute);
    try {
      const res = await this.limiter(requestsPerMinute).consume(teamId, block);
      this.keep(teamId, requestsPerMinute, block - 1, res.msBeforeNext);
      return { allowed: true };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      // The counter was short of a whole block: what was left before this call is ours.
      const available = requestsPerMinute - (err.consumedPoints - block);
      if (block > 1 && available > 0) {
        this.keep(teamId, requestsPerMinute, available - 1, err.msBeforeNext);
        return { allowed: true };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
    }
  }

  /** Drops counters of windows that ended; called by the gateway's housekeeping timer. */
  async deleteExpired(): Promise<void> {
    await this.db.query('DELETE FROM gateway.rate_limits WHERE expire < $1', [Date.now()]);
  }

  /** Adds points taken but not yet spent; concurrent block takes of one window add up. */
  private keep(teamId: string, points: number, left: number, msBeforeNext: number): void {
    if (left <= 0) return;
    const until = Date.now() + msBeforeNext;
    const current = this.budgets.get(teamId);
    if (current && current.points === points && Math.abs(current.until - until) < 1000) current.left += left;
    else this.budgets.set(teamId, { points, left, until });
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
