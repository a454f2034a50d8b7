import path from 'node:path';
import { jobServiceOptions } from '@wds/jobs';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { CrawlerConfig } from './config';
import { CRAWL_JOB_KIT } from './crawler.job-kit';

/** How the crawler process boots; shared by main.ts and the tests that run it in-process. */
export function crawlerServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof CrawlerConfig> {
  // Kickoffs travel on the work stream too.
  return jobServiceOptions(CRAWL_JOB_KIT, {
    module: AppModule,
    configSchema: CrawlerConfig,
    appDir: path.join(__dirname, '..'),
    ...(env ? { env } : {}),
  });
}
