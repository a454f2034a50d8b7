import { envInt } from '@wds/config';
import { PAGE_TASK_ACK_WAIT_MS } from '@wds/contracts';
import { jobPageEventsEnv, type JobPageEvents } from '../job-events';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The settings every page-job service has, named `WDS_<PREFIX>_<NAME>` in its environment. */
const JOB_SERVICE_SHAPE = {
  /** How long job results (status, documents, errors) are kept after the job starts. */
  RETENTION_HOURS: envInt({ min: 1 }).default(24),
  /** The same for zero-data-retention jobs: their documents are kept only for delivery. */
  ZDR_RETENTION_MINUTES: envInt({ min: 1 }).default(60),
  /** Page tasks this process works on at once (across all its jobs). */
  WORKER_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(64),
  /** JetStream ack wait of page tasks: how soon a task of a dead worker is redelivered (live workers heartbeat). */
  ACK_WAIT_MS: envInt({ min: 1000 }).default(PAGE_TASK_ACK_WAIT_MS),
  /** Watchdog pass interval. */
  WATCHDOG_INTERVAL_MS: envInt({ min: 100 }).default(3000),
  /** A dispatched page unfinished this long is published again. */
  REDISPATCH_MS: envInt({ min: 1000 }).default(600_000),
  /** A job without progress this long is reconciled (re-seeded, or failed, if its start was lost). */
  RECONCILE_MS: envInt({ min: 1000 }).default(60_000),
  /** A job without progress this long fails with the reason in its errors. */
  STALL_FAIL_MS: envInt({ min: 1000 }).default(1_800_000),
};
type Shape = typeof JOB_SERVICE_SHAPE;

/** The environment shape of a page-job service whose settings are `WDS_<P>_*` (`CRAWL`, `BATCH`). */
export type JobServiceEnvShape<P extends string> = {
  [K in keyof Shape & string as `WDS_${P}_${K}`]: Shape[K];
} & { WDS_JOB_PAGE_EVENTS: ReturnType<typeof jobPageEventsEnv> };

/** The parsed settings of a page-job service whose environment prefix is `P`. */
export type JobServiceEnv<P extends string> = {
  [K in keyof Shape & string as `WDS_${P}_${K}`]: number;
} & { WDS_JOB_PAGE_EVENTS: JobPageEvents };

/**
 * The job settings of a page-job service, for its config schema (`CommonEnv.extend({...})`): the
 * same names, limits and defaults for every job service, with its own prefix (`WDS_CRAWL_*`,
 * `WDS_BATCH_*`), so each can be tuned alone; and `WDS_JOB_PAGE_EVENTS` (page events only for
 * webhooks that want them, `webhook`, the default, or `all`).
 */
export function jobServiceEnv<P extends string>(prefix: P): JobServiceEnvShape<P> {
  const shape: Record<string, unknown> = { WDS_JOB_PAGE_EVENTS: jobPageEventsEnv() };
  for (const [name, schema] of Object.entries(JOB_SERVICE_SHAPE)) shape[`WDS_${prefix}_${name}`] = schema;
  return shape as JobServiceEnvShape<P>;
}

/** A job service's settings as the job runtime takes them. */
export interface JobServiceSettings {
  retentionMs: number;
  zdrRetentionMs: number;
  concurrency: number;
  ackWaitMs: number;
  pageEvents: JobPageEvents;
  watchdog: { intervalMs: number; redispatchAfterMs: number; reconcileAfterMs: number; failAfterMs: number };
}

/** Reads the `WDS_<prefix>_*` settings (and `WDS_JOB_PAGE_EVENTS`) out of a parsed config. */
export function jobServiceSettings<P extends string>(
  config: JobServiceEnv<P>,
  prefix: P,
): JobServiceSettings {
  const read = (name: keyof Shape & string): number =>
    (config as Record<string, unknown>)[`WDS_${prefix}_${name}`] as number;
  return {
    retentionMs: read('RETENTION_HOURS') * HOUR,
    zdrRetentionMs: read('ZDR_RETENTION_MINUTES') * MINUTE,
    concurrency: read('WORKER_CONCURRENCY'),
    ackWaitMs: read('ACK_WAIT_MS'),
    pageEvents: config.WDS_JOB_PAGE_EVENTS,
    watchdog: {
      intervalMs: read('WATCHDOG_INTERVAL_MS'),
      redispatchAfterMs: read('REDISPATCH_MS'),
      reconcileAfterMs: read('RECONCILE_MS'),
      failAfterMs: read('STALL_FAIL_MS'),
    },
  };
}
