import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DOCS_SEARCH_RPC, ErrorCode, ServiceError, type DocsSearchResponse } from '@wds/contracts';
import { Messaging, NoAnswerError } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { DocsSearchRateLimiter } from './docs-search-rate-limiter';

/** A failed request that took at least this share of the wait timed out (rather than found no responder). */
const TIMEOUT_SHARE = 0.95;

export interface SearchDocsCommand {
  teamId: string;
  /** Public prefix of the API key that asked (its token usage is recorded under it). */
  apiKey: string | null;
  requestId: string;
  question: string;
}

/**
 * Asks a docs-search replica. Answers 503 `support_agent_unavailable` when none is reachable and
 * 504 `support_agent_timeout` when none answered in time, as Firecrawl's support endpoint does.
 */
@Injectable()
export class SearchDocs {
  constructor(
    private readonly messaging: Messaging,
    private readonly limiter: DocsSearchRateLimiter,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute(cmd: SearchDocsCommand): Promise<DocsSearchResponse> {
    await this.limiter.consume(cmd.teamId);
    const timeoutMs = this.config.WDS_DOCS_SEARCH_TIMEOUT_MS;
    const t0 = Date.now();
    try {
      const result = await this.messaging.request(
        DOCS_SEARCH_RPC.ask,
        {
          teamId: cmd.teamId,
          apiKey: cmd.apiKey,
          requestId: cmd.requestId || `req_${randomUUID()}`,
          question: cmd.question,
          deadline: t0 + timeoutMs,
        },
        { timeoutMs },
      );
      return { success: true, ...result };
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== ErrorCode.SERVICE_UNAVAILABLE) throw err;
      // A replica that answered "unavailable" (its database is down, say) is named as such.
      if (!(err instanceof NoAnswerError)) {
        throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, 'support_agent_unavailable', {
          reason: `the docs-search service answered: ${err.message}`,
        });
      }
      if (Date.now() - t0 >= timeoutMs * TIMEOUT_SHARE) {
        throw new ServiceError(ErrorCode.UPSTREAM_TIMEOUT, 'support_agent_timeout', {
          reason: `no docs-search answer within ${Math.round(timeoutMs / 1000)} s`,
        });
      }
      throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, 'support_agent_unavailable', {
        reason: 'no docs-search service is reachable',
      });
    }
  }
}
