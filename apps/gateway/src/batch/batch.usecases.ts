import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  BATCH_RPC,
  BatchScrapeRequest,
  ErrorCode,
  JobIdParams,
  ServiceError,
  type BatchScrapeCreateResponse,
  type CancelJobResponse,
  type JobErrorsResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import type { GatewayConfig } from '../config';
import { jobStatusResponse } from '../crawl/job-status.pager';
import { publicBaseUrl } from '../crawl/public-url';
import { CreditsService } from '../credits/credits.service';
import { validate } from '../http/validate';

/** Inserting 10,000 pages and publishing the first tasks takes a while on a loaded database. */
const CREATE_TIMEOUT_MS = 60_000;

/** The batch scrape endpoints: validation and authorisation here, the work in the batch service. */
@Injectable()
export class BatchUseCases {
  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

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
    return {
      success: true,
      id,
      url: this.statusUrl(req, id).href,
      ...(ignoreInvalidURLs ? { invalidURLs } : {}),
    };
  }

  /** GET /v2/batch/scrape/{id}: counts and up to 10 MB of documents; `next` while running or more remain. */
  async status(
    req: FastifyRequest,
    team: AuthenticatedTeam,
    params: unknown,
    query: unknown,
  ): Promise<string> {
    const { id } = validate(JobIdParams, params, 'path');
    return jobStatusResponse(this.messaging, BATCH_RPC, {
      teamId: team.teamId,
      jobId: id,
      query,
      statusUrl: this.statusUrl(req, id),
    });
  }

  async cancel(team: AuthenticatedTeam, params: unknown): Promise<CancelJobResponse> {
    const { id } = validate(JobIdParams, params, 'path');
    const reply = await this.messaging.request(BATCH_RPC.cancel, { teamId: team.teamId, jobId: id });
    return { success: true, status: reply.status };
  }

  async errors(team: AuthenticatedTeam, params: unknown): Promise<JobErrorsResponse> {
    const { id } = validate(JobIdParams, params, 'path');
    return this.messaging.request(BATCH_RPC.errors, { teamId: team.teamId, jobId: id });
  }

  private statusUrl(req: FastifyRequest, id: string): URL {
    return new URL(`${publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, req)}/v2/batch/scrape/${id}`);
  }
}
