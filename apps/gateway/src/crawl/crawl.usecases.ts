import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  CRAWL_RPC,
  CrawlParamsPreviewRequest,
  CrawlRequest,
  ErrorCode,
  ServiceError,
  type ActiveCrawlsResponse,
  type CrawlCreateResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { CreditsService } from '../credits/credits.service';
import { validate } from '../http/validate';
import { JobEndpoints } from '../jobs/job-endpoints';

/** Why prompt-based options are refused: they need the LLM features, which are not built yet. */
export const LLM_UNAVAILABLE =
  'Generating crawl options from a prompt needs the LLM features, which are not built in this version; set the crawl options explicitly';

/** The crawl endpoints: validation and authorisation here, the work in the crawler service. */
@Injectable()
export class CrawlUseCases {
  /** Status, cancel and errors below /v2/crawl. */
  readonly jobs: JobEndpoints;

  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) config: GatewayConfig,
  ) {
    this.jobs = new JobEndpoints(messaging, CRAWL_RPC, '/v2/crawl', config.WDS_PUBLIC_BASE_URL);
  }

  async create(req: FastifyRequest, team: AuthenticatedTeam, body: unknown): Promise<CrawlCreateResponse> {
    const request = validate(CrawlRequest, body, 'body');
    if (request.prompt !== undefined) throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, LLM_UNAVAILABLE);
    if ((request.ignoreRobotsTxt || request.robotsUserAgent !== undefined) && !team.enterprise) {
      throw new ServiceError(
        ErrorCode.FORBIDDEN,
        'ignoreRobotsTxt and robotsUserAgent are enterprise features; contact support to enable them',
      );
    }
    if (request.zeroDataRetention && !team.zeroDataRetentionEnabled) {
      throw new ServiceError(
        ErrorCode.FORBIDDEN,
        'Zero data retention is not enabled for this team; contact support to enable it',
      );
    }
    if ((await this.credits.balance(team.teamId)) < 1) {
      throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits to start a crawl');
    }
    const createdAt = Date.now();
    const { id } = await this.messaging.request(CRAWL_RPC.create, {
      crawlId: randomUUID(),
      teamId: team.teamId,
      request,
      teamConcurrency: team.limits.maxConcurrency,
    });
    await this.activity.execute({
      team,
      endpoint: 'crawl',
      id,
      target: request.zeroDataRetention ? null : request.url,
      createdAt,
    });
    return { success: true, id, url: this.jobs.statusUrl(req, id).href };
  }

  paramsPreview(body: unknown): never {
    validate(CrawlParamsPreviewRequest, body, 'body');
    throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, LLM_UNAVAILABLE);
  }

  async active(team: AuthenticatedTeam): Promise<ActiveCrawlsResponse> {
    const { jobs } = await this.messaging.request(CRAWL_RPC.active, { teamId: team.teamId });
    return { success: true, crawls: jobs };
  }
}
