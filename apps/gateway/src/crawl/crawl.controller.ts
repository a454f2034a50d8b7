import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type {
  ActiveCrawlsResponse,
  CancelJobResponse,
  CrawlCreateResponse,
  JobErrorsResponse,
} from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { CrawlUseCases } from './crawl.usecases';

@Controller('v2/crawl')
export class CrawlController {
  constructor(private readonly crawls: CrawlUseCases) {}

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
  paramsPreview(@CurrentTeam() _team: AuthenticatedTeam, @Body() body: unknown): never {
    return this.crawls.paramsPreview(body);
  }

  @Get('active')
  active(@CurrentTeam() team: AuthenticatedTeam): Promise<ActiveCrawlsResponse> {
    return this.crawls.active(team);
  }

  @Get(':id')
  @Header('content-type', 'application/json; charset=utf-8')
  status(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Query() query: unknown,
  ): Promise<string> {
    return this.crawls.status(req, team, params, query);
  }

  @Delete(':id')
  cancel(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<CancelJobResponse> {
    return this.crawls.cancel(team, params);
  }

  @Get(':id/errors')
  errors(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<JobErrorsResponse> {
    return this.crawls.errors(team, params);
  }
}
