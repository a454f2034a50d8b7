import { envInt } from '@wds/config';
import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule';

/** Environment of the delivery feature; the app's config is `CommonEnv.extend(webhooksEnvShape)`. */
export const webhooksEnvShape = {
  /** Back-off between attempts, comma list of durations (ms, s, m, h); its length + 1 = attempts. */
  WDS_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((value, ctx) => {
      try {
        const schedule = parseRetrySchedule(value);
        if (schedule.length === 0) throw new Error('at least one retry delay is required');
        return schedule;
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** One attempt (connect, send, answer) ends after this; a timeout is a failed attempt. */
  WDS_WEBHOOK_TIMEOUT_MS: envInt({ min: 100, max: 120_000 }).default(10_000),
  /** Attempts in flight per replica. */
  WDS_WEBHOOK_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(32),
  /** Attempts in flight to one destination (scheme://host:port) across replicas. */
  WDS_WEBHOOK_PER_DESTINATION_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(4),
  /** Job events recorded at the same time per replica (outbox inserts). */
  WDS_WEBHOOK_CONSUMER_CONCURRENCY: envInt({ min: 1, max: 256 }).default(16),
  /** Look for due deliveries at least this often. */
  WDS_WEBHOOK_POLL_INTERVAL_MS: envInt({ min: 10, max: 60_000 }).default(1000),
  /**
   * Pages wait this long for their job's `started`, and completed/failed for pages still being
   * recorded, before delivery: events are recorded concurrently, not strictly in stream order.
   */
  WDS_WEBHOOK_ORDER_SETTLE_MS: envInt({ min: 0, max: 60_000 }).default(1000),
  /** How long a team's secret is cached (a new secret takes effect within this time). */
  WDS_WEBHOOK_SECRET_CACHE_MS: envInt({ min: 0, max: 3_600_000 }).default(60_000),
  /** Delivered and failed deliveries (and their attempts) are deleted after this many days. */
  WDS_WEBHOOK_RETENTION_DAYS: envInt({ min: 1, max: 365 }).default(7),
};

export const WebhooksEnv = z.object(webhooksEnvShape);
export type WebhooksEnv = z.output<typeof WebhooksEnv> & {
  WDS_PRIVATE_NETWORK_ALLOWLIST: string[];
  WDS_INSTANCE_ID: string;
};
