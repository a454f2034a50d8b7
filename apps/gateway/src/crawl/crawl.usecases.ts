import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  scrapeEstimate,
  CRAWL_RPC,
  CrawlParamsPreviewRequest,
  CrawlRequest,
  ErrorCode,
  ServiceError,
  type ActiveCrawlsResponse,
  type CrawlCreateResponse,
  type CrawlParamsPreviewResponse,
} from '@wds/contracts';
import { LlmError } from '@wds/llm';
import type { Logger } from '@wds/observability';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { AuthenticatedTeam } from '../teams/team';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { reportGatewayLlmUsage } from '../credits/llm-usage';
import { CreditsService } from '../credits/credits.service';
import { validate } from '../http/validate';
import { JobEndpoints } from '../jobs/job-endpoints';
import { assertTeamMay } from '../teams/assert-team-may';
import { GenerateCrawlParamsUseCase } from './crawl-params.usecase';

export const LLM_NOT_CONFIGURED =
  'Generating crawl options from a prompt needs an LLM, and no LLM provider is configured on this service (WDS_LLM_BASE_URL); set the crawl options explicitly';
export const PREVIEW_FAILED = 'Failed to process natural language prompt. Please try rephrasing.';
export const PROMPT_FAILED =
  'Failed to process natural language prompt. Please try rephrasing or use explicit crawler options.';
/** Time for the site sample (map) on top of one model attempt. */
const MAP_SAMPLE_MS = 60_000;

/** POST /v2/crawl, validated by the controller. */
export interface CreateCrawlCommand {
  team: AuthenticatedTeam;
  request: CrawlRequest;
  /** The body as sent: a prompt's generated options fill only the fields it did not set. */
  body: Record<string, unknown>;
  /** `<protocol>://<host>` the client addressed, for the status URL without WDS_PUBLIC_BASE_URL. */
  origin: string;
}

/** The crawl endpoints: authorisation here, the work in the crawler service. */
@Injectable()
export class CrawlUseCases {
  /** Status, cancel and errors below /v2/crawl. */
  readonly jobs: JobEndpoints;

  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) config: GatewayConfig,
    private readonly params: GenerateCrawlParamsUseCase,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.jobs = new JobEndpoints(messaging, CRAWL_RPC, '/v2/crawl', config.WDS_PUBLIC_BASE_URL);
    this.generateTimeoutMs = config.WDS_LLM_TIMEOUT_MS + MAP_SAMPLE_MS;
  }

  /** Longest a prompt's option generation may take: the map sample and one model attempt. */
  private readonly generateTimeoutMs: number;

  async create({ team, request: sent, body, origin }: CreateCrawlCommand): Promise<CrawlCreateResponse> {
    let request = sent;
    let warning: string | undefined;
    if (request.prompt !== undefined) {
      const generated = await this.generate(team, request.url, request.prompt, PROMPT_FAILED);
      // Explicit fields win: generated options fill only keys the caller did not send (or sent as null).
      const raw = body;
      const merged: Record<string, unknown> = { ...raw };
      for (const [key, value] of Object.entries(generated.options)) {
        if (raw[key] === undefined || raw[key] === null) merged[key] = value;
      }
      request = validate(CrawlRequest, merged, 'body');
      warning = generated.warnings.length ? generated.warnings.join(' ') : undefined;
    }
    assertTeamMay(team, request);
    await this.credits.requireCreditsToStart(team.teamId, 'a crawl', scrapeEstimate(request.scrapeOptions));
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
    return { success: true, id, url: this.jobs.statusUrl(origin, id).href, ...(warning ? { warning } : {}) };
  }

  /** POST /v2/crawl/params-preview: the options a prompt generates, without starting a crawl. */
  async paramsPreview(
    team: AuthenticatedTeam,
    request: CrawlParamsPreviewRequest,
  ): Promise<CrawlParamsPreviewResponse> {
    const generated = await this.generate(team, request.url, request.prompt, PREVIEW_FAILED);
    return {
      success: true,
      data: { url: request.url, ...generated.options },
      ...(generated.warnings.length ? { warning: generated.warnings.join(' ') } : {}),
    };
  }

  private async generate(team: AuthenticatedTeam, url: string, prompt: string, failure: string) {
    if (!this.params.enabled)
      throw new ServiceError(ErrorCode.BAD_REQUEST, LLM_NOT_CONFIGURED, { field: 'prompt' });
    let result;
    try {
      result = await this.params.execute({
        teamId: team.teamId,
        url,
        prompt,
        signal: AbortSignal.timeout(this.generateTimeoutMs),
      });
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      this.logger.warn(
        { teamId: team.teamId, kind: err.kind, status: err.status },
        'crawl options from a prompt failed',
      );
      throw new ServiceError(ErrorCode.BAD_REQUEST, failure, { field: 'prompt' });
    }
    await reportGatewayLlmUsage(this.messaging, this.logger, {
      kind: 'crawl-params',
      team,
      endpoint: 'crawl',
      result,
    });
    return result;
  }

  async active(team: AuthenticatedTeam): Promise<ActiveCrawlsResponse> {
    const { jobs } = await this.messaging.request(CRAWL_RPC.active, { teamId: team.teamId });
    return { success: true, crawls: jobs };
  }
}
