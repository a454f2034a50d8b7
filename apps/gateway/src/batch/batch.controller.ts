import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { BatchScrapeCreateResponse, CancelJobResponse, JobErrorsResponse } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { BatchUseCases } from './batch.usecases';

@Controller('v2/batch/scrape')
export class BatchController {
  constructor(private readonly batches: BatchUseCases) {}

  /** 200, not 201: the Firecrawl SDKs treat only 200 as success. */
  @Post()
  @HttpCode(200)
  create(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<BatchScrapeCreateResponse> {
    return this.batches.create(req, team, body);
  }

  @Get(':id')
  @Header('content-type', 'application/json; charset=utf-8')
  status(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Query() query: unknown,
  ): Promise<string> {
    return this.batches.status(req, team, params, query);
  }

  @Delete(':id')
  cancel(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<CancelJobResponse> {
    return this.batches.cancel(team, params);
  }

  @Get(':id/errors')
  errors(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<JobErrorsResponse> {
    return this.batches.errors(team, params);
  }
}
