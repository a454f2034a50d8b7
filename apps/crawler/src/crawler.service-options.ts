import path from 'node:path';
import { STREAMS } from '@wds/contracts';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { CrawlerConfig } from './config';

/** How the crawler process boots; shared by main.ts and the tests that run it in-process. */
export function crawlerServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof CrawlerConfig> {
  return {
    kind: 'crawler',
    module: AppModule,
    configSchema: CrawlerConfig,
    migrations: { schema: 'crawler', dir: path.join(__dirname, '..', 'migrations') },
    // Page tasks and kickoffs on the work stream, job events for webhooks, dead letters.
    streams: [STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1],
    ...(env ? { env } : {}),
  };
}
