import { CommonEnv, envInt } from '@wds/config';
import type { z } from 'zod';

/** Environment of the billing service. */
export const BillingConfig = CommonEnv.extend({
  /** Per-request usage rows (`billing.usage`) older than this are deleted by the sweeper. */
  WDS_USAGE_RETENTION_DAYS: envInt({ min: 1, max: 3650 }).default(90),
  /** Activity records (GET /v2/team/activity), job keys and LLM token events older than this are purged. */
  WDS_ACTIVITY_RETENTION_DAYS: envInt({ min: 1, max: 3650 }).default(30),
});
export type BillingConfig = z.output<typeof BillingConfig>;
