import { z } from 'zod';

/**
 * The depth of a crawl page that no link or sitemap of the crawl led to: a URL the team's
 * change-tracking history has, re-checked by a crawl with the changeTracking format (its
 * `visibility` is `hidden`). Such a page leads to no further pages.
 */
export const RECHECK_DEPTH = -1;

/** One page of a crawl or batch job to scrape. Options live with the job, not in the message. */
export const PageTask = z.object({
  jobKind: z.enum(['crawl', 'batch']),
  jobId: z.uuid(),
  teamId: z.string().min(1),
  url: z.string().min(1),
  /** Discovery depth (start and sitemap pages 0), or RECHECK_DEPTH. */
  depth: z.int().min(RECHECK_DEPTH),
  attempt: z.int().min(0).optional(),
  /** The job's de-duplication key of `url` (the page row's key); absent in older tasks. */
  urlKey: z.string().min(1).optional(),
  /**
   * Set on a task the watchdog published again for a page that made no progress: such a task may
   * arrive after another copy finished the page, so the runner checks that the page is still pending.
   */
  republished: z.boolean().optional(),
});
export type PageTask = z.output<typeof PageTask>;

/** Nats-Msg-Id for a page task, so re-publishing the same page within the duplicate window is a no-op. */
export function pageTaskMsgId(task: Pick<PageTask, 'jobId' | 'url'>): string {
  return `${task.jobId}:${task.url}`;
}
