import path from 'node:path';
import { STREAMS } from '@wds/contracts';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BatchConfig } from './config';

/** How the batch process boots; shared by main.ts and the tests that run it in-process. */
export function batchServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof BatchConfig> {
  return {
    kind: 'batch',
    module: AppModule,
    configSchema: BatchConfig,
    migrations: { schema: 'batch', dir: path.join(__dirname, '..', 'migrations') },
    // Page tasks on the work stream, job events for webhooks, dead letters.
    streams: [STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1],
    ...(env ? { env } : {}),
  };
}
