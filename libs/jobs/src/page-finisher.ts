import { WriteBatcher } from '@wds/database';
import type { FinishOutcome, JobStore, PageFinish } from './job-store';

/** Pages per finish_pages() call at most. */
const MAX_PAGES = 64;
/** Document bytes per call at most (a lone bigger page still goes alone). */
const MAX_BYTES = 8 * 1024 * 1024;

/**
 * Finishes pages in natural batches per job: one `finishPages` call per job runs at a time and
 * carries every page of that job that finished while the previous call ran. The calls of one job
 * serialise on its row lock in PostgreSQL anyway; batching them pays the lock, the claim, the
 * counters and the commit once per batch instead of once per page. A lone page goes at once. When a
 * batch fails, its pages are retried one by one, so a page the database refuses fails alone.
 */
export class PageFinisher {
  private readonly jobs = new Map<string, WriteBatcher<PageFinish, FinishOutcome>>();

  constructor(private readonly store: JobStore) {}

  finish(jobId: string, page: PageFinish): Promise<FinishOutcome> {
    let batcher = this.jobs.get(jobId);
    if (!batcher) {
      const created = new WriteBatcher<PageFinish, FinishOutcome>(
        (pages) => this.store.finishPages(jobId, pages),
        {
          max: MAX_PAGES,
          maxWeight: MAX_BYTES,
          weight: (p) => (p.result.kind === 'done' ? p.result.documentJson.length : 0),
          isolateFailures: true,
          onIdle: () => {
            if (this.jobs.get(jobId) === created) this.jobs.delete(jobId);
          },
        },
      );
      batcher = created;
      this.jobs.set(jobId, batcher);
    }
    return batcher.add(page);
  }

  /** Jobs with pages being finished now. */
  get activeJobs(): number {
    return this.jobs.size;
  }
}
