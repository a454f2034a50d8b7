import { CRAWL_WORK, type CrawlCreateRequest } from '@wds/contracts';
import type { JobEvents, JobStore } from '@wds/jobs';
import type { Messaging } from '@wds/messaging';

export interface CrawlRetention {
  retentionMs: number;
  /** Zero-data-retention crawls keep their documents only this long (enough to read them). */
  zdrRetentionMs: number;
}

/**
 * Records a crawl and queues its kickoff. The crawl id comes from the gateway, so a retried
 * create is the same crawl (the insert and the kickoff's msgId are idempotent).
 */
export class CreateCrawlUseCase {
  constructor(
    private readonly store: JobStore,
    private readonly messaging: Messaging,
    private readonly events: JobEvents,
    private readonly retention: CrawlRetention,
  ) {}

  async execute(cmd: CrawlCreateRequest): Promise<{ id: string }> {
    const r = cmd.request;
    const concurrency =
      r.delay !== undefined && r.delay > 0
        ? 1
        : Math.max(1, Math.min(r.maxConcurrency ?? cmd.teamConcurrency, cmd.teamConcurrency));
    await this.store.create({
      id: cmd.crawlId,
      teamId: cmd.teamId,
      kind: 'crawl',
      url: r.url,
      options: r as unknown as Record<string, unknown>,
      pageLimit: r.limit,
      concurrency,
      delayMs: Math.round((r.delay ?? 0) * 1000),
      webhook: r.webhook as Record<string, unknown> | undefined,
      zeroDataRetention: r.zeroDataRetention,
      retentionMs: r.zeroDataRetention ? this.retention.zdrRetentionMs : this.retention.retentionMs,
      teamConcurrency: cmd.teamConcurrency,
    });
    await this.messaging.publish(
      CRAWL_WORK.kickoff,
      { crawlId: cmd.crawlId, teamId: cmd.teamId },
      { msgId: `kickoff:${cmd.crawlId}` },
    );
    const job = await this.store.get(cmd.crawlId);
    if (job) await this.events.lifecycle(job, 'started');
    return { id: cmd.crawlId };
  }
}
