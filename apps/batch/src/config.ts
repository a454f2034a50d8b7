import { CommonEnv, envInt } from '@wds/config';
import { jobServiceEnv } from '@wds/jobs';
import type { z } from 'zod';

/**
 * Environment of the batch service: the job service settings of the kit as `WDS_BATCH_*`
 * (retention, worker concurrency, ack wait, watchdog timings; libs/jobs `jobServiceEnv`) and
 * `WDS_JOB_PAGE_EVENTS`.
 */
export const BatchConfig = CommonEnv.extend({
  ...jobServiceEnv('BATCH'),
  /** Longest run of an agent job's browser agent (maxCredits may cut it shorter). */
  WDS_AGENT_TIMEOUT_MS: envInt({ min: 10_000, max: 1_800_000 }).default(300_000),
});
export type BatchConfig = z.output<typeof BatchConfig>;
