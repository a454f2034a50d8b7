import { WORK, type PageTask } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { PageDispatcher } from './page-dispatcher';
import type { ClaimedPage } from './job.types';

/** The work stream as the publisher sees it; the first `failures` publishes fail. */
class WorkDouble {
  readonly published: { task: PageTask; msgId?: string }[] = [];
  constructor(private failures = 0) {}
  get messaging(): Messaging {
    return {
      publish: async (_def: unknown, task: PageTask, opts?: { msgId?: string }) => {
        if (this.failures-- > 0) throw new Error('NATS away');
        this.published.push({ task, msgId: opts?.msgId });
      },
    } as unknown as Messaging;
  }
}

const claimed = (urlKey: string): ClaimedPage =>
  ({
    jobId: 'job-1',
    teamId: 'team-1',
    url: `https://example.com${urlKey}`,
    depth: 1,
    urlKey,
  }) as ClaimedPage;

describe('PageDispatcher', () => {
  it('publishes one task per claimed page with a msgId stable per job and URL key', async () => {
    const work = new WorkDouble();
    const dispatcher = new PageDispatcher(work.messaging, WORK.page, 'crawl');
    await dispatcher.publish([claimed('/a'), claimed('/b')]);
    await dispatcher.publish([claimed('/a')]);
    const [a, b, again] = work.published;
    expect(a.task).toEqual({
      jobKind: 'crawl',
      jobId: 'job-1',
      teamId: 'team-1',
      url: 'https://example.com/a',
      depth: 1,
      urlKey: '/a',
    });
    expect(a.msgId).toMatch(/^job-1:/);
    expect(b.msgId).not.toBe(a.msgId);
    // JetStream drops the repeat of a task published twice.
    expect(again.msgId).toBe(a.msgId);
  });

  it('marks a republished task and gives it a msgId of its own, so the lost first one cannot swallow it', async () => {
    const work = new WorkDouble();
    const dispatcher = new PageDispatcher(work.messaging, WORK.page, 'batch');
    await dispatcher.publish([claimed('/a')]);
    await dispatcher.publish([claimed('/a')], { republish: true });
    const [first, republished] = work.published;
    expect(republished.task.republished).toBe(true);
    expect(republished.msgId).not.toBe(first.msgId);
    expect(republished.msgId!.startsWith(first.msgId!)).toBe(true);
  });

  it('retries a failed publish with the same msgId', async () => {
    const work = new WorkDouble(2);
    await new PageDispatcher(work.messaging, WORK.page, 'crawl').publish([claimed('/a')]);
    expect(work.published).toHaveLength(1);
  });
});
