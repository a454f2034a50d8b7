import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { BatchScrapeRequest, type BatchScrapeCreateResponse } from '@wds/contracts';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam, RequestOrigin } from '../http/request-context';
import { validate } from '../http/validate';
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
    @RequestOrigin() origin: string,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<BatchScrapeCreateResponse> {
    return this.batches.create({ team, request: validate(BatchScrapeRequest, body, 'body'), origin });
  }
}
