import path from 'node:path';
import { jobServiceOptions } from '@wds/jobs';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BATCH_JOB_KIT } from './batch.job-kit';
import { BatchConfig } from './config';

/** How the batch process boots; shared by main.ts and the tests that run it in-process. */
export function batchServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof BatchConfig> {
  return jobServiceOptions(BATCH_JOB_KIT, {
    module: AppModule,
    configSchema: BatchConfig,
    appDir: path.join(__dirname, '..'),
    ...(env ? { env } : {}),
  });
}
