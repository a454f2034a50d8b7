import { ErrorCode, ServiceError, type BatchCreateReply, type BatchCreateRequest } from '@wds/contracts';
import type { JobEvents, JobStore, PageDispatcher } from '@wds/jobs';
import { canonicalJson, pageCandidates, storedOptions, type BatchOptions } from './batch-options';

/** Large enough never to bind: a batch is bounded by its URLs, appends included. */
const BATCH_PAGE_LIMIT = 2_000_000_000;

export interface BatchRetention {
  retentionMs: number;
  /** Zero-data-retention batches keep their documents only this long (enough to read them). */
  zdrRetentionMs: number;
}

/**
 * Records a batch with its pages and publishes the first page tasks, or adds URLs to a batch
 * (`appendToId`): a running one, or a completed one, which runs again (status `scraping`, `total`
 * grows, a new `batch_scrape.completed` when the new pages are done). The batch id comes from the
 * gateway and page keys are the URLs, so a retried request adds nothing twice.
 */
export class CreateBatchUseCase {
  constructor(
    private readonly store: JobStore,
    private readonly dispatcher: PageDispatcher,
    private readonly events: JobEvents,
    private readonly retention: BatchRetention,
  ) {}

  execute(cmd: BatchCreateRequest): Promise<BatchCreateReply> {
    return cmd.appendToId ? this.append(cmd, cmd.appendToId) : this.create(cmd);
  }

  private async create(cmd: BatchCreateRequest): Promise<BatchCreateReply> {
    const options: BatchOptions = { scrapeOptions: cmd.scrapeOptions };
    await this.store.create({
      id: cmd.batchId,
      teamId: cmd.teamId,
      kind: 'batch',
      url: cmd.urls[0],
      options: options as unknown as Record<string, unknown>,
      pageLimit: BATCH_PAGE_LIMIT,
      concurrency: Math.max(1, Math.min(cmd.maxConcurrency ?? cmd.teamConcurrency, cmd.teamConcurrency)),
      delayMs: 0,
      webhook: cmd.webhook as Record<string, unknown> | undefined,
      zeroDataRetention: cmd.zeroDataRetention,
      retentionMs: cmd.zeroDataRetention ? this.retention.zdrRetentionMs : this.retention.retentionMs,
      teamConcurrency: cmd.teamConcurrency,
    });
    const job = await this.store.get(cmd.batchId);
    if (!job) throw new ServiceError(ErrorCode.INTERNAL, 'The batch was not recorded');
    if (job.teamId !== cmd.teamId) throw new ServiceError(ErrorCode.CONFLICT, 'The batch id is taken');
    // `started` before the pages: a fast page must not be delivered ahead of it.
    if (!job.seeded) await this.events.lifecycle(job, 'started');
    const outcome = await this.store.addPages(job.id, pageCandidates(cmd.urls), { seeded: true });
    await this.dispatcher.publish(outcome.dispatch);
    if (outcome.finished) await this.events.lifecycle(job, 'completed');
    return { id: job.id, added: outcome.inserted };
  }

  private async append(cmd: BatchCreateRequest, batchId: string): Promise<BatchCreateReply> {
    const job = await this.store.get(batchId);
    if (!job || job.kind !== 'batch' || job.expiresAt.getTime() < Date.now()) {
      throw new ServiceError(ErrorCode.NOT_FOUND, 'Batch scrape job not found');
    }
    if (job.teamId !== cmd.teamId) {
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This batch scrape job belongs to another team');
    }
    // Options live with the job, so appended URLs can only be scraped with the batch's own.
    if (canonicalJson(cmd.scrapeOptions) !== canonicalJson(storedOptions(job).scrapeOptions)) {
      throw new ServiceError(
        ErrorCode.BAD_REQUEST,
        'appendToId: the scrape options differ from those of the batch; appended URLs are scraped with the batch options, so send the same options',
      );
    }
    // A completed batch is reopened by new URLs (Firecrawl appends to the batch whatever its
    // state); a cancelled or failed one stays ended, so nothing runs again behind a stop.
    const ended = (status: string) =>
      new ServiceError(
        ErrorCode.CONFLICT,
        `The batch scrape job has ended (${status}) and cannot take more URLs; start a new one`,
      );
    if (job.status !== 'scraping' && job.status !== 'completed') throw ended(job.status);
    const outcome = await this.store.addPages(job.id, pageCandidates(cmd.urls), {
      reopen: {
        retentionMs: job.zeroDataRetention ? this.retention.zdrRetentionMs : this.retention.retentionMs,
      },
    });
    await this.dispatcher.publish(outcome.dispatch);
    if (outcome.finished && outcome.job) await this.events.lifecycle(outcome.job, 'completed');
    if (outcome.inserted === 0) {
      // Nothing new (a retried append, or URLs already in the batch): fine unless the batch was
      // stopped meanwhile.
      const now = await this.store.get(job.id);
      if (now && now.status !== 'scraping' && now.status !== 'completed') throw ended(now.status);
    }
    return { id: job.id, added: outcome.inserted };
  }
}
