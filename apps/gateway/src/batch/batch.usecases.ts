import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  BATCH_RPC,
  scrapeEstimate,
  type BatchScrapeCreateResponse,
  type BatchScrapeRequest,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { AuthenticatedTeam } from '../teams/team';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { CreditsService } from '../credits/credits.service';
import { JobEndpoints } from '../jobs/job-endpoints';
import { assertTeamMay } from '../teams/assert-team-may';

/** Inserting 10,000 pages and publishing the first tasks takes a while on a loaded database. */
const CREATE_TIMEOUT_MS = 60_000;

/** POST /v2/batch/scrape, validated by the controller. */
export interface CreateBatchCommand {
  team: AuthenticatedTeam;
  request: BatchScrapeRequest;
  /** `<protocol>://<host>` the client addressed, for the status URL without WDS_PUBLIC_BASE_URL. */
  origin: string;
}

/** The batch scrape endpoints: authorisation here, the work in the batch service. */
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

  async create({ team, request, origin }: CreateBatchCommand): Promise<BatchScrapeCreateResponse> {
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
    assertTeamMay(team, { zeroDataRetention });
    await this.credits.requireCreditsToStart(team.teamId, 'a batch scrape', scrapeEstimate(scrapeOptions));
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
      url: this.jobs.statusUrl(origin, id).href,
      ...(ignoreInvalidURLs ? { invalidURLs } : {}),
    };
  }
}
