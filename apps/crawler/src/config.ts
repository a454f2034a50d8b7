import { CommonEnv, envInt } from '@wds/config';
import { PAGE_TASK_ACK_WAIT_MS } from '@wds/contracts';
import { jobPageEventsEnv } from '@wds/jobs';
import type { z } from 'zod';

/** Environment of the crawler service. */
export const CrawlerConfig = CommonEnv.extend({
  /** How long crawl results (status, documents, errors) are kept after the crawl starts. */
  WDS_CRAWL_RETENTION_HOURS: envInt({ min: 1 }).default(24),
  /** The same for zero-data-retention crawls: their documents are kept only for delivery. */
  WDS_CRAWL_ZDR_RETENTION_MINUTES: envInt({ min: 1 }).default(60),
  /** Page tasks this process works on at once (across all crawls). */
  WDS_CRAWL_WORKER_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(64),
  /** JetStream ack wait of page tasks: how soon a task of a dead worker is redelivered (live workers heartbeat). */
  WDS_CRAWL_ACK_WAIT_MS: envInt({ min: 1000 }).default(PAGE_TASK_ACK_WAIT_MS),
  /** Watchdog pass interval. */
  WDS_CRAWL_WATCHDOG_INTERVAL_MS: envInt({ min: 100 }).default(3000),
  /** A dispatched page unfinished this long is published again. */
  WDS_CRAWL_REDISPATCH_MS: envInt({ min: 1000 }).default(600_000),
  /** A crawl without progress this long is reconciled (and re-seeded if its kickoff was lost). */
  WDS_CRAWL_RECONCILE_MS: envInt({ min: 1000 }).default(60_000),
  /** A crawl without progress this long fails with the reason in its errors. */
  WDS_CRAWL_STALL_FAIL_MS: envInt({ min: 1000 }).default(1_800_000),
  /** Page events: `webhook` (only those a job's webhook wants; they carry documents) or `all`. */
  WDS_JOB_PAGE_EVENTS: jobPageEventsEnv(),
});
export type CrawlerConfig = z.output<typeof CrawlerConfig>;
