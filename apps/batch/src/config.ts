import { CommonEnv, envInt } from '@wds/config';
import { PAGE_TASK_ACK_WAIT_MS } from '@wds/contracts';
import { jobPageEventsEnv } from '@wds/jobs';
import type { z } from 'zod';

/** Environment of the batch service. */
export const BatchConfig = CommonEnv.extend({
  /** How long batch results (status, documents, errors) are kept after the batch starts. */
  WDS_BATCH_RETENTION_HOURS: envInt({ min: 1 }).default(24),
  /** The same for zero-data-retention batches: their documents are kept only for delivery. */
  WDS_BATCH_ZDR_RETENTION_MINUTES: envInt({ min: 1 }).default(60),
  /** Page tasks this process works on at once (across all batches). */
  WDS_BATCH_WORKER_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(64),
  /** JetStream ack wait of page tasks: how soon a task of a dead worker is redelivered (live workers heartbeat). */
  WDS_BATCH_ACK_WAIT_MS: envInt({ min: 1000 }).default(PAGE_TASK_ACK_WAIT_MS),
  /** Watchdog pass interval. */
  WDS_BATCH_WATCHDOG_INTERVAL_MS: envInt({ min: 100 }).default(3000),
  /** A dispatched page unfinished this long is published again. */
  WDS_BATCH_REDISPATCH_MS: envInt({ min: 1000 }).default(600_000),
  /** A batch without progress this long is reconciled (and re-seeded if its creation was cut short). */
  WDS_BATCH_RECONCILE_MS: envInt({ min: 1000 }).default(60_000),
  /** A batch without progress this long fails with the reason in its errors. */
  WDS_BATCH_STALL_FAIL_MS: envInt({ min: 1000 }).default(1_800_000),
  /** Longest run of an agent job's browser agent (maxCredits may cut it shorter). */
  WDS_AGENT_TIMEOUT_MS: envInt({ min: 10_000, max: 1_800_000 }).default(300_000),
  /** Page events: `webhook` (only those a job's webhook wants; they carry documents) or `all`. */
  WDS_JOB_PAGE_EVENTS: jobPageEventsEnv(),
});
export type BatchConfig = z.output<typeof BatchConfig>;
