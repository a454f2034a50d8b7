import { BATCH_CONSUMERS, BATCH_RPC, BATCH_WORK } from '@wds/contracts';
import type { JobKit } from '@wds/jobs';

/**
 * The batch service as a job service of the kit (ADR 0024): batch jobs (extract and agent jobs run
 * as job kinds of their own on its page tasks, ADR 0023), `WDS_BATCH_*` settings.
 */
export const BATCH_JOB_KIT: JobKit<'BATCH'> = {
  service: 'batch',
  jobKind: 'batch',
  endpoint: 'batch_scrape',
  envPrefix: 'BATCH',
  rpcs: BATCH_RPC,
  page: { subject: BATCH_WORK.page, consumer: BATCH_CONSUMERS.page },
};
