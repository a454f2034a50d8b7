import { JobIdParams, type CancelJobResponse, type JobErrorsResponse, type JobRpcSet } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { AuthenticatedTeam } from '../teams/team';
import { validate } from '../http/validate';
import { jobStatusResponse } from './job-status.pager';
import { publicBaseUrl } from './public-url';

/**
 * The endpoints every page job (crawl, batch scrape) has, below its own path: status with paging,
 * cancel and errors, answered by the job's service through its `JobRpcSet`.
 */
export class JobEndpoints {
  constructor(
    private readonly messaging: Messaging,
    private readonly rpcs: JobRpcSet,
    /** e.g. `/v2/crawl`. */
    private readonly path: string,
    private readonly publicBase: string | undefined,
  ) {}

  /** The job's absolute status URL (`url` of the create answer, base of `next`). */
  statusUrl(origin: string, id: string): URL {
    return new URL(`${publicBaseUrl(this.publicBase, origin)}${this.path}/${id}`);
  }

  /** Counts and up to 10 MB of documents; `next` while the job runs or more documents remain. */
  async status(origin: string, team: AuthenticatedTeam, params: unknown, query: unknown): Promise<string> {
    const { id } = validate(JobIdParams, params, 'path');
    return jobStatusResponse(this.messaging, this.rpcs, {
      teamId: team.teamId,
      jobId: id,
      query,
      statusUrl: this.statusUrl(origin, id),
    });
  }

  async cancel(team: AuthenticatedTeam, params: unknown): Promise<CancelJobResponse> {
    const { id } = validate(JobIdParams, params, 'path');
    const reply = await this.messaging.request(this.rpcs.cancel, { teamId: team.teamId, jobId: id });
    return { success: true, status: reply.status };
  }

  async errors(team: AuthenticatedTeam, params: unknown): Promise<JobErrorsResponse> {
    const { id } = validate(JobIdParams, params, 'path');
    return this.messaging.request(this.rpcs.errors, { teamId: team.teamId, jobId: id });
  }
}
