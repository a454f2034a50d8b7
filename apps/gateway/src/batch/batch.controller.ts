import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { BatchScrapeCreateResponse } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { JobController } from '../jobs/job.controller';
import type { JobEndpoints } from '../jobs/job-endpoints';
import { BatchUseCases } from './batch.usecases';

@Controller('v2/batch/scrape')
export class BatchController extends JobController {
  protected readonly jobs: JobEndpoints;

  constructor(private readonly batches: BatchUseCases) {
    super();
    this.jobs = batches.jobs;
  }

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
}
