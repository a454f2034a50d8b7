import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { Database } from '@wds/database';
import { APP_CONFIG } from '@wds/service-kit';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';

/**
 * Docs-search questions per team per minute, on top of the team's general rate limit: a question
 * can hold the language model for many seconds, so one team asking in a loop must not queue every
 * other team's questions behind its own. Counted in gateway.rate_limits, shared by all replicas.
 */
@Injectable()
export class DocsSearchRateLimiter {
  private readonly limiter: RateLimiterPostgres;

  constructor(db: Database, @Inject(APP_CONFIG) config: GatewayConfig) {
    this.limiter = new RateLimiterPostgres({
      storeClient: { query: (q: { text: string; values?: unknown[] }) => db.query(q.text, q.values) },
      storeType: 'pool',
      schemaName: 'gateway',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: 'docs',
      points: config.WDS_DOCS_SEARCH_RATE_PER_MINUTE,
      duration: 60,
    });
  }

  async consume(teamId: string): Promise<void> {
    try {
      await this.limiter.consume(teamId, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new ServiceError(
        ErrorCode.RATE_LIMITED,
        `Too many docs-search questions from this team; try again in ${retryAfter} s`,
        undefined,
        retryAfter,
      );
    }
  }
}
