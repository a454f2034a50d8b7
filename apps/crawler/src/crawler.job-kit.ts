import { CRAWL_CONSUMERS, CRAWL_RPC, CRAWL_WORK } from '@wds/contracts';
import type { JobKit } from '@wds/jobs';

/** The crawler as a job service of the kit (ADR 0024): crawl jobs, `WDS_CRAWL_*` settings. */
export const CRAWL_JOB_KIT: JobKit<'CRAWL'> = {
  service: 'crawler',
  jobKind: 'crawl',
  endpoint: 'crawl',
  envPrefix: 'CRAWL',
  rpcs: CRAWL_RPC,
  page: { subject: CRAWL_WORK.page, consumer: CRAWL_CONSUMERS.page },
};
