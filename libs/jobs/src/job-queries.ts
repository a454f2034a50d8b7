import {
  ErrorCode,
  JOB_DOCUMENT_CHUNK_BYTES,
  JOB_INLINE_DOCUMENT_BYTES,
  JOB_PAGE_REPLY_BYTES,
  ServiceError,
  type JobErrorsResponse,
  type JobStatusReply,
  type JobRpcSet,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { JobEvents } from './job-events';
import type { JobStore } from './job-store';
import type { JobRow } from './job.types';

export interface JobQueriesOptions {
  kind: string;
  rpcs: JobRpcSet;
  /** `total`/`completed` of the status answer; default: total = pages attempted or queued, completed = pages scraped. */
  counts?: (job: JobRow) => { total: number; completed: number };
  /** `options` of an active-job item (never include secrets such as webhook headers). */
  activeOptions?: (job: JobRow) => Record<string, unknown>;
}

/**
 * Default counts, as api-v2.md words them: `total` = pages attempted (every page taken into the job,
 * failed ones included), `completed` = pages scraped successfully. A finished job with failed pages
 * therefore ends with completed < total; the failures are listed by the errors endpoint.
 */
export function defaultCounts(job: JobRow): { total: number; completed: number } {
  return { total: Math.max(job.discovered, job.succeeded + job.failed), completed: job.succeeded };
}

/**
 * Serves a job service's read and cancel RPCs for the gateway: status pages (documents as raw
 * JSON within a byte budget, large ones by reference), document chunks, errors, cancel, active.
 */
export class JobQueries {
  constructor(
    private readonly messaging: Messaging,
    private readonly store: JobStore,
    private readonly events: JobEvents,
    private readonly opts: JobQueriesOptions,
  ) {}

  /** Registers the RPCs with `Messaging.serve` (services on the WDS transport use `jobQueriesController`). */
  serve(): void {
    const { rpcs } = this.opts;
    this.messaging.serve(rpcs.status, (req) => this.status(req));
    this.messaging.serve(rpcs.documentChunk, (req) => this.documentChunk(req));
    this.messaging.serve(rpcs.cancel, (req) => this.cancel(req));
    this.messaging.serve(rpcs.errors, (req) => this.errors(req.teamId, req.jobId));
    this.messaging.serve(rpcs.queue, (req) => this.queue(req));
    this.messaging.serve(rpcs.active, (req) => this.active(req));
  }

  async documentChunk(req: {
    teamId: string;
    jobId: string;
    seq: number;
    index: number;
  }): Promise<{ data: string; chunks: number }> {
    await this.owned(req.teamId, req.jobId);
    const part = await this.store.readDocumentBytes(
      req.jobId,
      req.seq,
      req.index * JOB_DOCUMENT_CHUNK_BYTES,
      JOB_DOCUMENT_CHUNK_BYTES,
    );
    const total = await this.store.readDocuments(req.jobId, {
      skip: req.seq - 1,
      limit: 1,
      maxBytes: 0,
      inlineMax: 0,
    });
    if (!part || !total[0]) throw new ServiceError(ErrorCode.NOT_FOUND, 'Document not found');
    return {
      data: part.toString('base64'),
      chunks: Math.max(1, Math.ceil(total[0].bytes / JOB_DOCUMENT_CHUNK_BYTES)),
    };
  }

  async cancel(req: { teamId: string; jobId: string }): Promise<{ status: 'cancelled' }> {
    const job = await this.owned(req.teamId, req.jobId);
    if (job.status !== 'scraping' || !(await this.store.end(job.id, 'cancelled'))) {
      throw new ServiceError(ErrorCode.CONFLICT, `The job has already ended (${job.status})`);
    }
    return { status: 'cancelled' as const };
  }

  queue(req: { teamId: string }): ReturnType<JobStore['queueStatus']> {
    return this.store.queueStatus(req.teamId, this.opts.kind);
  }

  async active(req: { teamId: string }): Promise<{
    jobs: { id: string; teamId: string; url: string; options: Record<string, unknown> }[];
  }> {
    const jobs = await this.store.active(req.teamId, this.opts.kind);
    return {
      jobs: jobs.map((j) => ({
        id: j.id,
        teamId: j.teamId,
        url: j.url,
        options: this.opts.activeOptions?.(j) ?? {},
      })),
    };
  }

  async status(req: {
    teamId: string;
    jobId: string;
    skip: number;
    limit?: number;
    maxBytes: number;
  }): Promise<JobStatusReply> {
    const job = await this.owned(req.teamId, req.jobId);
    const items = await this.store.readDocuments(job.id, {
      skip: req.skip,
      limit: req.limit ?? 10_000,
      maxBytes: Math.min(req.maxBytes, JOB_PAGE_REPLY_BYTES),
      inlineMax: JOB_INLINE_DOCUMENT_BYTES,
    });
    const counts = (this.opts.counts ?? defaultCounts)(job);
    return {
      status: job.status,
      ...counts,
      creditsUsed: job.creditsUsed,
      expiresAt: job.expiresAt.toISOString(),
      stored: job.succeeded,
      items: items.map((i) =>
        i.json !== undefined
          ? { seq: i.seq, bytes: i.bytes, json: i.json }
          : {
              seq: i.seq,
              bytes: i.bytes,
              chunks: Math.max(1, Math.ceil(i.bytes / JOB_DOCUMENT_CHUNK_BYTES)),
            },
      ),
    };
  }

  async errors(teamId: string, jobId: string): Promise<JobErrorsResponse> {
    const job = await this.owned(teamId, jobId);
    const { pages, blocked } = await this.store.errors(job.id);
    const errors = pages.map((p) => ({
      id: p.id,
      timestamp: p.at.toISOString(),
      url: p.url,
      error: p.error,
      ...(p.code ? { code: p.code } : {}),
    }));
    if (job.error)
      errors.push({ id: job.id, timestamp: new Date().toISOString(), url: job.url, error: job.error });
    return { errors, robotsBlocked: blocked };
  }

  /** The job if it belongs to the team: unknown or expired → 404, another team's → 403. */
  private async owned(teamId: string, jobId: string): Promise<JobRow> {
    const job = await this.store.get(jobId);
    // A job of another kind in the same tables (the batch service's extract jobs) is not one of these.
    if (!job || job.kind !== this.opts.kind || job.expiresAt.getTime() < Date.now()) {
      throw new ServiceError(ErrorCode.NOT_FOUND, 'Job not found');
    }
    if (job.teamId !== teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This job belongs to another team');
    return job;
  }

  /** Exposed for services that end jobs themselves. */
  get jobEvents(): JobEvents {
    return this.events;
  }
}
