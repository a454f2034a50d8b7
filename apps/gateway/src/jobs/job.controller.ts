import { Delete, Get, Header, Param, Query } from '@nestjs/common';
import type { CancelJobResponse, JobErrorsResponse } from '@wds/contracts';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam, RequestOrigin } from '../http/request-context';
import type { JobEndpoints } from './job-endpoints';

/**
 * The routes every page job has (`GET :id`, `DELETE :id`, `GET :id/errors`); a job's controller
 * extends it below its own path (Nest routes inherited handlers) and adds its own routes.
 */
export abstract class JobController {
  protected abstract readonly jobs: JobEndpoints;

  @Get(':id')
  @Header('content-type', 'application/json; charset=utf-8')
  status(
    @RequestOrigin() origin: string,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Query() query: unknown,
  ): Promise<string> {
    return this.jobs.status(origin, team, params, query);
  }

  @Delete(':id')
  cancel(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<CancelJobResponse> {
    return this.jobs.cancel(team, params);
  }

  @Get(':id/errors')
  errors(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<JobErrorsResponse> {
    return this.jobs.errors(team, params);
  }
}
