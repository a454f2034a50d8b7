import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import type { ActiveCrawlsResponse, CrawlCreateResponse, CrawlParamsPreviewResponse } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
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
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<CrawlCreateResponse> {
    return this.crawls.create(req, team, body);
  }

  @Post('params-preview')
  @HttpCode(200)
  paramsPreview(
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<CrawlParamsPreviewResponse> {
    return this.crawls.paramsPreview(team, body);
  }

  // A static segment: the router prefers it to the inherited `GET :id`.
  @Get('active')
  active(@CurrentTeam() team: AuthenticatedTeam): Promise<ActiveCrawlsResponse> {
    return this.crawls.active(team);
  }
}
