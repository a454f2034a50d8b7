import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  BATCH_RPC,
  BatchScrapeRequest,
  ErrorCode,
  ServiceError,
  type BatchScrapeCreateResponse,
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

/** Inserting 10,000 pages and publishing the first tasks takes a while on a loaded database. */
const CREATE_TIMEOUT_MS = 60_000;

/** The batch scrape endpoints: validation and authorisation here, the work in the batch service. */
@Injectable()
export class BatchUseCases {
  /** Status, cancel and errors below /v2/batch/scrape. */
  readonly jobs: JobEndpoints;

  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) config: GatewayConfig,
  ) {
    this.jobs = new JobEndpoints(messaging, BATCH_RPC, '/v2/batch/scrape', config.WDS_PUBLIC_BASE_URL);
  }

  async create(
    req: FastifyRequest,
    team: AuthenticatedTeam,
    body: unknown,
  ): Promise<BatchScrapeCreateResponse> {
    const request = validate(BatchScrapeRequest, body, 'body');
    const {
      urls,
      invalidURLs,
      webhook,
      ignoreInvalidURLs,
      maxConcurrency,
      appendToId,
      zeroDataRetention,
      origin: _origin,
      integration: _integration,
      ...scrapeOptions
    } = request;
    if (zeroDataRetention && !team.zeroDataRetentionEnabled) {
      throw new ServiceError(
        ErrorCode.FORBIDDEN,
        'Zero data retention is not enabled for this team; contact support to enable it',
      );
    }
    if ((await this.credits.balance(team.teamId)) < 1) {
      throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits to start a batch scrape');
    }
    const createdAt = Date.now();
    const { id } = await this.messaging.request(
      BATCH_RPC.create,
      {
        batchId: randomUUID(),
        teamId: team.teamId,
        urls,
        scrapeOptions,
        ...(webhook ? { webhook } : {}),
        ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
        zeroDataRetention,
        teamConcurrency: team.limits.maxConcurrency,
        ...(appendToId ? { appendToId } : {}),
      },
      { timeoutMs: CREATE_TIMEOUT_MS },
    );
    // An append is the same job: its activity record is the batch's first (recorded once per id).
    await this.activity.execute({
      team,
      endpoint: 'batch_scrape',
      id,
      target: zeroDataRetention ? null : (urls[0] ?? null),
      createdAt,
    });
    return {
      success: true,
      id,
      url: this.jobs.statusUrl(req, id).href,
      ...(ignoreInvalidURLs ? { invalidURLs } : {}),
    };
  }
}
