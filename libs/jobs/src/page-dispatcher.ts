import { createHash } from 'node:crypto';
import type { PageTask, StreamMessageDef } from '@wds/contracts';
import type { PageTask as PageTaskSchema } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { ClaimedPage } from './job.types';

/**
 * How long a failed publish of a claimed page is retried (same msgId, so a publish that did reach
 * the stream is not stored twice): well within the stream's 2-minute duplicate window. A claimed
 * page whose task was never published otherwise waits for the watchdog's redispatch (10 min): a
 * NATS restart in the middle of a crawl paused it that long.
 */
const PUBLISH_RETRY_FOR_MS = 60_000;
const PUBLISH_RETRY_MAX_DELAY_MS = 2000;

/** Publishes claimed pages as page tasks; JetStream drops a repeat within its duplicate window. */
export class PageDispatcher {
  constructor(
    private readonly messaging: Messaging,
    private readonly subject: StreamMessageDef<typeof PageTaskSchema>,
    private readonly jobKind: PageTask['jobKind'],
  ) {}

  /** Page tasks are published in parallel; a failure leaves the page `dispatched` for the watchdog. */
  async publish(pages: readonly ClaimedPage[], opts: { republish?: boolean } = {}): Promise<void> {
    await Promise.all(
      pages.map((p) => {
        const key = createHash('sha1').update(p.urlKey).digest('base64url');
        const task: PageTask = {
          jobKind: this.jobKind,
          jobId: p.jobId,
          teamId: p.teamId,
          url: p.url,
          depth: p.depth,
          urlKey: p.urlKey,
          ...(opts.republish ? { republished: true } : {}),
        };
        // A republished task must not be swallowed as a duplicate of the (lost) first one.
        const msgId = `${p.jobId}:${key}${opts.republish ? `:${Date.now()}` : ''}`;
        return this.publishWithRetry(task, msgId);
      }),
    );
  }

  private async publishWithRetry(task: PageTask, msgId: string): Promise<void> {
    const giveUpAt = Date.now() + PUBLISH_RETRY_FOR_MS;
    for (let delay = 250; ; delay = Math.min(PUBLISH_RETRY_MAX_DELAY_MS, delay * 2)) {
      try {
        await this.messaging.publish(this.subject, task, { msgId });
        return;
      } catch (err) {
        if (Date.now() + delay > giveUpAt) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
