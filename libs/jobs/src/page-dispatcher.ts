import { createHash } from 'node:crypto';
import type { PageTask, StreamMessageDef } from '@wds/contracts';
import type { PageTask as PageTaskSchema } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { ClaimedPage } from './job.types';

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
        return this.messaging.publish(this.subject, task, { msgId });
      }),
    );
  }
}
