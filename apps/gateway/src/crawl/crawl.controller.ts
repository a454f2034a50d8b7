import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  CrawlParamsPreviewRequest,
  CrawlRequest,
  type ActiveCrawlsResponse,
  type CrawlCreateResponse,
  type CrawlParamsPreviewResponse,
} from '@wds/contracts';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam, RequestOrigin } from '../http/request-context';
import { validate } from '../http/validate';
import { JobController } from '../jobs/job.controller';
import type { JobEndpoints } from '../jobs/job-endpoints';
import { CrawlUseCases } from './crawl.usecases';

@Controller('v2/crawl')
export class CrawlController extends JobController {
  protected readonly jobs: JobEndpoints;

  constructor(private readonly crawls: CrawlUseCases) {
    super();
    this.jobs = crawls.jobs;
  }

  /** 200, not 201: the Firecrawl SDKs treat only 200 as success. */
  @Post()
  @HttpCode(200)
  create(
    @RequestOrigin() origin: string,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<CrawlCreateResponse> {
    const request = validate(CrawlRequest, body, 'body');
    return this.crawls.create({ team, request, body: body as Record<string, unknown>, origin });
  }

  @Post('params-preview')
  @HttpCode(200)
  paramsPreview(
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<CrawlParamsPreviewResponse> {
    return this.crawls.paramsPreview(team, validate(CrawlParamsPreviewRequest, body, 'body'));
  }

  // A static segment: the router prefers it to the inherited `GET :id`.
  @Get('active')
  active(@CurrentTeam() team: AuthenticatedTeam): Promise<ActiveCrawlsResponse> {
    return this.crawls.active(team);
  }
}
