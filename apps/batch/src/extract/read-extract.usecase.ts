import { ErrorCode, ServiceError, type ExtractJobReply, type JobRef } from '@wds/contracts';
import type { JobRow, JobStore } from '@wds/jobs';
import { agentReply, extractReply, type PageFailure } from './extract-reply';
import { extractOptionsOf, type AgentRecord, type ExtractPageRecord } from './extract-options';
import { AGENT_KIND, AGENT_TASK_KEY, EXTRACT_KIND } from './job-kind.hooks';

/** Stored extract pages are small (their answer only); a job has at most 100. */
const READ_MAX_BYTES = 64 * 1024 * 1024;

/** The state of an extract or agent job: NOT_FOUND (unknown, expired), FORBIDDEN (another team's). */
export class ReadExtractUseCase {
  constructor(private readonly store: JobStore) {}

  async execute(ref: JobRef): Promise<ExtractJobReply> {
    const job = await this.owned(ref, [EXTRACT_KIND, AGENT_KIND]);
    const failures: PageFailure[] = (await this.store.errors(job.id)).pages.map((p) => ({
      url: p.url,
      error: p.error,
    }));
    if (job.kind === AGENT_KIND) return agentReply(job, await this.agentRecord(job), failures[0]);
    const records = await this.records(job);
    return extractReply(job, extractOptionsOf(job), records as ExtractPageRecord[], failures);
  }

  /** The job if it is one of `kinds` and the team's (a batch id reads as unknown here). */
  async owned(ref: JobRef, kinds: readonly string[]): Promise<JobRow> {
    const job = await this.store.get(ref.jobId);
    if (!job || !kinds.includes(job.kind) || job.expiresAt.getTime() < Date.now()) {
      throw new ServiceError(
        ErrorCode.NOT_FOUND,
        kinds.length === 1 && kinds[0] === AGENT_KIND ? 'Agent job not found' : 'Extract job not found',
      );
    }
    if (job.teamId !== ref.teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This job belongs to another team');
    return job;
  }

  /** The agent run's record: kept whether the run answered or not (then on the failed task). */
  private async agentRecord(job: JobRow): Promise<AgentRecord | undefined> {
    const page = await this.store.finishedPage(job.id, AGENT_TASK_KEY);
    if (!page?.document) return undefined;
    try {
      return JSON.parse(page.document) as AgentRecord;
    } catch {
      return undefined;
    }
  }

  private async records(job: JobRow): Promise<unknown[]> {
    const items = await this.store.readDocuments(job.id, {
      skip: 0,
      limit: 1000,
      maxBytes: READ_MAX_BYTES,
      inlineMax: READ_MAX_BYTES,
    });
    return items.flatMap((i) => {
      if (i.json === undefined) return [];
      try {
        return [JSON.parse(i.json) as unknown];
      } catch {
        return [];
      }
    });
  }
}
