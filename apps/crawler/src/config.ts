import { CommonEnv } from '@wds/config';
import { jobServiceEnv } from '@wds/jobs';
import type { z } from 'zod';

/**
 * Environment of the crawler service: the job service settings of the kit as `WDS_CRAWL_*`
 * (retention, worker concurrency, ack wait, watchdog timings; libs/jobs `jobServiceEnv`) and
 * `WDS_JOB_PAGE_EVENTS`.
 */
export const CrawlerConfig = CommonEnv.extend({
  ...jobServiceEnv('CRAWL'),
});
export type CrawlerConfig = z.output<typeof CrawlerConfig>;
